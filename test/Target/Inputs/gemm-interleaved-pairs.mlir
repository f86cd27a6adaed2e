// A prefill-shaped bf16 projection whose 192 rows (a multiple of 16) and 264 columns (even) llm-cpu-interleave-weights stores in groups of 16 rows in pairs of columns (dynamic token count), for the ISA checks.
func.func @gemm(%x: tensor<1x?x264xf32>, %w: tensor<192x264xbf16>) -> tensor<1x?x192xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x264xf32>, tensor<192x264xbf16> -> tensor<1x?x192xf32>
  return %0 : tensor<1x?x192xf32>
}
