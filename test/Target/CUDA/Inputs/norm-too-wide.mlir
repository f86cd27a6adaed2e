// A row of 40000 f32 needs more than 8 vectors per thread of a 1024-thread block.
module attributes {llm.model = "t"} {
  func.func private @f(%x: tensor<1x?x40000xf32>, %w: tensor<40000xf32>) -> tensor<1x?x40000xf32> {
    %0 = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x40000xf32>, tensor<40000xf32> -> tensor<1x?x40000xf32>
    return %0 : tensor<1x?x40000xf32>
  }
}
