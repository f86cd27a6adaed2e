// RUN: llmc-opt %s -split-input-file --llm-fuse-sibling-linears | FileCheck %s

// An attention block's q/k/v and an FFN's gate/up/glu.
// CHECK-LABEL: func @layer
// CHECK-SAME: (%[[N:.*]]: tensor<1x1x64xf32>, %[[WQ:.*]]: tensor<64x64xbf16>, %[[WK:.*]]: tensor<32x64xbf16>, %[[WV:.*]]: tensor<32x64xbf16>, %[[WG:.*]]: tensor<172x64xbf16>, %[[WU:.*]]: tensor<172x64xbf16>)
func.func @layer(%n: tensor<1x1x64xf32>, %wq: tensor<64x64xbf16>, %wk: tensor<32x64xbf16>, %wv: tensor<32x64xbf16>, %wg: tensor<172x64xbf16>, %wu: tensor<172x64xbf16>) -> (tensor<1x1x64xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x172xf32>) {
  // CHECK: %[[QKV:.*]]:3 = llm.multi_linear %[[N]] weights(%[[WQ]], %[[WK]], %[[WV]] : tensor<64x64xbf16>, tensor<32x64xbf16>, tensor<32x64xbf16>) : tensor<1x1x64xf32> -> tensor<1x1x64xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
  %q = llm.linear %n, %wq : tensor<1x1x64xf32>, tensor<64x64xbf16> -> tensor<1x1x64xf32>
  %k = llm.linear %n, %wk : tensor<1x1x64xf32>, tensor<32x64xbf16> -> tensor<1x1x32xf32>
  %v = llm.linear %n, %wv : tensor<1x1x64xf32>, tensor<32x64xbf16> -> tensor<1x1x32xf32>
  // CHECK: %[[A:.*]] = llm.glu_linear silu %[[N]], %[[WG]], %[[WU]] : tensor<1x1x64xf32>, tensor<172x64xbf16>, tensor<172x64xbf16> -> tensor<1x1x172xf32>
  %g = llm.linear %n, %wg : tensor<1x1x64xf32>, tensor<172x64xbf16> -> tensor<1x1x172xf32>
  %u = llm.linear %n, %wu : tensor<1x1x64xf32>, tensor<172x64xbf16> -> tensor<1x1x172xf32>
  %a = llm.glu silu %g, %u : tensor<1x1x172xf32>
  // CHECK-NOT: llm.linear
  // CHECK: return %[[QKV]]#0, %[[QKV]]#1, %[[QKV]]#2, %[[A]]
  return %q, %k, %v, %a : tensor<1x1x64xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x172xf32>
}

// -----

// Biased projections (Qwen2's q/k/v) fuse with their biases; a projection
// without bias does not join them.
// CHECK-LABEL: func @biases
func.func @biases(%x: tensor<1x?x64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<32x64xf32>, %wo: tensor<64x64xf32>, %bq: tensor<64xf32>, %bk: tensor<32xf32>) -> (tensor<1x?x64xf32>, tensor<1x?x32xf32>, tensor<1x?x64xf32>) {
  // CHECK: llm.multi_linear %{{.*}} weights(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<32x64xf32>) biases(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<32xf32>)
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x64xf32>, tensor<64x64xf32> -> tensor<1x?x64xf32>
  %q = llm.linear %x, %wq, %bq : tensor<1x?x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  %k = llm.linear %x, %wk, %bk : tensor<1x?x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<1x?x32xf32>
  %o = llm.linear %x, %wo : tensor<1x?x64xf32>, tensor<64x64xf32> -> tensor<1x?x64xf32>
  return %q, %k, %o : tensor<1x?x64xf32>, tensor<1x?x32xf32>, tensor<1x?x64xf32>
}

// -----

// Not fused: a gate with another use (the projections then merge as plain
// siblings), projections of different inputs, a residual projection, and a
// sibling whose weight is defined after the first projection.
// CHECK-LABEL: func @not_fused
func.func @not_fused(%x: tensor<1x1x64xf32>, %y: tensor<1x1x64xf32>, %w: tensor<172x64xf32>, %r: tensor<1x1x172xf32>) -> (tensor<1x1x172xf32>, tensor<1x1x172xf32>, tensor<1x1x172xf32>, tensor<1x1x172xf32>, tensor<1x1x172xf32>) {
  // CHECK: %[[GU:.*]]:2 = llm.multi_linear %{{.*}} weights(%{{.*}}, %{{.*}} : tensor<172x64xf32>, tensor<172x64xf32>)
  // CHECK: llm.glu silu %[[GU]]#0, %[[GU]]#1
  %g = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  %u = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  %a = llm.glu silu %g, %u : tensor<1x1x172xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x1x64xf32>, tensor<172x64xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} residual
  %b = llm.linear %y, %w : tensor<1x1x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  %c = llm.linear %y, %w residual %r : tensor<1x1x64xf32>, tensor<172x64xf32> residual tensor<1x1x172xf32> -> tensor<1x1x172xf32>
  return %a, %g, %b, %c, %u : tensor<1x1x172xf32>, tensor<1x1x172xf32>, tensor<1x1x172xf32>, tensor<1x1x172xf32>, tensor<1x1x172xf32>
}

// -----

// CHECK-LABEL: func @late_weight
func.func @late_weight(%x: tensor<1x1x4xf32>, %w: tensor<4x4xf32>) -> (tensor<1x1x4xf32>, tensor<1x1x4xf32>) {
  // CHECK: llm.linear
  // CHECK: tensor.empty
  // CHECK: llm.linear
  // CHECK-NOT: llm.multi_linear
  %a = llm.linear %x, %w : tensor<1x1x4xf32>, tensor<4x4xf32> -> tensor<1x1x4xf32>
  %late = tensor.empty() : tensor<4x4xf32>
  %b = llm.linear %x, %late : tensor<1x1x4xf32>, tensor<4x4xf32> -> tensor<1x1x4xf32>
  return %a, %b : tensor<1x1x4xf32>, tensor<1x1x4xf32>
}
