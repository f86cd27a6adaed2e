// RUN: llmc-opt %s -split-input-file --llm-cpu-interleave-weights | FileCheck %s

// Weights of the 32-element formats (here q4_0, q8_0, q5_1) that only
// projections read, through a call into a layer function: the entry
// argument, the callee's argument and the ops all take the interleaved type. The tied embedding table (gathered, and read by
// llm.logits) keeps its rows, and so does a row count that is no multiple
// of 8; the bf16 weight takes the float groups (in pairs of columns), through
// the call too.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q4_0>> {llm.weight = "embed"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q4_0, interleave = 8>> {llm.weight = "wq"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q8_0, interleave = 8>> {llm.weight = "wk"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q5_1, interleave = 8>> {llm.weight = "wu"}
// CHECK-SAME: %{{.*}}: tensor<12x64x!llm.block<q4_0>> {llm.weight = "wv"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.interleaved<bf16, rows = 16, columns = 2>> {llm.weight = "wo"}
// CHECK: call @layer(%{{.*}}) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0, interleave = 8>>, tensor<64x64x!llm.block<q8_0, interleave = 8>>, tensor<64x64x!llm.block<q5_1, interleave = 8>>, tensor<12x64x!llm.block<q4_0>>, tensor<64x64x!llm.interleaved<bf16, rows = 16, columns = 2>>)
// CHECK: llm.logits %{{.*}}, %{{.*}} {tied} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>>
// CHECK-LABEL: func.func private @layer(
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q4_0, interleave = 8>>, %{{.*}}: tensor<64x64x!llm.block<q8_0, interleave = 8>>, %{{.*}}: tensor<64x64x!llm.block<q5_1, interleave = 8>>, %{{.*}}: tensor<12x64x!llm.block<q4_0>>, %{{.*}}: tensor<64x64x!llm.interleaved<bf16, rows = 16, columns = 2>>
// CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0, interleave = 8>>
func.func @decode(%tokens: tensor<1x1xi32>,
                  %embed: tensor<64x64x!llm.block<q4_0>> {llm.weight = "embed"},
                  %wq: tensor<64x64x!llm.block<q4_0>> {llm.weight = "wq"},
                  %wk: tensor<64x64x!llm.block<q8_0>> {llm.weight = "wk"},
                  %wu: tensor<64x64x!llm.block<q5_1>> {llm.weight = "wu"},
                  %wv: tensor<12x64x!llm.block<q4_0>> {llm.weight = "wv"},
                  %wo: tensor<64x64xbf16> {llm.weight = "wo"}) -> tensor<1x1x64xf32> {
  %h = llm.embedding %tokens, %embed : tensor<1x1xi32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  %y = call @layer(%h, %wq, %wk, %wu, %wv, %wo) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>>, tensor<64x64x!llm.block<q8_0>>, tensor<64x64x!llm.block<q5_1>>, tensor<12x64x!llm.block<q4_0>>, tensor<64x64xbf16>) -> tensor<1x1x64xf32>
  %logits = llm.logits %y, %embed {tied} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  return %logits : tensor<1x1x64xf32>
}
func.func private @layer(%x: tensor<1x1x64xf32>, %wq: tensor<64x64x!llm.block<q4_0>>,
                         %wk: tensor<64x64x!llm.block<q8_0>>, %wu: tensor<64x64x!llm.block<q5_1>>,
                         %wv: tensor<12x64x!llm.block<q4_0>>,
                         %wo: tensor<64x64xbf16>) -> tensor<1x1x64xf32> {
  %q = llm.linear %x, %wq : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  %k = llm.linear %x, %wk : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q8_0>> -> tensor<1x1x64xf32>
  %u = llm.linear %x, %wu : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q5_1>> -> tensor<1x1x64xf32>
  %v = llm.linear %x, %wv : tensor<1x1x64xf32>, tensor<12x64x!llm.block<q4_0>> -> tensor<1x1x12xf32>
  %o = llm.linear %q, %wo : tensor<1x1x64xf32>, tensor<64x64xbf16> -> tensor<1x1x64xf32>
  return %o : tensor<1x1x64xf32>
}

// -----

// One layer function called with two weights: one only projected, the other
// also gathered by the caller. The callee's argument must have one type, so
// neither is interleaved. The fused projections (here q4_1) count as
// projections.
// CHECK-LABEL: func.func @shared(
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.block<q4_0>>, %{{.*}}: tensor<64x64x!llm.block<q4_0>>, %{{.*}}: tensor<64x64x!llm.block<q4_1, interleave = 8>>, %{{.*}}: tensor<64x64x!llm.block<q4_1, interleave = 8>>
// CHECK: llm.glu_linear {{ *}}silu %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_1, interleave = 8>>, tensor<64x64x!llm.block<q4_1, interleave = 8>>
// CHECK-LABEL: func.func private @project(
// CHECK-SAME: tensor<64x64x!llm.block<q4_0>>
func.func @shared(%tokens: tensor<1x1xi32>, %a: tensor<64x64x!llm.block<q4_0>>,
                  %b: tensor<64x64x!llm.block<q4_0>>, %g: tensor<64x64x!llm.block<q4_1>>,
                  %u: tensor<64x64x!llm.block<q4_1>>) -> tensor<1x1x64xf32> {
  %h = llm.embedding %tokens, %b : tensor<1x1xi32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  %0 = call @project(%h, %a) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>>) -> tensor<1x1x64xf32>
  %1 = call @project(%0, %b) : (tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>>) -> tensor<1x1x64xf32>
  %2 = llm.glu_linear silu %1, %g, %u : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_1>>, tensor<64x64x!llm.block<q4_1>> -> tensor<1x1x64xf32>
  return %2 : tensor<1x1x64xf32>
}
func.func private @project(%x: tensor<1x1x64xf32>, %w: tensor<64x64x!llm.block<q4_0>>) -> tensor<1x1x64xf32> {
  %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  return %y : tensor<1x1x64xf32>
}

