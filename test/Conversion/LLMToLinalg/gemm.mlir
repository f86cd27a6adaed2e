// Multi-row (prefill) llm.linear / llm.logits lower to the register-tiled vector kernel: 4 tokens × 2 weight rows per tile on a runtime token count, with 1-token tiles for the T % 4 leftover tokens and 1×1 tiles for the N % 2 leftover weight rows.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg=parallel-min-weight-elements=0 --canonicalize | FileCheck %s

// CHECK-LABEL: func @linear_dynamic_t
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x40xf32>, %[[W:.+]]: tensor<5x40xbf16>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[T:.+]] = tensor.dim %[[X]], %[[C1]]
// CHECK: %[[OUT:.+]] = memref.alloc(%[[T]]) {alignment = 64 : i64} : memref<1x?x5xf32>
// CHECK: %[[XR:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<1x?x40xf32> into tensor<?x40xf32>
// CHECK: %[[M:.+]] = tensor.dim %[[XR]], %[[C0]]
// CHECK: %[[REM:.+]] = arith.remui %[[M]], %[[C4]]
// CHECK: %[[MMAIN:.+]] = arith.subi %[[M]], %[[REM]]
// Full tiles: weight rows outer, tokens inner; 8 accumulators.
// CHECK: scf.parallel (%[[N0:.+]], %[[M0:.+]]) = (%[[C0]], %[[C0]]) to (%[[C4]], %[[MMAIN]]) step (%[[C2]], %[[C4]]) {
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4: vector.transfer_read %[[XR]]
// CHECK-COUNT-2: arith.extf %{{.+}} : vector<16xbf16> to vector<16xf32>
// CHECK-COUNT-8: vector.fma
// CHECK: vector.constant_mask [8] : vector<16xi1>
// CHECK-COUNT-8: vector.reduction <add>, %{{.+}} fastmath<reassoc>
// CHECK: scf.reduce
// Leftover tokens: 1 × 2 tiles.
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%[[C0]], %[[MMAIN]]) to (%[[C4]], %[[M]]) step (%[[C2]], %[[C1]]) {
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK: scf.reduce
// Leftover weight row 4: 1 × 1 tiles over every token.
// CHECK: scf.parallel (%{{.+}}) = (%[[C0]]) to (%[[M]]) step (%[[C1]]) {
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.transfer_read %[[W]][%[[C4]],
// CHECK: scf.reduce
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable : memref<1x?x5xf32> to tensor<1x?x5xf32>
func.func @linear_dynamic_t(%x: tensor<1x?x40xf32>, %w: tensor<5x40xbf16>) -> tensor<1x?x5xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x40xf32>, tensor<5x40xbf16> -> tensor<1x?x5xf32>
  return %0 : tensor<1x?x5xf32>
}

// -----

// A static token count that fills whole tiles: one loop nest, no tails.
// CHECK-LABEL: func @logits_static
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = ({{.+}}) to ({{.+}}) step ({{.+}}) {
// CHECK-COUNT-8: vector.fma
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @logits_static(%x: tensor<8x32xf32>, %w: tensor<64x32xf32>) -> tensor<8x64xf32> {
  %0 = llm.logits %x, %w : tensor<8x32xf32>, tensor<64x32xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
