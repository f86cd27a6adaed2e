// A decode-shaped f32 projection with K % 16 = 8 and N % 2 = 1, for the ISA check.
func.func @gemv(%x: tensor<1x1x264xf32>, %w: tensor<33x264xf32>, %b: tensor<33xf32>) -> tensor<1x1x33xf32> {
  %0 = llm.linear %x, %w, %b : tensor<1x1x264xf32>, tensor<33x264xf32>, tensor<33xf32> -> tensor<1x1x33xf32>
  return %0 : tensor<1x1x33xf32>
}
