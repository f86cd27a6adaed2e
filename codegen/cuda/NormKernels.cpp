// STUB (being written): llm ops of the Norm family → CUDA kernels.
#include "codegen/cuda/LLMToCUDA.h"

using namespace mlir;

void llmc::cuda::populateNormKernelPatterns(TypeConverter &, RewritePatternSet &, KernelModule &) {}
