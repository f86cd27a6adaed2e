module attributes {llm.model = "t"} {
  func.func private @odd(%q: tensor<1x?x2x6xf32>, %k: tensor<1x16x2x6xf32>, %v: tensor<1x16x2x6xf32>) -> tensor<1x?x2x6xf32> {
    %0 = llm.attention %q, %k, %v {causal, num_heads = 2 : i64, num_kv_heads = 2 : i64} : tensor<1x?x2x6xf32>, tensor<1x16x2x6xf32>, tensor<1x16x2x6xf32> -> tensor<1x?x2x6xf32>
    return %0 : tensor<1x?x2x6xf32>
  }
}
