// Without the vector kernels (gemv.mlir), llm.linear / llm.logits lower to one contraction generic (leading dims parallel, k reduction); llm.embedding to a gather generic.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg=vector-projections=false | FileCheck %s

// CHECK-DAG: #[[XMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[WMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[OMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @linear_f32_no_bias
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x64xf32>, %[[W:.+]]: tensor<32x64xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3x32xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x3x32xf32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[XMAP]], #[[WMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[W]] : tensor<2x3x64xf32>, tensor<32x64xf32>) outs(%[[INIT]] : tensor<2x3x32xf32>)
// CHECK: ^bb0(%[[XI:.+]]: f32, %[[WI:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[XI]], %[[WI]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @linear_f32_no_bias(%x: tensor<2x3x64xf32>, %w: tensor<32x64xf32>) -> tensor<2x3x32xf32> {
  %0 = llm.linear %x, %w : tensor<2x3x64xf32>, tensor<32x64xf32> -> tensor<2x3x32xf32>
  return %0 : tensor<2x3x32xf32>
}

// -----

// bf16 weight and bias, dynamic T: the accumulator starts as the widened
// bias broadcast over rows; weights are widened inside the contraction.
// CHECK-DAG: #[[BMAP:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @linear_bf16_bias_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x896xf32>, %[[W:.+]]: tensor<128x896xbf16>, %[[B:.+]]: tensor<128xbf16>)
// CHECK: %[[T:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<1x?x896xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[T]]) : tensor<1x?x128xf32>
// CHECK: %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[BMAP]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[B]] : tensor<128xbf16>) outs(%[[E]] : tensor<1x?x128xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[W]] : tensor<1x?x896xf32>, tensor<128x896xbf16>) outs(%[[INIT]] : tensor<1x?x128xf32>)
// CHECK: ^bb0(%[[XI:.+]]: f32, %[[WI:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WF:.+]] = arith.extf %[[WI]] : bf16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[XI]], %[[WF]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NOT: linalg.generic
func.func @linear_bf16_bias_dynamic(%x: tensor<1x?x896xf32>, %w: tensor<128x896xbf16>, %b: tensor<128xbf16>) -> tensor<1x?x128xf32> {
  %0 = llm.linear %x, %w, %b : tensor<1x?x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> -> tensor<1x?x128xf32>
  return %0 : tensor<1x?x128xf32>
}

// -----

// bf16 activations: f32 accumulator, rounded by a final parallel generic.
// CHECK-LABEL: func @linear_bf16_activations
// CHECK: tensor.empty() : tensor<4x16xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: ^bb0(%[[XI:.+]]: bf16, %[[WI:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: arith.extf %[[XI]] : bf16 to f32
// CHECK-NEXT: arith.extf %[[WI]] : bf16 to f32
// CHECK: tensor.empty() : tensor<4x16xbf16>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @linear_bf16_activations(%x: tensor<4x8xbf16>, %w: tensor<16x8xbf16>) -> tensor<4x16xbf16> {
  %0 = llm.linear %x, %w : tensor<4x8xbf16>, tensor<16x8xbf16> -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// CHECK-DAG: #[[XMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[WMAP:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @logits_tied
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x64xf32>, %[[TABLE:.+]]: tensor<512x64xf32>)
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[XMAP]], #[[WMAP]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[TABLE]] : tensor<1x?x64xf32>, tensor<512x64xf32>)
// CHECK-SAME: outs(%{{.+}} : tensor<1x?x512xf32>)
func.func @logits_tied(%h: tensor<1x?x64xf32>, %table: tensor<512x64xf32>) -> tensor<1x?x512xf32> {
  %0 = llm.logits %h, %table {tied} : tensor<1x?x64xf32>, tensor<512x64xf32> -> tensor<1x?x512xf32>
  return %0 : tensor<1x?x512xf32>
}

// -----

