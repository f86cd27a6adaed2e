// Weights llm-lower-to-linalg refuses: the CUDA kernels' planar block layout
// (llm-cuda-planar-weights); the CPU kernels read the file's rows or
// interleaved groups.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg --verify-diagnostics

// expected-error @+1 {{argument #1 ('tensor<64x256x!llm.block<q4_0, planar>>') has planar blocks, the CUDA kernels' layout; the CPU kernels read the file's rows or interleaved groups}}
func.func private @decode(%x: tensor<1x1x256xf32>, %w: tensor<64x256x!llm.block<q4_0, planar>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
  %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<64x256x!llm.block<q4_0, planar>> -> tensor<1x1x64xf32>
  return %y : tensor<1x1x64xf32>
}
