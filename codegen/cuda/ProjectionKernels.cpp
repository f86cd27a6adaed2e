// STUB (being written): llm ops of the Projection family → CUDA kernels.
#include "codegen/cuda/LLMToCUDA.h"

using namespace mlir;

void llmc::cuda::populateProjectionKernelPatterns(TypeConverter &, RewritePatternSet &, KernelModule &) {}
