// Projections on float rows in interleaved groups of 16 (`!llm.interleaved<f16, rows = 16>`, storage
// tensor<N/16 x 16·K x f16>): the decode GEMV is an scf.parallel over the groups, each summing column k of
// its 16 rows (one vector, widened) times x's element k broadcast, in 4 FMA chains from the bias, the
// columns left below a multiple of 4 in the first chain, then one vector store of the group's outputs (no
// reduction across lanes, no prefetch). The prefill GEMM reads panels of 3 groups as stored (no packed
// buffer): tiles of 8 x rows × 3 group vectors (AVX-512; 6 × 1 on AVX2's 16 ymm), 1-row tiles for the rows
// left below a tile, and panels of one group for the groups left below 3.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg=parallel-min-weight-elements=0 --canonicalize | FileCheck %s
// RUN: llmc-opt %s -split-input-file "--llm-lower-to-linalg=parallel-min-weight-elements=0 vector-register-bits=256 vector-registers=16" --canonicalize | FileCheck %s --check-prefix=AVX2
// Through bufferization to the LLVM dialect: the storage is read in place (no copy of the weight).
// RUN: llmc-opt %s -split-input-file --llmc-cpu-to-llvm=parallel-min-weight-elements=0 | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func @gemv
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x66xf32>, %[[W:.+]]: tensor<3x1056xf16>, %[[B:.+]]: tensor<48xf32>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C48:.+]] = arith.constant 48 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[C66:.+]] = arith.constant 66 : index
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[XR:.+]] = tensor.collapse_shape %[[X]]
// CHECK: %[[OUT:.+]] = memref.collapse_shape
// CHECK: scf.parallel (%[[N0:.+]]) = (%[[C0]]) to (%[[C48]]) step (%[[C16]]) {
// CHECK: %[[G:.+]] = arith.divui %[[N0]], %[[C16]] : index
// CHECK: %[[BIAS:.+]] = vector.transfer_read %[[B]][%[[N0]]]
// CHECK: %[[SUMS:.+]]:4 = scf.for %[[K:.+]] = %[[C0]] to %[[C64]] step %[[C4]] iter_args(%{{.+}} = %[[BIAS]], %{{.+}} = %[[ZERO]], %{{.+}} = %[[ZERO]], %{{.+}} = %[[ZERO]])
// CHECK: %[[XK:.+]] = tensor.extract %[[XR]][%[[C0]], %[[K]]] : tensor<1x66xf32>
// CHECK: %[[XB:.+]] = vector.broadcast %[[XK]] : f32 to vector<16xf32>
// CHECK: %[[COL:.+]] = arith.muli %[[K]], %[[C16]] : index
// CHECK: %[[WV:.+]] = vector.transfer_read %[[W]][%[[G]], %[[COL]]], %{{.+}} {in_bounds = [true]} : tensor<3x1056xf16>, vector<16xf16>
// CHECK: %[[WF:.+]] = arith.extf %[[WV]] : vector<16xf16> to vector<16xf32>
// CHECK: vector.fma %[[WF]], %[[XB]], %{{.+}} : vector<16xf32>
// CHECK-COUNT-3: vector.fma
// CHECK: scf.yield
// CHECK: %[[LAST:.+]] = scf.for %{{.+}} = %[[C64]] to %[[C66]] step %{{.+}} iter_args(%{{.+}} = %[[SUMS]]#0)
// CHECK: arith.addf %[[LAST]], %[[SUMS]]#1 : vector<16xf32>
// CHECK: arith.addf %{{.+}}, %[[SUMS]]#2 : vector<16xf32>
// CHECK: %[[TOTAL:.+]] = arith.addf %{{.+}}, %[[SUMS]]#3 : vector<16xf32>
// CHECK-NOT: vector.reduction
// CHECK-NOT: memref.prefetch
// CHECK: vector.store %[[TOTAL]], %[[OUT]][%[[C0]], %[[N0]]] : memref<1x48xf32>, vector<16xf32>
// LLVM-LABEL: llvm.func @gemv
// LLVM-NOT: llvm.call @memcpy
// LLVM: llvm.fpext %{{.+}} : vector<16xf16> to vector<16xf32>
// LLVM: llvm.intr.fmuladd
func.func @gemv(%x: tensor<1x1x66xf32>, %w: tensor<48x66x!llm.interleaved<f16, rows = 16>>, %b: tensor<48xf32>) -> tensor<1x1x48xf32> {
  %y = llm.linear %x, %w, %b : tensor<1x1x66xf32>, tensor<48x66x!llm.interleaved<f16, rows = 16>>, tensor<48xf32> -> tensor<1x1x48xf32>
  return %y : tensor<1x1x48xf32>
}

