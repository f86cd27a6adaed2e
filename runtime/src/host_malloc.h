// keep_freed_buffers_mapped: glibc malloc settings under which a CPU model's per-call buffers are reused, not
// unmapped and faulted in again on every call.
#ifndef LLMC_RUNTIME_HOST_MALLOC_H
#define LLMC_RUNTIME_HOST_MALLOC_H

namespace llmc::rt {

/// The compiled CPU code allocates each layer's intermediates with malloc and frees them before the next layer.
/// Under glibc's defaults those buffers (hundreds of KB to tens of MB) are mmapped and unmapped, or carved from a
/// heap top that free() trims back to the kernel, so every layer of every call faults its pages in again and the
/// kernel zeroes them (a 480-token SmolLM2-135M prefill: 184k page faults, about 720 MB, per call). Once per
/// process this raises M_MMAP_THRESHOLD to 32 MiB (glibc's largest) and M_TRIM_THRESHOLD to 256 MiB, so freed
/// buffers stay in the heap for the next layer. It changes malloc for the whole process: set the environment
/// variable LLMC_KEEP_MALLOC_SETTINGS=1 to leave the settings alone. Does nothing on other C libraries.
void keep_freed_buffers_mapped();

} // namespace llmc::rt

#endif // LLMC_RUNTIME_HOST_MALLOC_H
