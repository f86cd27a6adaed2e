// Every error of llm-lower-to-cuda: the paged KV-cache layout (its page
// table has no CUDA lowering yet), reported once, on the first op that
// carries one in post-order (the ops of a function before the function).
// RUN: llmc-opt %s -split-input-file --llm-lower-to-cuda --verify-diagnostics

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged, page_size = 16>
module {
  func.func private @append(%c: !paged, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>) -> !paged {
    // expected-error @+1 {{the CUDA lowering does not support the paged KV-cache layout yet}}
    %c1 = llm.kv_append %c[0], %k, %k, %pos : !paged, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
    %c2 = llm.kv_append %c1[1], %k, %k, %pos : !paged, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
    return %c2 : !paged
  }
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16, layout = paged, page_size = 16>
module {
  // No llm op: the return is the first to carry the cache.
  func.func private @passthrough(%c: !paged) -> !paged {
    // expected-error @+1 {{the CUDA lowering does not support the paged KV-cache layout yet}}
    return %c : !paged
  }
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged, page_size = 16>
module {
  func.func private @view(%c: !paged) -> tensor<1x512x4x8xf32> {
    // expected-error @+1 {{the CUDA lowering does not support the paged KV-cache layout yet}}
    %kv:2 = llm.kv_view %c[1] : !paged -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
    return %kv#0 : tensor<1x512x4x8xf32>
  }
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged, page_size = 16>
module {
  // An empty declaration: the function itself.
  // expected-error @+1 {{the CUDA lowering does not support the paged KV-cache layout yet}}
  func.func private @declared(%c: !paged) -> !paged
}
