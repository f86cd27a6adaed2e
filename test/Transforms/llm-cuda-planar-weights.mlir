// RUN: llmc-opt %s -split-input-file --llm-cuda-planar-weights | FileCheck %s

// Block weights of every kind of format (q4_0, q8_0, q6_k) that projections
// and the embedding gather read, through a call into a layer function: the
// entry argument, the callee's argument and the ops all take the planar
// type, the tied Q8_0 table (gathered and read by llm.logits) too, and any
// row count. A float weight keeps its type.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q8_0, planar>> {llm.weight = "embed"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q4_0, planar>> {llm.weight = "wq"}
// CHECK-SAME: %{{.*}}: tensor<12x256x!llm.block<q6_k, planar>> {llm.weight = "wv"}
// CHECK-SAME: %{{.*}}: tensor<64x64xf32> {llm.weight = "wo"}
// CHECK: llm.embedding %{{.*}}, %{{.*}} : tensor<1x1xi32>, tensor<64x64x!llm.block<q8_0, planar>>
// CHECK: call @layer(%{{.*}}) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0, planar>>, tensor<12x256x!llm.block<q6_k, planar>>, tensor<64x64xf32>)
// CHECK: llm.logits %{{.*}}, %{{.*}} {tied} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q8_0, planar>>
// CHECK-LABEL: func.func private @layer(
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q4_0, planar>>, %{{.*}}: tensor<12x256x!llm.block<q6_k, planar>>, %{{.*}}: tensor<64x64xf32>
// CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0, planar>>
// CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x1x256xf32>, tensor<12x256x!llm.block<q6_k, planar>>
func.func @decode(%tokens: tensor<1x1xi32>,
                  %embed: tensor<64x64x!llm.block<q8_0>> {llm.weight = "embed"},
                  %wq: tensor<64x64x!llm.block<q4_0>> {llm.weight = "wq"},
                  %wv: tensor<12x256x!llm.block<q6_k>> {llm.weight = "wv"},
                  %wo: tensor<64x64xf32> {llm.weight = "wo"}) -> tensor<1x1x64xf32> {
  %h = llm.embedding %tokens, %embed : tensor<1x1xi32>, tensor<64x64x!llm.block<q8_0>> -> tensor<1x1x64xf32>
  %y = call @layer(%h, %wq, %wv, %wo) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>>, tensor<12x256x!llm.block<q6_k>>, tensor<64x64xf32>) -> tensor<1x1x64xf32>
  %logits = llm.logits %y, %embed {tied} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q8_0>> -> tensor<1x1x64xf32>
  return %logits : tensor<1x1x64xf32>
}
func.func private @layer(%x: tensor<1x1x64xf32>, %wq: tensor<64x64x!llm.block<q4_0>>,
                         %wv: tensor<12x256x!llm.block<q6_k>>,
                         %wo: tensor<64x64xf32>) -> tensor<1x1x64xf32> {
  %q = llm.linear %x, %wq : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  %wide = tensor.empty() : tensor<1x1x256xf32>
  %v = llm.linear %wide, %wv : tensor<1x1x256xf32>, tensor<12x256x!llm.block<q6_k>> -> tensor<1x1x12xf32>
  %o = llm.linear %q, %wo : tensor<1x1x64xf32>, tensor<64x64xf32> -> tensor<1x1x64xf32>
  return %o : tensor<1x1x64xf32>
}

// -----

// A weight that anything but a projection or a gather reads keeps its rows
// (llm-lower-to-cuda then names the op), and so does every weight a call
// passes to the same callee argument; the fused projections (here q5_1)
// count as projections.
// CHECK-LABEL: func.func @kept(
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q4_0>>, %{{.*}}: tensor<64x64x!llm.block<q4_0>>, %{{.*}}: tensor<64x64x!llm.block<q5_1, planar>>, %{{.*}}: tensor<64x64x!llm.block<q5_1, planar>>
// CHECK: llm.glu_linear {{ *}}silu %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q5_1, planar>>, tensor<64x64x!llm.block<q5_1, planar>>
// CHECK-LABEL: func.func private @project(
// CHECK-SAME: tensor<64x64x!llm.block<q4_0>>
func.func @kept(%x: tensor<1x1x64xf32>, %a: tensor<64x64x!llm.block<q4_0>>,
                %b: tensor<64x64x!llm.block<q4_0>>, %g: tensor<64x64x!llm.block<q5_1>>,
                %u: tensor<64x64x!llm.block<q5_1>>) -> tensor<1x1x64xf32> {
  %0 = call @project(%x, %a) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>>) -> tensor<1x1x64xf32>
  %1 = call @project(%0, %b) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>>) -> tensor<1x1x64xf32>
  %2 = llm.glu_linear silu %1, %g, %u : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q5_1>>, tensor<64x64x!llm.block<q5_1>> -> tensor<1x1x64xf32>
  %3 = call @other(%b) : (tensor<64x64x!llm.block<q4_0>>) -> tensor<64x64x!llm.block<q4_0>>
  return %2 : tensor<1x1x64xf32>
}
func.func private @project(%x: tensor<1x1x64xf32>, %w: tensor<64x64x!llm.block<q4_0>>) -> tensor<1x1x64xf32> {
  %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  return %y : tensor<1x1x64xf32>
}
func.func private @other(%w: tensor<64x64x!llm.block<q4_0>>) -> tensor<64x64x!llm.block<q4_0>> {
  return %w : tensor<64x64x!llm.block<q4_0>>
}
