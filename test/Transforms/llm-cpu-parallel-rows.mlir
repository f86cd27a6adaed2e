// RUN: llmc-opt %s --llm-cpu-parallel-rows -split-input-file | FileCheck %s --check-prefix=PASS
// RUN: llmc-opt %s --llm-cpu-parallel-rows --canonicalize --cse -split-input-file | FileCheck %s
// RUN: llmc-opt %s --llm-cpu-parallel-rows="rows-per-tile=4 min-tile-elements=0" -split-input-file | FileCheck %s --check-prefix=FOUR

// The pass alone leaves no fused op behind (PASS); the checks below read its
// output after the canonicalization that follows it in the pipeline.

// An RMS norm over a prefill's dynamic rows of 512 (a fill, the sum of
// squares, the normalization): one scf.forall over tiles of 8 rows, the fill and the
// sum fused into it and gone from the function body, each tile's slice of
// the result inserted in parallel.
#rows = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#sums = affine_map<(d0, d1, d2) -> (d0, d1)>
#gamma = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @norm
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x512xf32>, %[[G:.+]]: tensor<512xf32>)
// CHECK: %[[ROWS:.+]] = tensor.dim %[[X]], %c1
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = scf.forall (%[[ROW:.+]]) = (0) to (%{{.+}}) step (8) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<1x?x512xf32>) {
// CHECK: %[[N:.+]] = affine.min #{{.+}}(%[[ROW]])[%{{.+}}]
// CHECK: %[[XS:.+]] = tensor.extract_slice %[[X]][0, %[[ROW]], 0] [1, %[[N]], 512] [1, 1, 1]
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x?xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XS]] : tensor<1x?x512xf32>) outs(%[[ZERO]] : tensor<1x?xf32>)
// CHECK: %[[Y:.+]] = linalg.generic {{.+}} ins(%{{.+}}, %[[SUM]], %[[G]] : tensor<1x?x512xf32>, tensor<1x?xf32>, tensor<512xf32>)
// CHECK: scf.forall.in_parallel {
// CHECK: tensor.parallel_insert_slice %[[Y]] into %[[OUT]][0, %[[ROW]], 0] [1, %[[N]], 512] [1, 1, 1]
// CHECK: }
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
// PASS-LABEL: func.func @norm
// PASS-NOT: linalg.{{fill|generic}}
// PASS: scf.forall
// PASS-COUNT-3: linalg.{{fill|generic}}
// PASS-NOT: linalg.{{fill|generic}}
// PASS: return
// FOUR-LABEL: func.func @norm
// FOUR: scf.forall (%{{.+}}) = (0) to (%{{.+}}) step (4)
func.func @norm(%x: tensor<1x?x512xf32>, %gamma: tensor<512xf32>) -> tensor<1x?x512xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %x, %c1 : tensor<1x?x512xf32>
  %empty_sums = tensor.empty(%rows) : tensor<1x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty_sums : tensor<1x?xf32>) -> tensor<1x?xf32>
  %sums = linalg.generic {indexing_maps = [#rows, #sums], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<1x?x512xf32>) outs(%init : tensor<1x?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<1x?xf32>
  %empty = tensor.empty(%rows) : tensor<1x?x512xf32>
  %y = linalg.generic {indexing_maps = [#rows, #sums, #gamma, #rows], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %sums, %gamma : tensor<1x?x512xf32>, tensor<1x?xf32>, tensor<512xf32>) outs(%empty : tensor<1x?x512xf32>) {
  ^bb0(%in: f32, %s: f32, %g: f32, %out: f32):
    %r = arith.mulf %in, %s : f32
    %o = arith.mulf %r, %g : f32
    linalg.yield %o : f32
  } -> tensor<1x?x512xf32>
  return %y : tensor<1x?x512xf32>
}

// -----

// A sum that two ops read (a residual sum: the next norm's input and the
// next residual add's) is not recomputed in either: it keeps a loop of its
// own, and so does each of its readers. Rows of 32 are taken 128 at a time
// (4096 elements a tile).
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @shared_sum
// CHECK: %[[SUM:.+]] = scf.forall (%{{.+}}) = (0) to (%{{.+}}) step (128)
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: %[[P:.+]] = scf.forall {{.+}} {
// CHECK-NOT: arith.addf
// CHECK: arith.mulf
// CHECK: %[[Q:.+]] = scf.forall {{.+}} {
// CHECK-NOT: arith.addf
// CHECK: arith.subf
// CHECK: return %[[P]], %[[Q]]
func.func @shared_sum(%a: tensor<?x32xf32>, %b: tensor<?x32xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %a, %c0 : tensor<?x32xf32>
  %e = tensor.empty(%rows) : tensor<?x32xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x32xf32>, tensor<?x32xf32>) outs(%e : tensor<?x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  %p = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x32xf32>) outs(%e : tensor<?x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<?x32xf32>
  %q = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x32xf32>) outs(%e : tensor<?x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %d = arith.subf %x, %x : f32
    linalg.yield %d : f32
  } -> tensor<?x32xf32>
  return %p, %q : tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// Decode's ops (static shapes: one row) and ops nested in a loop
// (attention's per-head loops) are left as they are.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @static_and_nested
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-NOT: scf.forall
func.func @static_and_nested(%a: tensor<1x576xf32>, %b: tensor<?x32xf32>, %n: index) -> (tensor<1x576xf32>, tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<1x576xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<1x576xf32>) outs(%e : tensor<1x576xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<1x576xf32>
  %loop = scf.for %i = %c0 to %n step %c1 iter_args(%t = %b) -> tensor<?x32xf32> {
    %rows = tensor.dim %t, %c0 : tensor<?x32xf32>
    %f = tensor.empty(%rows) : tensor<?x32xf32>
    %u = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%t : tensor<?x32xf32>) outs(%f : tensor<?x32xf32>) {
    ^bb0(%x: f32, %o: f32):
      %m = arith.mulf %x, %x : f32
      linalg.yield %m : f32
    } -> tensor<?x32xf32>
    scf.yield %u : tensor<?x32xf32>
  }
  return %r, %loop : tensor<1x576xf32>, tensor<?x32xf32>
}