// -----

// A K-quant keeps its rows: the interleaved GEMV computes only on the
// 32-element formats.
// CHECK-LABEL: func.func @k_quant(
// CHECK-SAME: %{{.*}}: tensor<64x256x!llm.block<q4_k>> {llm.weight = "w"}
// CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x1x256xf32>, tensor<64x256x!llm.block<q4_k>>
func.func @k_quant(%x: tensor<1x1x256xf32>, %w: tensor<64x256x!llm.block<q4_k>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
  %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<64x256x!llm.block<q4_k>> -> tensor<1x1x64xf32>
  return %y : tensor<1x1x64xf32>
}

// -----

// Float matrices that only projections with f32 results read, whose row
// count is a multiple of 16, are stored in groups of 16 rows, bf16 ones in
// pairs of columns; the tied f16 table (gathered), a row count that is no
// multiple of 16, an f16 result and a bf16 row length that is odd keep
// their rows.
// CHECK-LABEL: func.func @floats(
// CHECK-SAME: %{{.*}}: tensor<64x64xf16> {llm.weight = "embed"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.interleaved<f16, rows = 16>> {llm.weight = "wq"}
// CHECK-SAME: %{{.*}}: tensor<40x64xf16> {llm.weight = "wk"}
// CHECK-SAME: %{{.*}}: tensor<64x64xf16> {llm.weight = "wh"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.interleaved<bf16, rows = 16, columns = 2>> {llm.weight = "wb"}
// CHECK-SAME: %{{.*}}: tensor<64x64x!llm.interleaved<f32, rows = 16>> {llm.weight = "wf"}
// CHECK-SAME: %{{.*}}: tensor<64x63xbf16> {llm.weight = "wodd"}
// CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x1x64xf32>, tensor<64x64x!llm.interleaved<f16, rows = 16>> -> tensor<1x1x64xf32>
// CHECK: llm.logits %{{.*}}, %{{.*}} {tied} : tensor<1x1x64xf32>, tensor<64x64xf16>
func.func @floats(%tokens: tensor<1x1xi32>,
                  %embed: tensor<64x64xf16> {llm.weight = "embed"},
                  %wq: tensor<64x64xf16> {llm.weight = "wq"},
                  %wk: tensor<40x64xf16> {llm.weight = "wk"},
                  %wh: tensor<64x64xf16> {llm.weight = "wh"},
                  %wb: tensor<64x64xbf16> {llm.weight = "wb"},
                  %wf: tensor<64x64xf32> {llm.weight = "wf"},
                  %wodd: tensor<64x63xbf16> {llm.weight = "wodd"}) -> tensor<1x1x64xf32> {
  %h = llm.embedding %tokens, %embed : tensor<1x1xi32>, tensor<64x64xf16> -> tensor<1x1x64xf32>
  %q = llm.linear %h, %wq : tensor<1x1x64xf32>, tensor<64x64xf16> -> tensor<1x1x64xf32>
  %k = llm.linear %q, %wk : tensor<1x1x64xf32>, tensor<40x64xf16> -> tensor<1x1x40xf32>
  %h16 = arith.truncf %q : tensor<1x1x64xf32> to tensor<1x1x64xf16>
  %y16 = llm.linear %h16, %wh : tensor<1x1x64xf16>, tensor<64x64xf16> -> tensor<1x1x64xf16>
  %y = arith.extf %y16 : tensor<1x1x64xf16> to tensor<1x1x64xf32>
  %b = llm.linear %y, %wb : tensor<1x1x64xf32>, tensor<64x64xbf16> -> tensor<1x1x64xf32>
  %f = llm.linear %b, %wf : tensor<1x1x64xf32>, tensor<64x64xf32> -> tensor<1x1x64xf32>
  %f63 = tensor.extract_slice %f[0, 0, 0] [1, 1, 63] [1, 1, 1] : tensor<1x1x64xf32> to tensor<1x1x63xf32>
  %o = llm.linear %f63, %wodd : tensor<1x1x63xf32>, tensor<64x63xbf16> -> tensor<1x1x64xf32>
  %logits = llm.logits %o, %embed {tied} : tensor<1x1x64xf32>, tensor<64x64xf16> -> tensor<1x1x64xf32>
  return %logits : tensor<1x1x64xf32>
}
