// A prefill-shaped f16 projection whose 192 rows (a multiple of 16) llm-cpu-interleave-weights stores in groups of 16 (dynamic token count), for the ISA checks.
func.func @gemm(%x: tensor<1x?x264xf32>, %w: tensor<192x264xf16>) -> tensor<1x?x192xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x264xf32>, tensor<192x264xf16> -> tensor<1x?x192xf32>
  return %0 : tensor<1x?x192xf32>
}
