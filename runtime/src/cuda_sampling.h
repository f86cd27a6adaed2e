// The artifact's GPU sampling kernels for one session: looked up in the loaded image, launched on the session's stream.
#ifndef LLMC_RUNTIME_CUDA_SAMPLING_H
#define LLMC_RUNTIME_CUDA_SAMPLING_H

#include "cuda_module.h"
#include "device_sampling.h"

#include <cstdint>
#include <string>

namespace llmc::rt {

/// llmc_argmax_v<V> and llmc_top_k_top_p_v<V> of a CUDA artifact (ABI: the
/// header comment of codegen/cuda/SamplingKernels.cpp). Both are looked up
/// once, when the session is created; an image without them (an artifact
/// compiled before they existed) leaves available() false and the session
/// samples on the host. Not thread-safe; one per session.
class CudaSamplingKernels {
public:
  /// Throws on a driver failure other than "no such kernel".
  CudaSamplingKernels(const CudaModule &module, int32_t vocab_size);
  CudaSamplingKernels(const CudaSamplingKernels &) = delete;
  CudaSamplingKernels &operator=(const CudaSamplingKernels &) = delete;

  bool available() const { return argmax_ && top_k_top_p_; }
  /// The kernel's name; the pointer is stable for this object's life (the
  /// profiler tells kernels apart by it).
  const char *name(DeviceKernel kernel) const;
  /// Enqueues the kernel of `plan` (ArgMax or TopKTopP) on `stream`: it
  /// reads `logits` (device f32[vocab]) and writes `token` (device int32[1]);
  /// `u` is the uniform draw TopKTopP takes. Returns the driver's result.
  CUresult launch(const DeviceSampling &plan, float u, CUdeviceptr logits,
                  CUdeviceptr token, CUstream stream) const;

private:
  const CudaDriver &cu_;
  int64_t vocab_;
  std::string argmax_name_, top_k_top_p_name_;
  CUfunction argmax_ = nullptr, top_k_top_p_ = nullptr;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_SAMPLING_H
