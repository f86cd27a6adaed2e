// RUN: llmc-opt %s -split-input-file --llm-fuse-norm-into-projections | FileCheck %s

// The norm of each half of a layer moves into the fused projections that
// read it.
// CHECK-LABEL: func @layer
// CHECK-SAME: (%[[H:.*]]: tensor<1x1x64xf32>, %[[G:.*]]: tensor<64xbf16>, %[[WQ:.*]]: tensor<64x64xbf16>, %[[WK:.*]]: tensor<32x64xbf16>, %[[WG:.*]]: tensor<172x64xbf16>, %[[WU:.*]]: tensor<172x64xbf16>)
func.func @layer(%h: tensor<1x1x64xf32>, %g: tensor<64xbf16>, %wq: tensor<64x64xbf16>, %wk: tensor<32x64xbf16>, %wg: tensor<172x64xbf16>, %wu: tensor<172x64xbf16>) -> (tensor<1x1x64xf32>, tensor<1x1x32xf32>, tensor<1x1x172xf32>) {
  // CHECK-NOT: llm.rms_norm
  // CHECK: llm.multi_linear %[[H]] norm(%[[G]] : tensor<64xbf16>) weights(%[[WQ]], %[[WK]] : tensor<64x64xbf16>, tensor<32x64xbf16>) {norm_eps = 1.000000e-05 : f64}
  %n = llm.rms_norm %h, %g {eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<64xbf16> -> tensor<1x1x64xf32>
  %qk:2 = llm.multi_linear %n weights(%wq, %wk : tensor<64x64xbf16>, tensor<32x64xbf16>) : tensor<1x1x64xf32> -> tensor<1x1x64xf32>, tensor<1x1x32xf32>
  // CHECK: llm.glu_linear silu %[[H]] norm(%[[G]] : tensor<64xbf16>), %[[WG]], %[[WU]] {norm_eps = 9.9999999999999995E-7 : f64}
  %m = llm.rms_norm %h, %g {eps = 1.0e-06 : f64} : tensor<1x1x64xf32>, tensor<64xbf16> -> tensor<1x1x64xf32>
  %a = llm.glu_linear silu %m, %wg, %wu : tensor<1x1x64xf32>, tensor<172x64xbf16>, tensor<172x64xbf16> -> tensor<1x1x172xf32>
  return %qk#0, %qk#1, %a : tensor<1x1x64xf32>, tensor<1x1x32xf32>, tensor<1x1x172xf32>
}

// -----

// A norm stays when one of its users cannot take it: a plain projection, a
// return, or a fused projection with a norm of its own.
// CHECK-LABEL: func @kept
func.func @kept(%h: tensor<1x1x64xf32>, %g: tensor<64xf32>, %w: tensor<32x64xf32>) -> (tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x64xf32>, tensor<1x1x32xf32>) {
  // CHECK: %[[N:.*]] = llm.rms_norm
  // CHECK: llm.multi_linear %[[N]] weights
  // CHECK: llm.linear %[[N]]
  %n = llm.rms_norm %h, %g {eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<64xf32> -> tensor<1x1x64xf32>
  %a = llm.multi_linear %n weights(%w : tensor<32x64xf32>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  %b = llm.linear %n, %w : tensor<1x1x64xf32>, tensor<32x64xf32> -> tensor<1x1x32xf32>
  // CHECK: %[[M:.*]] = llm.rms_norm
  // CHECK: llm.multi_linear %[[M]] norm
  %m = llm.rms_norm %h, %g {eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<64xf32> -> tensor<1x1x64xf32>
  %c = llm.multi_linear %m norm(%g : tensor<64xf32>) weights(%w : tensor<32x64xf32>) {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  return %a, %b, %n, %c : tensor<1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x64xf32>, tensor<1x1x32xf32>
}

// -----

// Gemma's (1 + w) norm (a weight_offset) stays unfused: the fused projections
// carry no offset. An explicit offset of 0 is the plain norm and fuses.
// CHECK-LABEL: func @weight_offset
// CHECK-SAME: (%[[H:.*]]: tensor<1x1x64xf32>, %[[G:.*]]: tensor<64xf32>,
func.func @weight_offset(%h: tensor<1x1x64xf32>, %g: tensor<64xf32>, %wg: tensor<172x64xf32>, %wu: tensor<172x64xf32>, %w: tensor<32x64xf32>) -> (tensor<1x1x172xf32>, tensor<1x1x32xf32>) {
  // CHECK: %[[N:.*]] = llm.rms_norm %[[H]], %[[G]] {eps = 9.9999999999999995E-7 : f64, weight_offset = 1.000000e+00 : f64}
  // CHECK: llm.glu_linear gelu_tanh %[[N]], %{{.*}}, %{{.*}} :
  %n = llm.rms_norm %h, %g {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64} : tensor<1x1x64xf32>, tensor<64xf32> -> tensor<1x1x64xf32>
  %a = llm.glu_linear gelu_tanh %n, %wg, %wu : tensor<1x1x64xf32>, tensor<172x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  // CHECK-NOT: llm.rms_norm
  // CHECK: llm.multi_linear %[[H]] norm(%[[G]] : tensor<64xf32>) weights
  %m = llm.rms_norm %h, %g {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64} : tensor<1x1x64xf32>, tensor<64xf32> -> tensor<1x1x64xf32>
  %b = llm.multi_linear %m weights(%w : tensor<32x64xf32>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  return %a, %b : tensor<1x1x172xf32>, tensor<1x1x32xf32>
}
