// llm.add, llm.glu and llm.activation lower to one all-parallel linalg.generic each; so does tensor.concat.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @add_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<1x?x64xf32>, %[[B:.+]]: tensor<1x?x64xf32>)
// CHECK: %[[T:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<1x?x64xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[T]]) : tensor<1x?x64xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<1x?x64xf32>, tensor<1x?x64xf32>) outs(%[[E]] : tensor<1x?x64xf32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: llm.
func.func @add_dynamic(%a: tensor<1x?x64xf32>, %b: tensor<1x?x64xf32>) -> tensor<1x?x64xf32> {
  %0 = llm.add %a, %b : tensor<1x?x64xf32>
  return %0 : tensor<1x?x64xf32>
}

// -----

// silu(gate)·up = gate / (1 + exp(−gate)) · up.
// CHECK-LABEL: func @glu_silu
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: ^bb0(%[[G:.+]]: f32, %[[U:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[NEG:.+]] = arith.negf %[[G]] : f32
// CHECK: %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK: %[[DEN:.+]] = arith.addf %{{.+}}, %[[EXP]] : f32
// CHECK: %[[ACT:.+]] = arith.divf %[[G]], %[[DEN]] : f32
// CHECK: %[[R:.+]] = arith.mulf %[[ACT]], %[[U]] : f32
// CHECK: linalg.yield %[[R]] : f32
func.func @glu_silu(%g: tensor<1x?x172xf32>, %u: tensor<1x?x172xf32>) -> tensor<1x?x172xf32> {
  %0 = llm.glu silu %g, %u : tensor<1x?x172xf32>
  return %0 : tensor<1x?x172xf32>
}

// -----

// Exact gelu: erf(x/√2) expanded inline (A&S 7.1.26: abs, exp, copysign).
// CHECK-LABEL: func @glu_gelu
// CHECK: linalg.generic
// CHECK: ^bb0(%[[G:.+]]: f32, %[[U:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[INV_SQRT2:.+]] = arith.constant 0.707106769 : f32
// CHECK: %[[Z:.+]] = arith.mulf %[[G]], %[[INV_SQRT2]] : f32
// CHECK: math.absf %[[Z]] : f32
// CHECK: math.exp
// CHECK: %[[ERF:.+]] = math.copysign %{{.+}}, %[[Z]] : f32
// CHECK: %[[ONE_PLUS:.+]] = arith.addf %{{.+}}, %[[ERF]] : f32
// CHECK: %[[HALF_X:.+]] = arith.mulf %{{.+}}, %[[G]] : f32
// CHECK: %[[ACT:.+]] = arith.mulf %[[HALF_X]], %[[ONE_PLUS]] : f32
// CHECK: arith.mulf %[[ACT]], %[[U]] : f32
// CHECK-NOT: math.tanh
func.func @glu_gelu(%g: tensor<2x8xf32>, %u: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = llm.glu gelu %g, %u : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @glu_gelu_tanh
// CHECK: linalg.generic
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: math.tanh
// CHECK-NOT: math.copysign
func.func @glu_gelu_tanh(%g: tensor<2x8xf32>, %u: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = llm.glu gelu_tanh %g, %u : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @glu_relu
// CHECK: ^bb0(%[[G:.+]]: f32, %[[U:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACT:.+]] = arith.maximumf %[[G]], %[[ZERO]] : f32
// CHECK: arith.mulf %[[ACT]], %[[U]] : f32
func.func @glu_relu(%g: tensor<2x8xf32>, %u: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = llm.glu relu %g, %u : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A non-gated activation: one input.
// CHECK-LABEL: func @activation_gelu_tanh
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.+}} : tensor<1x?x256xf32>)
// CHECK: math.tanh
func.func @activation_gelu_tanh(%x: tensor<1x?x256xf32>) -> tensor<1x?x256xf32> {
  %0 = llm.activation gelu_tanh %x : tensor<1x?x256xf32>
  return %0 : tensor<1x?x256xf32>
}

// -----

// bf16 activations are computed in f32 and rounded once.
// CHECK-LABEL: func @activation_silu_bf16
// CHECK: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK: math.exp %{{.+}} : f32
// CHECK: %[[R:.+]] = arith.divf %[[W]], %{{.+}} : f32
// CHECK: %[[N:.+]] = arith.truncf %[[R]] : f32 to bf16
// CHECK: linalg.yield %[[N]] : bf16
func.func @activation_silu_bf16(%x: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = llm.activation silu %x : tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// tensor.concat (multi-head latent attention's [latent; rope] queries and keys): one generic over the result that reads
// each element from the input holding it, at an index clamped into that input, and selects by range (no copies into
// strided views, which would need the MLIR runner library's memrefCopy).
// CHECK-LABEL: func @concat_last
// CHECK-SAME: (%[[A:.+]]: tensor<1x?x4x32xf32>, %[[B:.+]]: tensor<1x?x4x8xf32>)
// CHECK: %[[E:.+]] = tensor.empty(%{{.*}}) : tensor<1x?x4x40xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<1x?x4x40xf32>)
// CHECK: %[[I0:.+]] = linalg.index 0
// CHECK: %[[I1:.+]] = linalg.index 1
// CHECK: %[[I2:.+]] = linalg.index 2
// CHECK: %[[I3:.+]] = linalg.index 3
// CHECK: %[[C32:.+]] = arith.constant 32 : index
// CHECK: %[[C39:.+]] = arith.constant 39 : index
// CHECK: %[[LO:.+]] = arith.maxui %[[I3]], %[[C32]]
// CHECK: %[[HI:.+]] = arith.minui %[[LO]], %[[C39]]
// CHECK: %[[IB:.+]] = arith.subi %[[HI]], %[[C32]]
// CHECK: %[[XB:.+]] = tensor.extract %[[B]][%[[I0]], %[[I1]], %[[I2]], %[[IB]]]
// CHECK: %[[XA:.+]] = tensor.extract %[[A]][%[[I0]], %[[I1]], %[[I2]], %{{.+}}]
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[I3]], %{{.+}} : index
// CHECK: %[[R:.+]] = arith.select %[[IN]], %[[XA]], %[[XB]] : f32
// CHECK: linalg.yield %[[R]] : f32
func.func @concat_last(%a: tensor<1x?x4x32xf32>, %b: tensor<1x?x4x8xf32>) -> tensor<1x?x4x40xf32> {
  %0 = tensor.concat dim(3) %a, %b : (tensor<1x?x4x32xf32>, tensor<1x?x4x8xf32>) -> tensor<1x?x4x40xf32>
  return %0 : tensor<1x?x4x40xf32>
}
