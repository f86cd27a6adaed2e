// A prefill-shaped f32 projection (dynamic token count, K % 8 = 0, N = 120: whole packed panels of 24 weight rows on AVX2, one of 96 on AVX-512; no multiple of 16, so its rows are not interleaved), for the ISA checks.
func.func @gemm(%x: tensor<1x?x264xf32>, %w: tensor<120x264xf32>) -> tensor<1x?x120xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x264xf32>, tensor<120x264xf32> -> tensor<1x?x120xf32>
  return %0 : tensor<1x?x120xf32>
}
