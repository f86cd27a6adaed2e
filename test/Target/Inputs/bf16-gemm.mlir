// A prefill-shaped projection of bf16 weights (dynamic token count, N = 192: two panels of 96 AVX-512 weight rows),
// for the checks of which CPUs multiply them in VDPBF16PS.
func.func @gemm(%x: tensor<1x?x264xf32>, %w: tensor<192x264xbf16>) -> tensor<1x?x192xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x264xf32>, tensor<192x264xbf16> -> tensor<1x?x192xf32>
  return %0 : tensor<1x?x192xf32>
}
