// Which sampler configurations a GPU's sampling kernels draw exactly as the host sampler does, and their arguments.
#ifndef LLMC_RUNTIME_DEVICE_SAMPLING_H
#define LLMC_RUNTIME_DEVICE_SAMPLING_H

#include "llmc/runtime.h"

#include <cstdint>
#include <string>

namespace llmc::rt {

/// Most candidates the top-k kernel sorts (kMaxTopK in
/// codegen/cuda/SamplingKernels.cpp): with more, or with top-p but no top-k
/// on a larger vocabulary, it keeps only the 256 most probable tokens, which
/// is not what the host sampler draws.
constexpr int32_t kDeviceMaxTopK = 256;

/// The sampling kernel a CUDA artifact carries per model (their ABI is the
/// header comment of codegen/cuda/SamplingKernels.cpp).
enum class DeviceKernel {
  None,    // the host samples: the logits must come back
  ArgMax,  // llmc_argmax_v<V>(logits, token)
  TopKTopP // llmc_top_k_top_p_v<V>(logits, T, top_k, top_p, u, token)
};

/// A kernel and its scalar arguments; `u` is not here because it is drawn
/// from the sampler's RNG only when the kernel is launched.
struct DeviceSampling {
  DeviceKernel kernel = DeviceKernel::None;
  float temperature = 0;
  int32_t top_k = 0;
  float top_p = 1;
};

/// The device plan for a sampler configuration over `vocab_size` logits,
/// chosen from the configuration alone so that a session samples on the same
/// side at every step:
///   - any repetition penalty: None (the kernels take raw logits, and the
///     penalty is applied on the host);
///   - greedy (temperature <= 0, top_k == 1 or top_p <= 0): ArgMax;
///   - the whole vocabulary (top_k <= 0 or >= V, top_p >= 1), or
///     1 < top_k <= 256, or any top-k/top-p when V <= 256: TopKTopP, which
///     draws what the host draws (up to the rounding of its f32
///     probabilities and f64 sums, see the kernel's comment);
///   - otherwise (top_k > 256, or top_p < 1 without top_k on V > 256,
///     where the kernel is approximate): None.
DeviceSampling plan_device_sampling(const llmc_sampler_config &config,
                                    int32_t vocab_size);

/// "llmc_argmax_v512" / "llmc_top_k_top_p_v512"; "" for None.
std::string device_kernel_name(DeviceKernel kernel, int32_t vocab_size);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_DEVICE_SAMPLING_H
