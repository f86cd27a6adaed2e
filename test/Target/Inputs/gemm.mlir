// A prefill-shaped f32 projection (dynamic token count, K % 8 = 0, N % 3 = 0), for the ISA checks.
func.func @gemm(%x: tensor<1x?x264xf32>, %w: tensor<33x264xf32>) -> tensor<1x?x33xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x264xf32>, tensor<33x264xf32> -> tensor<1x?x33xf32>
  return %0 : tensor<1x?x33xf32>
}
