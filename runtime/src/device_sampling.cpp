// plan_device_sampling: the host sampler's cases that the GPU sampling kernels reproduce exactly.
#include "device_sampling.h"

namespace llmc::rt {

DeviceSampling plan_device_sampling(const llmc_sampler_config &c,
                                    int32_t vocab_size) {
  DeviceSampling plan;
  if (c.repetition_penalty != 1.0f)
    return plan;
  // The host sampler's greedy test (sampler.cpp), in the same order.
  if (c.temperature <= 0 || c.top_k == 1 || c.top_p <= 0) {
    plan.kernel = DeviceKernel::ArgMax;
    return plan;
  }
  bool no_top_k = c.top_k <= 0 || c.top_k >= vocab_size;
  bool whole_vocabulary = no_top_k && c.top_p >= 1.0f;
  bool exact = whole_vocabulary || vocab_size <= kDeviceMaxTopK ||
               (c.top_k > 1 && c.top_k <= kDeviceMaxTopK);
  if (!exact)
    return plan;
  plan.kernel = DeviceKernel::TopKTopP;
  plan.temperature = c.temperature;
  plan.top_k = c.top_k;
  plan.top_p = c.top_p;
  return plan;
}

std::string device_kernel_name(DeviceKernel kernel, int32_t vocab_size) {
  switch (kernel) {
  case DeviceKernel::ArgMax:
    return "llmc_argmax_v" + std::to_string(vocab_size);
  case DeviceKernel::TopKTopP:
    return "llmc_top_k_top_p_v" + std::to_string(vocab_size);
  case DeviceKernel::None:
    break;
  }
  return "";
}

} // namespace llmc::rt
