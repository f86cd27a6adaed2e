// STUB (being written): llm ops of the Attention family → CUDA kernels.
#include "codegen/cuda/LLMToCUDA.h"

using namespace mlir;

void llmc::cuda::populateAttentionKernelPatterns(TypeConverter &, RewritePatternSet &, KernelModule &) {}