// Softcapped logits: the contraction, then 30 · tanh(z / 30) in place over
// its result.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @logits_softcap
// CHECK: %[[Z:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[CAPPED:.+]] = linalg.generic {indexing_maps = [#[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[Z]] : tensor<1x?x512xf32>)
// CHECK-NEXT: ^bb0(%[[L:.+]]: f32):
// CHECK-NEXT: %[[INV:.+]] = arith.constant 0.0333333351 : f32
// CHECK-NEXT: %[[C:.+]] = arith.constant 3.000000e+01 : f32
// CHECK-NEXT: %[[S:.+]] = arith.mulf %[[L]], %[[INV]] : f32
// CHECK-NEXT: %[[T:.+]] = math.tanh %[[S]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[T]], %[[C]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: return %[[CAPPED]]
func.func @logits_softcap(%h: tensor<1x?x64xf32>, %table: tensor<512x64xf32>) -> tensor<1x?x512xf32> {
  %0 = llm.logits %h, %table {tied, softcap = 30.0 : f64} : tensor<1x?x64xf32>, tensor<512x64xf32> -> tensor<1x?x512xf32>
  return %0 : tensor<1x?x512xf32>
}

// -----

// An LM head with a bias (GPT-J): the accumulator starts as the bias, as
// llm.linear's does, and the softcap applies to biased logits.
// CHECK-DAG: #[[BMAP:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func @logits_bias_softcap
// CHECK-SAME: %[[B:[^:]+]]: tensor<512xf32>)
// CHECK: %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[BMAP]], {{.+}}]{{.*}} ins(%[[B]] : tensor<512xf32>)
// CHECK: %[[Z:.+]] = linalg.generic {{.+}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: outs(%[[INIT]] : tensor<1x?x512xf32>)
// CHECK: linalg.generic {{.+}} outs(%[[Z]] : tensor<1x?x512xf32>)
// CHECK: math.tanh
func.func @logits_bias_softcap(%h: tensor<1x?x64xf32>, %head: tensor<512x64xf32>, %b: tensor<512xf32>) -> tensor<1x?x512xf32> {
  %0 = llm.logits %h, %head, %b {softcap = 30.0 : f64} : tensor<1x?x64xf32>, tensor<512x64xf32>, tensor<512xf32> -> tensor<1x?x512xf32>
  return %0 : tensor<1x?x512xf32>
}

// -----

// CHECK-DAG: #[[TOK:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @embedding_bf16_dynamic
// CHECK-SAME: (%[[TOKENS:.+]]: tensor<1x?xi32>, %[[TABLE:.+]]: tensor<512x64xbf16>)
// CHECK: %[[T:.+]] = tensor.dim %[[TOKENS]], %{{.+}} : tensor<1x?xi32>
// CHECK: %[[E:.+]] = tensor.empty(%[[T]]) : tensor<1x?x64xf32>
// CHECK: linalg.generic {indexing_maps = [#[[TOK]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[TOKENS]] : tensor<1x?xi32>) outs(%[[E]] : tensor<1x?x64xf32>)
// CHECK: ^bb0(%[[TOK_ID:.+]]: i32, %{{.+}}: f32):
// CHECK-NEXT: %[[ROW:.+]] = arith.index_cast %[[TOK_ID]] : i32 to index
// CHECK-NEXT: %[[COL:.+]] = linalg.index 2 : index
// CHECK-NEXT: %[[V:.+]] = tensor.extract %[[TABLE]][%[[ROW]], %[[COL]]] : tensor<512x64xbf16>
// CHECK-NEXT: %[[F:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: linalg.yield %[[F]] : f32
func.func @embedding_bf16_dynamic(%tokens: tensor<1x?xi32>, %table: tensor<512x64xbf16>) -> tensor<1x?x64xf32> {
  %0 = llm.embedding %tokens, %table : tensor<1x?xi32>, tensor<512x64xbf16> -> tensor<1x?x64xf32>
  return %0 : tensor<1x?x64xf32>
}

// -----

