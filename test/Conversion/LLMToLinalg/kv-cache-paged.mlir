// The CPU lowering rejects the paged KV-cache layout with one error on the first op or function that carries it.
// RUN: llmc-opt %s --llm-lower-to-linalg -split-input-file -verify-diagnostics

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 2, head_dim = 4, capacity = 64, element_type = f32, layout = paged>
func.func @view(%c: !paged) -> tensor<1x64x2x4xf32> {
  // expected-error @+1 {{the CPU lowering does not support the paged KV-cache layout yet}}
  %k, %v = llm.kv_view %c[0] : !paged -> tensor<1x64x2x4xf32>, tensor<1x64x2x4xf32>
  %k2, %v2 = llm.kv_view %c[1] : !paged -> tensor<1x64x2x4xf32>, tensor<1x64x2x4xf32>
  return %k : tensor<1x64x2x4xf32>
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 2, head_dim = 4, capacity = 64, element_type = bf16, layout = paged, page_size = 32>
// expected-error @+1 {{the CPU lowering does not support the paged KV-cache layout yet}}
func.func private @external(!paged) -> !paged
