// llm.rope lowers to an inv_freq table (constant, or chosen per call for dynamic NTK and longrope), a cos/sin generic over (B, T, d/2) and a rotation generic over x.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg | FileCheck %s

// half style, no scaling, whole head rotated, dynamic T.
// CHECK-DAG: #[[BT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[I:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[BTI:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @half_none_dynamic
// CHECK-SAME: (%[[IN:.+]]: tensor<1x?x2x8xf32>, %[[POS:.+]]: tensor<1x?xi32>)
// CHECK: %[[INV:.+]] = arith.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
// CHECK: %[[T:.+]] = tensor.dim %[[POS]], %{{.+}} : tensor<1x?xi32>
// CHECK: %[[CE:.+]] = tensor.empty(%[[T]]) : tensor<1x?x4xf32>
// CHECK: %[[SE:.+]] = tensor.empty(%[[T]]) : tensor<1x?x4xf32>
// CHECK: %[[CS:.+]]:2 = linalg.generic {indexing_maps = [#[[BT]], #[[I]], #[[BTI]], #[[BTI]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[POS]], %[[INV]] : tensor<1x?xi32>, tensor<4xf32>) outs(%[[CE]], %[[SE]] : tensor<1x?x4xf32>, tensor<1x?x4xf32>)
// CHECK: ^bb0(%[[P:.+]]: i32, %[[F:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[PF:.+]] = arith.sitofp %[[P]] : i32 to f32
// CHECK-NEXT: %[[ANGLE:.+]] = arith.mulf %[[PF]], %[[F]] : f32
// CHECK-NEXT: %[[COS:.+]] = math.cos %[[ANGLE]] : f32
// CHECK-NEXT: %[[SIN:.+]] = math.sin %[[ANGLE]] : f32
// CHECK-NEXT: linalg.yield %[[COS]], %[[SIN]] : f32, f32
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[X]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[IN]] : tensor<1x?x2x8xf32>)
// CHECK: ^bb0(%[[SELF:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[B:.+]] = linalg.index 0 : index
// CHECK: %[[TT:.+]] = linalg.index 1 : index
// CHECK: %[[H:.+]] = linalg.index 2 : index
// CHECK: %[[J:.+]] = linalg.index 3 : index
// CHECK: %[[HALF:.+]] = arith.constant 4 : index
// CHECK: %[[FIRST:.+]] = arith.cmpi ult, %[[J]], %[[HALF]] : index
// CHECK: %[[UPPER:.+]] = arith.subi %[[J]], %[[HALF]] : index
// CHECK: %[[FREQ:.+]] = arith.select %[[FIRST]], %[[J]], %[[UPPER]] : index
// CHECK: %[[PLUS:.+]] = arith.addi %[[J]], %[[HALF]] : index
// CHECK: %[[PARTNER:.+]] = arith.select %[[FIRST]], %[[PLUS]], %[[UPPER]] : index
// CHECK: %[[C:.+]] = tensor.extract %[[CS]]#0[%[[B]], %[[TT]], %[[FREQ]]] : tensor<1x?x4xf32>
// CHECK: %[[S:.+]] = tensor.extract %[[CS]]#1[%[[B]], %[[TT]], %[[FREQ]]] : tensor<1x?x4xf32>
// CHECK: %[[OTHER:.+]] = tensor.extract %[[IN]][%[[B]], %[[TT]], %[[H]], %[[PARTNER]]] : tensor<1x?x2x8xf32>
// CHECK: %[[NEG:.+]] = arith.negf %[[S]] : f32
// CHECK: %[[SS:.+]] = arith.select %[[FIRST]], %[[NEG]], %[[S]] : f32
// CHECK: %[[OS:.+]] = arith.mulf %[[OTHER]], %[[SS]] : f32
// CHECK: %[[XC:.+]] = arith.mulf %[[SELF]], %[[C]] : f32
// CHECK: %[[R:.+]] = arith.addf %[[XC]], %[[OS]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @half_none_dynamic(%x: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x2x8xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x8xf32>
}

