// Two element-wise kernels for ptxas-check.test.
module attributes {llm.model = "t"} {
  func.func private @f(%a: tensor<1x?x64xf32>, %b: tensor<1x?x64xf32>) -> tensor<1x?x64xf32> {
    %0 = llm.add %a, %b : tensor<1x?x64xf32>
    %1 = llm.glu silu %0, %b : tensor<1x?x64xf32>
    return %1 : tensor<1x?x64xf32>
  }
}