// -----

// CHECK-LABEL: func @gemm
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x40xf32>, %[[W:.+]]: tensor<5x640xf16>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C48:.+]] = arith.constant 48 : index
// CHECK-DAG: %[[C80:.+]] = arith.constant 80 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK: %[[XR:.+]] = tensor.collapse_shape %[[X]]
// CHECK: %[[T:.+]] = tensor.dim %[[XR]], %[[C0]]
// CHECK-NOT: memref.alloc() {{.*}} : memref<{{.*}}x48xf32>
// The panel of groups 0-2 (rows 0-47), x rows in blocks of 128, 8-row tiles.
// CHECK: scf.parallel (%[[M0:.+]]) = (%[[C0]]) to (%[[T]]) step (%[[C128]]) {
// CHECK: scf.for %[[M:.+]] = %[[M0]] to %{{.+}} step %[[C8]] {
// CHECK: scf.for %[[K:.+]] = %[[C0]] to %{{.+}} step %[[C1]] iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[COL:.+]] = arith.muli %[[K]], %[[C16]] : index
// CHECK: vector.transfer_read %[[W]][%[[C0]], %[[COL]]], %{{.+}} {in_bounds = [true]} : tensor<5x640xf16>, vector<16xf16>
// CHECK: vector.transfer_read %[[W]][%[[C1]], %[[COL]]], %{{.+}} {in_bounds = [true]} : tensor<5x640xf16>, vector<16xf16>
// CHECK: vector.transfer_read %[[W]][%[[C2]], %[[COL]]], %{{.+}} {in_bounds = [true]} : tensor<5x640xf16>, vector<16xf16>
// CHECK: tensor.extract %[[XR]][%[[M]], %[[K]]]
// CHECK-COUNT-3: vector.fma
// The rows left below a tile: 1-row tiles over the same panel.
// CHECK: scf.for %{{.+}} iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// The groups left below a panel (3 and 4, rows 48-79): panels of one group.
// CHECK: scf.parallel (%{{.+}}, %[[N0:.+]]) = (%[[C0]], %[[C48]]) to (%[[T]], %[[C80]]) step (%[[C128]], %[[C16]]) {
// CHECK: %[[G:.+]] = arith.divui %[[N0]], %[[C16]] : index
// CHECK: -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: vector.transfer_read %[[W]][%[[G]], %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<5x640xf16>, vector<16xf16>
// AVX2-LABEL: func @gemm
// AVX2: scf.parallel (%{{.+}}, %{{.+}}) = (%{{.+}}, %{{.+}}) to (%{{.+}}, %{{.+}}) step (%{{.+}}, %{{.+}}) {
// AVX2: scf.for %{{.+}} step %c6 {
// AVX2: iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// AVX2-COUNT-1: vector.transfer_read %{{.+}} : tensor<5x640xf16>, vector<16xf16>
// AVX2-NOT: vector.transfer_read %{{.+}} : tensor<5x640xf16>, vector<16xf16>
// AVX2: scf.yield
func.func @gemm(%x: tensor<1x?x40xf32>, %w: tensor<80x40x!llm.interleaved<f16, rows = 16>>) -> tensor<1x?x80xf32> {
  %y = llm.linear %x, %w : tensor<1x?x40xf32>, tensor<80x40x!llm.interleaved<f16, rows = 16>> -> tensor<1x?x80xf32>
  return %y : tensor<1x?x80xf32>
}