// -----

// interleaved: pairs (2i, 2i+1): frequency j/2, partner j xor 1, first iff j even.
// CHECK-LABEL: func @interleaved_none
// CHECK: %[[CS:.+]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: math.cos
// CHECK: math.sin
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: %[[J:.+]] = linalg.index 3 : index
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK: %[[LOW:.+]] = arith.andi %[[J]], %[[ONE]] : index
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[LOW]], %{{.+}} : index
// CHECK: %[[FREQ:.+]] = arith.divui %[[J]], %{{.+}} : index
// CHECK: %[[PARTNER:.+]] = arith.xori %[[J]], %[[ONE]] : index
// CHECK: tensor.extract %[[CS]]#0[%{{.+}}, %{{.+}}, %[[FREQ]]]
// CHECK: tensor.extract %[[CS]]#1[%{{.+}}, %{{.+}}, %[[FREQ]]]
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %[[PARTNER]]] : tensor<2x5x4x8xf32>
// CHECK: arith.select %[[FIRST]]
// CHECK-NOT: arith.cmpi ult
func.func @interleaved_none(%x: tensor<2x5x4x8xf32>, %pos: tensor<2x5xi32>) -> tensor<2x5x4x8xf32> {
  %0 = llm.rope interleaved %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<2x5x4x8xf32>, tensor<2x5xi32>
  return %0 : tensor<2x5x4x8xf32>
}

// -----

// Partial rotary (4 of 8): elements j >= 4 pass through; their table and
// partner reads are redirected in bounds.
// CHECK-LABEL: func @half_partial
// CHECK: arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// CHECK: tensor.empty(%{{.+}}) : tensor<1x?x2xf32>
// CHECK: ^bb0(%[[SELF:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[J:.+]] = linalg.index 3 : index
// CHECK: %[[FREQ:.+]] = arith.select %{{.+}}, %[[J]], %{{.+}} : index
// CHECK: %[[PARTNER:.+]] = arith.select
// CHECK: %[[ROT_DIM:.+]] = arith.constant 4 : index
// CHECK: %[[ROTATED:.+]] = arith.cmpi ult, %[[J]], %[[ROT_DIM]] : index
// CHECK: %[[FREQ_IN:.+]] = arith.select %[[ROTATED]], %[[FREQ]], %{{.+}} : index
// CHECK: %[[PARTNER_IN:.+]] = arith.select %[[ROTATED]], %[[PARTNER]], %[[J]] : index
// CHECK: tensor.extract %{{.+}}#0[%{{.+}}, %{{.+}}, %[[FREQ_IN]]]
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %[[PARTNER_IN]]] : tensor<1x?x2x8xf32>
// CHECK: %[[ROT:.+]] = arith.addf
// CHECK-NEXT: %[[R:.+]] = arith.select %[[ROTATED]], %[[ROT]], %[[SELF]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @half_partial(%x: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 4 : i64} : tensor<1x?x2x8xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x8xf32>
}

// -----

// interleaved + partial: the same pass-through select.
// CHECK-LABEL: func @interleaved_partial
// CHECK: arith.xori
// CHECK: arith.cmpi ult, %{{.+}}, %{{.+}} : index
// CHECK: arith.select
// CHECK: linalg.yield
func.func @interleaved_partial(%x: tensor<1x3x2x8xf32>, %pos: tensor<1x3xi32>) -> tensor<1x3x2x8xf32> {
  %0 = llm.rope interleaved %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 4 : i64} : tensor<1x3x2x8xf32>, tensor<1x3xi32>
  return %0 : tensor<1x3x2x8xf32>
}

// -----

// linear: inv_freq / factor.
// CHECK-LABEL: func @linear
// CHECK: arith.constant dense<[2.500000e-01, 2.500000e-02, 2.500000e-03, 2.500000e-04]> : tensor<4xf32>
// CHECK: math.cos
func.func @linear(%x: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_linear<factor = 4.0>} : tensor<1x?x2x8xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x8xf32>
}

