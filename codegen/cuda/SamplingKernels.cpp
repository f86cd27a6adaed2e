// STUB (being written): argmax / top-k / top-p kernels over the logits.
#include "codegen/cuda/LLMToCUDA.h"

void llmc::cuda::addSamplingKernels(KernelModule &, int64_t) {}