// i64 token ids, f32 table: no conversion in the body.
// CHECK-LABEL: func @embedding_i64
// CHECK: ^bb0(%[[TOK_ID:.+]]: i64, %{{.+}}: f32):
// CHECK-NEXT: arith.index_cast %[[TOK_ID]] : i64 to index
// CHECK: %[[V:.+]] = tensor.extract
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @embedding_i64(%tokens: tensor<4x7xi64>, %table: tensor<100x16xf32>) -> tensor<4x7x16xf32> {
  %0 = llm.embedding %tokens, %table : tensor<4x7xi64>, tensor<100x16xf32> -> tensor<4x7x16xf32>
  return %0 : tensor<4x7x16xf32>
}

// -----

// Gemma's scaled embedding: the gather, then × 8 in place (f32).
// CHECK-LABEL: func @embedding_scaled
// CHECK: %[[ROWS:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<1x?xi32>)
// CHECK: tensor.extract
// CHECK: %[[SCALED:.+]] = linalg.generic {{.+}} outs(%[[ROWS]] : tensor<1x?x64xf32>)
// CHECK-NEXT: ^bb0(%[[E:.+]]: f32):
// CHECK-NEXT: %[[C:.+]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[E]], %[[C]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: return %[[SCALED]]
func.func @embedding_scaled(%tokens: tensor<1x?xi32>, %table: tensor<512x64xbf16>) -> tensor<1x?x64xf32> {
  %0 = llm.embedding %tokens, %table {scale = 8.0 : f64} : tensor<1x?xi32>, tensor<512x64xbf16> -> tensor<1x?x64xf32>
  return %0 : tensor<1x?x64xf32>
}

// -----

// llm.head_linear: the weight's rows viewed per head, then one contraction over the head's input width with loops
// (b, t, h, n, k), summed in f32 (a bf16 weight widened per element).
// CHECK-DAG: #[[HX:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[HW:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
// CHECK-DAG: #[[HWT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4, d3)>
// CHECK-DAG: #[[HO:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @head_linear
// CHECK-SAME: (%[[L:.+]]: tensor<1x?x4x32xf32>, %[[WUV:.+]]: tensor<64x32xf32>, %[[Q:.+]]: tensor<1x?x4x16xf32>, %[[WUK:.+]]: tensor<64x32xbf16>)
// CHECK: %[[V3:.+]] = tensor.expand_shape %[[WUV]] {{\[\[}}0, 1], [2]] output_shape [4, 16, 32] : tensor<64x32xf32> into tensor<4x16x32xf32>
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[HX]], #[[HW]], #[[HO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[L]], %[[V3]] : tensor<1x?x4x32xf32>, tensor<4x16x32xf32>) outs(%{{.*}} : tensor<1x?x4x16xf32>)
// CHECK: %[[K3:.+]] = tensor.expand_shape %[[WUK]] {{\[\[}}0, 1], [2]] output_shape [4, 16, 32] : tensor<64x32xbf16> into tensor<4x16x32xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[HX]], #[[HWT]], #[[HO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[Q]], %[[K3]] : tensor<1x?x4x16xf32>, tensor<4x16x32xbf16>) outs(%{{.*}} : tensor<1x?x4x32xf32>)
// CHECK: ^bb0(%[[XI:.+]]: f32, %[[WI:.+]]: bf16, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[WF:.+]] = arith.extf %[[WI]] : bf16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[XI]], %[[WF]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @head_linear(%latent: tensor<1x?x4x32xf32>, %wuv: tensor<64x32xf32>, %qnope: tensor<1x?x4x16xf32>, %wuk: tensor<64x32xbf16>) -> (tensor<1x?x4x16xf32>, tensor<1x?x4x32xf32>) {
  %0 = llm.head_linear %latent, %wuv : tensor<1x?x4x32xf32>, tensor<64x32xf32> -> tensor<1x?x4x16xf32>
  %1 = llm.head_linear %qnope, %wuk {transpose_weight} : tensor<1x?x4x16xf32>, tensor<64x32xbf16> -> tensor<1x?x4x32xf32>
  return %0, %1 : tensor<1x?x4x16xf32>, tensor<1x?x4x32xf32>
}