// -----

// static NTK: θ' = θ·4^(8/6); inv_freq[3] = θ'^(−3/4) = 1e-3/4.
// CHECK-LABEL: func @ntk
// CHECK: arith.constant dense<[1.000000e+00, 0.0629960522, 0.00396850286, 2.500000e-04]> : tensor<4xf32>
func.func @ntk(%x: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_ntk<factor = 4.0>} : tensor<1x?x2x8xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x8xf32>
}

// -----

// YaRN (d = 16, M = 256): ramp from low = 0 to high = 4, then interpolated
// (inv_freq/4); cos and sin scaled by 0.1·ln 4 + 1.
// CHECK-LABEL: func @yarn
// CHECK: arith.constant dense<[1.000000e+00, 0.25693506, 6.250000e-02, 0.0138349645, 2.500000e-03, 7.90569407E-4, 2.500000e-04, 7.90569392E-5]> : tensor<8xf32>
// CHECK: %[[COS:.+]] = math.cos
// CHECK-NEXT: %[[SIN:.+]] = math.sin
// CHECK-NEXT: %[[A:.+]] = arith.constant 1.13862944 : f32
// CHECK-NEXT: %[[C:.+]] = arith.mulf %[[COS]], %[[A]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.mulf %[[SIN]], %[[A]] : f32
// CHECK-NEXT: linalg.yield %[[C]], %[[S]] : f32, f32
func.func @yarn(%x: tensor<1x?x2x16xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x16xf32> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 16 : i64, scaling = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 256>} : tensor<1x?x2x16xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x16xf32>
}

// -----

// An explicit YaRN attention_factor is used as is.
// CHECK-LABEL: func @yarn_attention_factor
// CHECK: math.sin
// CHECK-NEXT: arith.constant 1.500000e+00 : f32
func.func @yarn_attention_factor(%x: tensor<1x?x2x16xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x16xf32> {
  %0 = llm.rope interleaved %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 16 : i64, scaling = #llm.rope_yarn<factor = 8.0, original_max_position_embeddings = 64, beta_fast = 16.0, beta_slow = 2.0, attention_factor = 1.5>} : tensor<1x?x2x16xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x16xf32>
}

// -----

// llama3 (d = 16, M = 64, factor 8): i = 0 kept (wavelength < 16), i = 1, 2
// smoothed, i >= 3 divided by 8.
// CHECK-LABEL: func @llama3
// CHECK: arith.constant dense<[1.000000e+00, 0.244384602, 0.0130422562, 0.00395284686, 1.250000e-03, 3.95284704E-4, 1.250000e-04, 3.95284696E-5]> : tensor<8xf32>
// CHECK: math.sin
// CHECK-NEXT: linalg.yield
func.func @llama3(%x: tensor<1x?x2x16xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x16xf32> {
  %0 = llm.rope interleaved %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 16 : i64, scaling = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 64>} : tensor<1x?x2x16xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x16xf32>
}

// -----

// dynamic NTK: L = max(positions) + 1 by a reduction; ln θ' selected by
// L > M; inv_freq computed in f64 by a generic over d/2.
// CHECK-DAG: #[[POS2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[VEC:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%{{.+}}: tensor<1x?x2x8xf32>, %[[POS:.+]]: tensor<1x?xi32>)
// CHECK: %[[LOWEST:.+]] = arith.constant -2147483648 : i32
// CHECK: %[[MI:.+]] = linalg.fill ins(%[[LOWEST]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[POS2]], #[[SCALAR]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME: ins(%[[POS]] : tensor<1x?xi32>) outs(%[[MI]] : tensor<i32>)
// CHECK: arith.maxsi
// CHECK: %[[M:.+]] = tensor.extract %[[MAX]][] : tensor<i32>
// CHECK: %[[MF:.+]] = arith.sitofp %[[M]] : i32 to f64
// CHECK: %[[L:.+]] = arith.addf %[[MF]], %{{.+}} : f64
// CHECK: math.log %{{.+}} : f64
// CHECK: %[[ORIG:.+]] = arith.constant 3.200000e+01 : f64
// CHECK: %[[LONGER:.+]] = arith.cmpf ogt, %[[L]], %[[ORIG]] : f64
// CHECK: %[[LOG_THETA:.+]] = arith.select %[[LONGER]], %{{.+}}, %{{.+}} : f64
// CHECK: %[[INV:.+]] = linalg.generic {indexing_maps = [#[[VEC]]], iterator_types = ["parallel"]} outs(%{{.+}} : tensor<4xf32>)
// CHECK: linalg.index 0 : index
// CHECK: arith.mulf %{{.+}}, %[[LOG_THETA]] : f64
// CHECK: math.exp %{{.+}} : f64
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: linalg.generic {{.*}}ins(%[[POS]], %[[INV]] : tensor<1x?xi32>, tensor<4xf32>)
// CHECK: math.cos
func.func @dynamic(%x: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_dynamic<factor = 2.0, original_max_position_embeddings = 32>} : tensor<1x?x2x8xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x8xf32>
}

