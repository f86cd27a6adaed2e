// An `llm` module for the CUDA phases of llmc on an .mlir input: element-wise
// ops and a KV-cache append/view at a run-time layer.
!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 64, element_type = f32>
module attributes {llm.model = "tiny-ops"} {
  func.func private @ffn(%gate: tensor<1x?x64xf32>, %up: tensor<1x?x64xf32>, %x: tensor<1x?x64xf32>) -> tensor<1x?x64xf32> {
    %0 = llm.glu silu %gate, %up : tensor<1x?x64xf32>
    %1 = llm.add %0, %x : tensor<1x?x64xf32>
    return %1 : tensor<1x?x64xf32>
  }
  func.func private @append(%c: !cache, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>, %layer: index) -> (tensor<1x64x4x8xf32>, !cache) {
    %c1 = llm.kv_append %c[%layer], %k, %v, %pos : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
    %kv:2 = llm.kv_view %c1[%layer] : !cache -> tensor<1x64x4x8xf32>, tensor<1x64x4x8xf32>
    return %kv#0, %c1 : tensor<1x64x4x8xf32>, !cache
  }
}
