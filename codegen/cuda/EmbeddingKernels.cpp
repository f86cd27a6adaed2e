// STUB (being written): llm ops of the Embedding family → CUDA kernels.
#include "codegen/cuda/LLMToCUDA.h"

using namespace mlir;

void llmc::cuda::populateEmbeddingKernelPatterns(TypeConverter &, RewritePatternSet &, KernelModule &) {}
