// DeepSeek-V2-Lite's latent attention: 16 query heads over one cached head of kv_lora_rank 512 + qk_rope_head_dim 64.
module attributes {llm.model = "t"} {
  func.func private @lite(%q: tensor<1x?x16x576xf32>, %k: tensor<1x4096x1x576xbf16>, %pos: tensor<1x?xi32>) -> tensor<1x?x16x576xf32> {
    %0 = llm.attention %q, %k, %k, %pos {causal, num_heads = 16 : i64, num_kv_heads = 1 : i64} : tensor<1x?x16x576xf32>, tensor<1x4096x1x576xbf16>, tensor<1x4096x1x576xbf16>, tensor<1x?xi32> -> tensor<1x?x16x576xf32>
    return %0 : tensor<1x?x16x576xf32>
  }
}
