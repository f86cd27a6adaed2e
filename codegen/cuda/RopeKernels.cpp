// STUB (being written): llm ops of the Rope family → CUDA kernels.
#include "codegen/cuda/LLMToCUDA.h"

using namespace mlir;

void llmc::cuda::populateRopeKernelPatterns(TypeConverter &, RewritePatternSet &, KernelModule &) {}
