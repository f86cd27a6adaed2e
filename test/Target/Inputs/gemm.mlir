// A prefill-shaped f32 projection (dynamic token count, K % 8 = 0, N = 192: whole packed panels of 24 (AVX2) and 96 (AVX-512) weight rows), for the ISA checks.
func.func @gemm(%x: tensor<1x?x264xf32>, %w: tensor<192x264xf32>) -> tensor<1x?x192xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x264xf32>, tensor<192x264xf32> -> tensor<1x?x192xf32>
  return %0 : tensor<1x?x192xf32>
}
