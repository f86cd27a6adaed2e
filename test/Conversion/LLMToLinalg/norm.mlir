// llm.rms_norm / llm.layer_norm lower to f32 row reductions over the last dimension and one parallel generic.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[FULL:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func @rms_norm_f32
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x64xf32>, %[[W:.+]]: tensor<64xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[SS:.+]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3x64xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[SQ:.+]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: %[[INV_D:.+]] = arith.constant 1.562500e-02 : f32
// CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[LAST]], #[[FULL]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[SS]], %[[W]] : tensor<2x3x64xf32>, tensor<2x3xf32>, tensor<64xf32>)
// CHECK: ^bb0(%[[XI:.+]]: f32, %[[SI:.+]]: f32, %[[WI:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[MEAN:.+]] = arith.mulf %[[SI]], %[[INV_D]] : f32
// CHECK-NEXT: %[[VAR_EPS:.+]] = arith.addf %[[MEAN]], %[[EPS]] : f32
// CHECK-NEXT: %[[RS:.+]] = math.rsqrt %[[VAR_EPS]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.mulf %[[XI]], %[[RS]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[N]], %[[WI]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @rms_norm_f32(%x: tensor<2x3x64xf32>, %w: tensor<64xf32>) -> tensor<2x3x64xf32> {
  %0 = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<2x3x64xf32>, tensor<64xf32> -> tensor<2x3x64xf32>
  return %0 : tensor<2x3x64xf32>
}

// -----

// bf16 weight widened in the body; dynamic T sizes both the statistics and the result.
// CHECK-LABEL: func @rms_norm_bf16_weight_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x64xf32>, %[[W:.+]]: tensor<64xbf16>)
// CHECK: %[[T:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<1x?x64xf32>
// CHECK: tensor.empty(%[[T]]) : tensor<1x?xf32>
// CHECK: %[[SS:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: outs(%{{.+}} : tensor<1x?xf32>)
// CHECK: %[[T2:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<1x?x64xf32>
// CHECK: tensor.empty(%[[T2]]) : tensor<1x?x64xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[X]], %[[SS]], %[[W]] : tensor<1x?x64xf32>, tensor<1x?xf32>, tensor<64xbf16>)
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %[[WI:.+]]: bf16, %{{.+}}: f32):
// CHECK: math.rsqrt
// CHECK: %[[WF:.+]] = arith.extf %[[WI]] : bf16 to f32
// CHECK: arith.mulf %{{.+}}, %[[WF]] : f32
func.func @rms_norm_bf16_weight_dynamic(%x: tensor<1x?x64xf32>, %w: tensor<64xbf16>) -> tensor<1x?x64xf32> {
  %0 = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xbf16> -> tensor<1x?x64xf32>
  return %0 : tensor<1x?x64xf32>
}

// -----

// Gemma's (1 + w): the widened weight plus the offset, before the product.
// CHECK-LABEL: func @rms_norm_weight_offset
// CHECK-SAME: (%{{.+}}: tensor<1x?x64xf32>, %[[W:.+]]: tensor<64xbf16>)
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %[[WI:.+]]: bf16, %{{.+}}: f32):
// CHECK: %[[RS:.+]] = math.rsqrt
// CHECK-NEXT: %[[WF:.+]] = arith.extf %[[WI]] : bf16 to f32
// CHECK-NEXT: %[[WO:.+]] = arith.addf %[[WF]], %[[ONE]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.mulf %{{.+}}, %[[RS]] : f32
// CHECK-NEXT: arith.mulf %[[N]], %[[WO]] : f32
func.func @rms_norm_weight_offset(%x: tensor<1x?x64xf32>, %w: tensor<64xbf16>) -> tensor<1x?x64xf32> {
  %0 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64} : tensor<1x?x64xf32>, tensor<64xbf16> -> tensor<1x?x64xf32>
  return %0 : tensor<1x?x64xf32>
}

// -----

// Qwen3's per-head norm: rank 4, statistics per (b, t, h), the weight over Dh.
// CHECK-DAG: #[[FULL:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func @rms_norm_per_head
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x8x16xf32>, %[[W:.+]]: tensor<16xf32>)
// CHECK: %[[SS:.+]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%{{.+}} : tensor<1x?x8xf32>)
// CHECK: %[[INV_D:.+]] = arith.constant 6.250000e-02 : f32
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[LAST]], #[[FULL]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[SS]], %[[W]] : tensor<1x?x8x16xf32>, tensor<1x?x8xf32>, tensor<16xf32>)
func.func @rms_norm_per_head(%x: tensor<1x?x8x16xf32>, %w: tensor<16xf32>) -> tensor<1x?x8x16xf32> {
  %0 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64} : tensor<1x?x8x16xf32>, tensor<16xf32> -> tensor<1x?x8x16xf32>
  return %0 : tensor<1x?x8x16xf32>
}

// -----

// A dynamic normalized dimension: 1/D comes from tensor.dim at run time.
// CHECK-LABEL: func @rms_norm_dynamic_last_dim
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xf32>, %{{.+}}: tensor<?xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<4x?xf32>
// CHECK: %[[DI:.+]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[DF:.+]] = arith.uitofp %[[DI]] : i64 to f32
// CHECK: %[[INV_D:.+]] = arith.divf %{{.+}}, %[[DF]] : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: arith.mulf %{{.+}}, %[[INV_D]] : f32
// CHECK: math.rsqrt
func.func @rms_norm_dynamic_last_dim(%x: tensor<4x?xf32>, %w: tensor<?xf32>) -> tensor<4x?xf32> {
  %0 = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<4x?xf32>, tensor<?xf32> -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Two reductions (Σx, then Σ(x − mean)²) and a parallel generic adding the bias.
// CHECK-DAG: #[[FULL:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @layer_norm_bias
// CHECK-SAME: (%[[X:.+]]: tensor<2x64xf32>, %[[W:.+]]: tensor<64xf32>, %[[B:.+]]: tensor<64xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x64xf32>)
// CHECK: ^bb0(%[[IN:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: arith.addf %[[ACC]], %[[IN]] : f32
// CHECK: %[[SQDEV:.+]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[SUM]] : tensor<2x64xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[IN2:.+]]: f32, %[[S:.+]]: f32, %[[ACC2:.+]]: f32):
// CHECK-NEXT: %[[MEAN:.+]] = arith.mulf %[[S]], %{{.+}} : f32
// CHECK-NEXT: %[[DEV:.+]] = arith.subf %[[IN2]], %[[MEAN]] : f32
// CHECK-NEXT: %[[DEV2:.+]] = arith.mulf %[[DEV]], %[[DEV]] : f32
// CHECK-NEXT: arith.addf %[[ACC2]], %[[DEV2]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[ROW]], #[[LAST]], #[[LAST]], #[[FULL]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[SUM]], %[[SQDEV]], %[[W]], %[[B]] :
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: f32, %[[BI:.+]]: f32, %{{.+}}: f32):
// CHECK: math.rsqrt
// CHECK-NEXT: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[N:.+]] = arith.mulf
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[N]], %[[BI]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @layer_norm_bias(%x: tensor<2x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x64xf32> {
  %0 = llm.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func @layer_norm_no_bias
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK: math.rsqrt
// CHECK-NEXT: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[R:.+]] = arith.mulf
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @layer_norm_no_bias(%x: tensor<1x?x64xf32>, %w: tensor<64xf32>) -> tensor<1x?x64xf32> {
  %0 = llm.layer_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  return %0 : tensor<1x?x64xf32>
}
