// RUN: llmc-opt %s -split-input-file --llm-decompose-fused | FileCheck %s
// The fusion passes and the decomposition are inverses on a decoder layer:
// RUN: llmc-opt %s -split-input-file --llm-decompose-fused | FileCheck %s --check-prefix=ROUND
// RUN: llmc-opt %s -split-input-file --llm-decompose-fused --llm-fuse-residual-add --llm-fuse-sibling-linears --llm-fuse-norm-into-projections --llm-fuse-rope-append | FileCheck %s --check-prefix=REFUSED

// CHECK-LABEL: func @layer
// CHECK-SAME: (%[[H:.*]]: tensor<1x1x64xf32>, %[[G:.*]]: tensor<64xf32>, %[[WQ:.*]]: tensor<64x64xf32>, %[[WK:.*]]: tensor<32x64xf32>, %[[BQ:.*]]: tensor<64xf32>, %[[BK:.*]]: tensor<32xf32>, %[[WO:.*]]: tensor<64x64xf32>, %[[WG:.*]]: tensor<172x64xf32>, %[[WU:.*]]: tensor<172x64xf32>)
func.func @layer(%h: tensor<1x1x64xf32>, %g: tensor<64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<32x64xf32>, %bq: tensor<64xf32>, %bk: tensor<32xf32>, %wo: tensor<64x64xf32>, %wg: tensor<172x64xf32>, %wu: tensor<172x64xf32>) -> (tensor<1x1x32xf32>, tensor<1x1x64xf32>, tensor<1x1x172xf32>) {
  // CHECK: %[[N:.*]] = llm.rms_norm %[[H]], %[[G]] {eps = 1.000000e-05 : f64}
  // CHECK: %[[Q:.*]] = llm.linear %[[N]], %[[WQ]], %[[BQ]] : tensor<1x1x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<1x1x64xf32>
  // CHECK: %[[K:.*]] = llm.linear %[[N]], %[[WK]], %[[BK]] : tensor<1x1x64xf32>, tensor<32x64xf32>, tensor<32xf32> -> tensor<1x1x32xf32>
  %qk:2 = llm.multi_linear %h norm(%g : tensor<64xf32>) weights(%wq, %wk : tensor<64x64xf32>, tensor<32x64xf32>) biases(%bq, %bk : tensor<64xf32>, tensor<32xf32>) {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32> -> tensor<1x1x64xf32>, tensor<1x1x32xf32>
  // CHECK: %[[P:.*]] = llm.linear %[[Q]], %[[WO]] : tensor<1x1x64xf32>, tensor<64x64xf32> -> tensor<1x1x64xf32>
  // CHECK: %[[H1:.*]] = llm.add %[[H]], %[[P]] : tensor<1x1x64xf32>
  %h1 = llm.linear %qk#0, %wo residual %h : tensor<1x1x64xf32>, tensor<64x64xf32> residual tensor<1x1x64xf32> -> tensor<1x1x64xf32>
  // CHECK: %[[M:.*]] = llm.rms_norm %[[H1]], %[[G]] {eps = 1.000000e-05 : f64}
  // CHECK: %[[GATE:.*]] = llm.linear %[[M]], %[[WG]] : tensor<1x1x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  // CHECK: %[[UP:.*]] = llm.linear %[[M]], %[[WU]] : tensor<1x1x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  // CHECK: %[[A:.*]] = llm.glu silu %[[GATE]], %[[UP]] : tensor<1x1x172xf32>
  %a = llm.glu_linear silu %h1 norm(%g : tensor<64xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<172x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  // CHECK: return %[[K]], %[[H1]], %[[A]]
  return %qk#1, %h1, %a : tensor<1x1x32xf32>, tensor<1x1x64xf32>, tensor<1x1x172xf32>
}
// ROUND-NOT: llm.multi_linear
// ROUND-NOT: llm.glu_linear
// ROUND-NOT: residual
// REFUSED: llm.multi_linear %{{.*}} norm(%{{.*}} : tensor<64xf32>) weights(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<32x64xf32>) biases
// REFUSED: llm.linear %{{.*}}, %{{.*}} residual
// REFUSED: llm.glu_linear silu %{{.*}} norm(%{{.*}} : tensor<64xf32>), %{{.*}}, %{{.*}} {norm_eps = 1.000000e-05 : f64}
// REFUSED-NOT: llm.rms_norm
// REFUSED-NOT: llm.add
// REFUSED: llm.rope_append interleaved
// REFUSED-NOT: llm.kv_append

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = bf16>

// llm.rope_append: both rotations, then the append, which takes the f32
// rotated keys and values and rounds them to the bf16 cache as the fused op
// did (no arith.truncf between).
// CHECK-LABEL: func @rope_append
// CHECK-SAME: (%[[C:.*]]: !{{.*}}, %[[Q:.*]]: tensor<1x?x8x8xf32>, %[[K:.*]]: tensor<1x?x4x8xf32>, %[[V:.*]]: tensor<1x?x4x8xf32>, %[[P:.*]]: tensor<1x?xi32>)
func.func @rope_append(%c: !cache, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x8x8xf32>, !cache) {
  // CHECK: %[[QR:.*]] = llm.rope interleaved %[[Q]], %[[P]] {rotary_dim = 6 : i64, theta = 1.000000e+04 : f64}
  // CHECK: %[[KR:.*]] = llm.rope interleaved %[[K]], %[[P]] {rotary_dim = 6 : i64, theta = 1.000000e+04 : f64}
  // CHECK-NOT: arith.truncf
  // CHECK: %[[C1:.*]] = llm.kv_append %[[C]][1], %[[KR]], %[[V]], %[[P]] : !{{.*}}, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  // CHECK: return %[[QR]], %[[C1]]
  %qr, %c1 = llm.rope_append interleaved %c[1], %q, %k, %v, %p {theta = 1.0e+04 : f64, rotary_dim = 6 : i64} : !cache, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return %qr, %c1 : tensor<1x?x8x8xf32>, !cache
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 32, element_type = f32, layout = paged, page_size = 8>

// A paged cache's table goes to the append.
// CHECK-LABEL: func @rope_append_paged
// CHECK-SAME: %[[T:[^:]*]]: tensor<1x4xi32>
// CHECK: llm.kv_append %{{.*}}[%{{.*}}] pages(%[[T]] : tensor<1x4xi32>)
// REFUSED-LABEL: func @rope_append_paged
// REFUSED: llm.rope_append half %{{.*}}[%{{.*}}] pages(%{{.*}} : tensor<1x4xi32>)
func.func @rope_append_paged(%c: !paged, %t: tensor<1x4xi32>, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>, %l: index) -> (tensor<1x?x8x8xf32>, !paged) {
  %qr, %c1 = llm.rope_append half %c[%l] pages(%t : tensor<1x4xi32>), %q, %k, %v, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !paged, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return %qr, %c1 : tensor<1x?x8x8xf32>, !paged
}