// -----

// longrope: L = max(positions) + 1 as for dynamic NTK; both tables baked in
// f32 (θ^(−2i/d) / short_factor, then / long_factor); L > M selects the
// long half; cos and sin times sqrt(1 + ln 4 / ln 16).
// CHECK-DAG: #[[VEC:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func @longrope
// CHECK-SAME: (%{{.+}}: tensor<1x?x2x8xf32>, %[[POS:.+]]: tensor<1x?xi32>)
// CHECK: arith.maxsi
// CHECK: %[[L:.+]] = arith.addf %{{.+}}, %{{.+}} : f64
// CHECK: %[[TABLES:.+]] = arith.constant dense<[1.000000e+00, 0.0666666701, 5.000000e-03, 4.000000e-04, 1.000000e+00, 5.000000e-02, 2.500000e-03, 1.250000e-04]> : tensor<8xf32>
// CHECK: %[[ORIG:.+]] = arith.constant 1.600000e+01 : f64
// CHECK: %[[LONGER:.+]] = arith.cmpf ogt, %[[L]], %[[ORIG]] : f64
// CHECK: %[[OFFSET:.+]] = arith.select %[[LONGER]], %{{.+}}, %{{.+}} : index
// CHECK: %[[INV:.+]] = linalg.generic {indexing_maps = [#[[VEC]]], iterator_types = ["parallel"]} outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = arith.addi %[[OFFSET]], %[[I]] : index
// CHECK: tensor.extract %[[TABLES]][%[[J]]] : tensor<8xf32>
// CHECK: linalg.generic {{.*}}ins(%[[POS]], %[[INV]] : tensor<1x?xi32>, tensor<4xf32>)
// CHECK: arith.constant 1.22474492 : f32
func.func @longrope(%x: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x2x8xf32> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 16, short_factor = [1.0, 1.5, 2.0, 2.5], long_factor = [1.0, 2.0, 4.0, 8.0]>} : tensor<1x?x2x8xf32>, tensor<1x?xi32>
  return %0 : tensor<1x?x2x8xf32>
}

// -----

// bf16 activations rotate in f32 and are rounded once.
// CHECK-LABEL: func @half_bf16
// CHECK: ^bb0(%[[SELF:[a-z0-9_]+]]: bf16, %{{.+}}: bf16):
// CHECK-DAG: arith.extf %[[SELF]] : bf16 to f32
// CHECK-DAG: %[[OTHER:.+]] = tensor.extract %{{.+}} : tensor<1x4x2x8xbf16>
// CHECK: arith.extf %[[OTHER]] : bf16 to f32
// CHECK: %[[R:.+]] = arith.truncf %{{.+}} : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @half_bf16(%x: tensor<1x4x2x8xbf16>, %pos: tensor<1x4xi32>) -> tensor<1x4x2x8xbf16> {
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x4x2x8xbf16>, tensor<1x4xi32>
  return %0 : tensor<1x4x2x8xbf16>
}
