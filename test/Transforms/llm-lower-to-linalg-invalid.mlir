// Weights llm-lower-to-linalg refuses: the CUDA kernels' planar block layout
// (llm-cuda-planar-weights); the CPU kernels read the file's rows or
// interleaved groups. Float rows in interleaved groups with results other
// than f32 (the kernels store f32 sums).
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg --verify-diagnostics

// expected-error @+1 {{argument #1 ('tensor<64x256x!llm.block<q4_0, planar>>') has planar blocks, the CUDA kernels' layout; the CPU kernels read the file's rows or interleaved groups}}
func.func private @decode(%x: tensor<1x1x256xf32>, %w: tensor<64x256x!llm.block<q4_0, planar>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
  %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<64x256x!llm.block<q4_0, planar>> -> tensor<1x1x64xf32>
  return %y : tensor<1x1x64xf32>
}

// -----

func.func @f(%x: tensor<1x1x64xf16>, %w: tensor<32x64x!llm.interleaved<f16, rows = 16>>) -> tensor<1x1x32xf16> {
  // expected-error @+1 {{'llm.linear' op reads float rows in interleaved groups, which the CPU kernels multiply with f32, f16 or bf16 inputs into f32 results; got 'f16' inputs and 'f16' results}}
  %0 = llm.linear %x, %w : tensor<1x1x64xf16>, tensor<32x64x!llm.interleaved<f16, rows = 16>> -> tensor<1x1x32xf16>
  return %0 : tensor<1x1x32xf16>
}