// -----

// bf16 rows in pairs of columns (`columns = 2`): each K step of the GEMV's 4
// chains reads two runs (vector<32xbf16>, columns 2p and 2p + 1 of the
// group's 16 rows side by side) and widens each to its even column (the
// 32-bit lanes shifted up by 16) and its odd one (the low half cleared),
// one FMA chain each; K = 66 leaves one run to the tail, which adds into
// the first two chains.
// CHECK-LABEL: func @gemv_pairs
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x66xf32>, %[[W:.+]]: tensor<3x1056xbf16>)
// CHECK-DAG: %[[SHIFT:.+]] = arith.constant dense<16> : vector<16xi32>
// CHECK-DAG: %[[HIGH:.+]] = arith.constant dense<-65536> : vector<16xi32>
// CHECK-DAG: %[[C1024:.+]] = arith.constant 1024 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[C65:.+]] = arith.constant 65 : index
// CHECK: %[[SUMS:.+]]:4 = scf.for %[[K:.+]] = %{{.+}} to %[[C64]] step %{{.+}} iter_args(%[[S0:.+]] = %{{.+}}, %[[S1:.+]] = %{{.+}}, %[[S2:.+]] = %{{.+}}, %[[S3:.+]] = %{{.+}})
// CHECK: %[[XE:.+]] = tensor.extract %{{.+}}[%{{.+}}, %[[K]]]
// CHECK: %[[BE:.+]] = vector.broadcast %[[XE]]
// CHECK: %[[XO:.+]] = tensor.extract
// CHECK: %[[BO:.+]] = vector.broadcast %[[XO]]
// CHECK: %[[PAIRS:.+]] = vector.transfer_read %[[W]][%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<3x1056xbf16>, vector<32xbf16>
// CHECK: %[[BITS:.+]] = vector.bitcast %[[PAIRS]] : vector<32xbf16> to vector<16xi32>
// CHECK: %[[EVENBITS:.+]] = arith.shli %[[BITS]], %[[SHIFT]] : vector<16xi32>
// CHECK: %[[ODDBITS:.+]] = arith.andi %[[BITS]], %[[HIGH]] : vector<16xi32>
// CHECK: %[[EVEN:.+]] = vector.bitcast %[[EVENBITS]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[ODD:.+]] = vector.bitcast %[[ODDBITS]] : vector<16xi32> to vector<16xf32>
// CHECK: vector.fma %[[EVEN]], %[[BE]], %[[S0]] : vector<16xf32>
// CHECK: vector.fma %[[ODD]], %[[BO]], %[[S1]] : vector<16xf32>
// CHECK: vector.transfer_read %[[W]]
// CHECK: vector.fma %{{.+}}, %{{.+}}, %[[S2]] : vector<16xf32>
// CHECK: vector.fma %{{.+}}, %{{.+}}, %[[S3]] : vector<16xf32>
// CHECK: scf.yield
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %[[C64]]]
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %[[C65]]]
// CHECK: vector.transfer_read %[[W]][%{{.+}}, %[[C1024]]]
// CHECK: %[[T0:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[SUMS]]#0 : vector<16xf32>
// CHECK: %[[T1:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[SUMS]]#1 : vector<16xf32>
// CHECK: arith.addf %[[T0]], %[[T1]] : vector<16xf32>
// CHECK-NOT: vector.reduction
// CHECK: vector.store
func.func @gemv_pairs(%x: tensor<1x1x66xf32>, %w: tensor<48x66x!llm.interleaved<bf16, rows = 16, columns = 2>>) -> tensor<1x1x48xf32> {
  %y = llm.linear %x, %w : tensor<1x1x66xf32>, tensor<48x66x!llm.interleaved<bf16, rows = 16, columns = 2>> -> tensor<1x1x48xf32>
  return %y : tensor<1x1x48xf32>
}
