// RUN: llmc-opt %s -split-input-file --llm-fuse-residual-add | FileCheck %s

// The residual connection of an attention block: the add goes into the
// projection's epilogue, with either operand order; a bias stays.
// CHECK-LABEL: func @residual
// CHECK-SAME: (%[[H:.*]]: tensor<1x1x64xf32>, %[[A:.*]]: tensor<1x1x64xf32>, %[[W:.*]]: tensor<64x64xbf16>, %[[B:.*]]: tensor<64xf32>)
func.func @residual(%h: tensor<1x1x64xf32>, %a: tensor<1x1x64xf32>, %w: tensor<64x64xbf16>, %b: tensor<64xf32>) -> (tensor<1x1x64xf32>, tensor<1x1x64xf32>) {
  // CHECK: %[[R1:.*]] = llm.linear %[[A]], %[[W]] residual %[[H]] : tensor<1x1x64xf32>, tensor<64x64xbf16> residual tensor<1x1x64xf32> -> tensor<1x1x64xf32>
  %p = llm.linear %a, %w : tensor<1x1x64xf32>, tensor<64x64xbf16> -> tensor<1x1x64xf32>
  %h1 = llm.add %h, %p : tensor<1x1x64xf32>
  // CHECK: %[[R2:.*]] = llm.linear %[[A]], %[[W]], %[[B]] residual %[[R1]]
  %q = llm.linear %a, %w, %b : tensor<1x1x64xf32>, tensor<64x64xbf16>, tensor<64xf32> -> tensor<1x1x64xf32>
  %h2 = llm.add %q, %h1 : tensor<1x1x64xf32>
  // CHECK-NOT: llm.add
  // CHECK: return %[[R1]], %[[R2]]
  return %h1, %h2 : tensor<1x1x64xf32>, tensor<1x1x64xf32>
}

// -----

// A projection with another use, or already carrying a residual, is left
// alone; so is an add of two non-projections.
// CHECK-LABEL: func @not_fused
func.func @not_fused(%h: tensor<1x?x64xf32>, %a: tensor<1x?x64xf32>, %w: tensor<64x64xf32>) -> (tensor<1x?x64xf32>, tensor<1x?x64xf32>, tensor<1x?x64xf32>, tensor<1x?x64xf32>) {
  // CHECK: %[[P:.*]] = llm.linear %{{.*}}, %{{.*}} : tensor<1x?x64xf32>
  // CHECK: llm.add %{{.*}}, %[[P]]
  %p = llm.linear %a, %w : tensor<1x?x64xf32>, tensor<64x64xf32> -> tensor<1x?x64xf32>
  %s = llm.add %h, %p : tensor<1x?x64xf32>
  // CHECK: %[[Q:.*]] = llm.linear %{{.*}}, %{{.*}} residual %{{.*}}
  // CHECK: llm.add %{{.*}}, %[[Q]]
  %q = llm.linear %a, %w residual %h : tensor<1x?x64xf32>, tensor<64x64xf32> residual tensor<1x?x64xf32> -> tensor<1x?x64xf32>
  %t = llm.add %h, %q : tensor<1x?x64xf32>
  // CHECK: llm.add %{{.*}}, %{{.*}} : tensor<1x?x64xf32>
  %u = llm.add %h, %a : tensor<1x?x64xf32>
  return %s, %p, %t, %u : tensor<1x?x64xf32>, tensor<1x?x64xf32>, tensor<1x?x64xf32>, tensor<1x?x64xf32>
}
