// A decode-shaped projection of Q8_0 blocks, with signed codes, for the int8 dot-product check.
func.func @gemv(%x: tensor<1x1x64xf32>, %w: tensor<4x64x!llm.block<q8_0>>) -> tensor<1x1x4xf32> {
  %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<4x64x!llm.block<q8_0>> -> tensor<1x1x4xf32>
  return %y : tensor<1x1x4xf32>
}
