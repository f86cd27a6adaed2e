// CudaSamplingKernels: lookup of the sampling kernels and their launch with memref-descriptor arguments.
#include "cuda_sampling.h"

#include "error.h"

namespace llmc::rt {

namespace {

/// One CTA of 1024 threads: the block size the kernels were compiled for
/// (kBlockSize in codegen/cuda/SamplingKernels.cpp, a known block size the
/// code relies on).
constexpr unsigned kSamplingBlock = 1024;

/// A rank-1 memref argument as the kernels take it: gpu-to-llvm expands
/// every memref parameter into these five scalars, in this order.
struct MemRef1D {
  CUdeviceptr allocated;
  CUdeviceptr aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;

  MemRef1D(CUdeviceptr p, int64_t n) : allocated(p), aligned(p), offset(0), size(n), stride(1) {}
  /// Appends pointers to the five fields to cuLaunchKernel's parameters.
  void **push(void **params) {
    *params++ = &allocated;
    *params++ = &aligned;
    *params++ = &offset;
    *params++ = &size;
    *params++ = &stride;
    return params;
  }
};

/// The parameters of llmc_top_k_top_p_v<V>: 5 + 4 scalars + 5.
constexpr int kMaxParams = 14;

} // namespace

CudaSamplingKernels::CudaSamplingKernels(const CudaModule &module, int32_t vocab_size)
    : cu_(module.driver()), vocab_(vocab_size),
      argmax_name_(device_kernel_name(DeviceKernel::ArgMax, vocab_size)),
      top_k_top_p_name_(device_kernel_name(DeviceKernel::TopKTopP, vocab_size)) {
  std::string error;
  argmax_ = module.find_function(argmax_name_.c_str(), &error);
  if (!error.empty())
    fail(LLMC_ERR_INTERNAL, error);
  top_k_top_p_ = module.find_function(top_k_top_p_name_.c_str(), &error);
  if (!error.empty())
    fail(LLMC_ERR_INTERNAL, error);
}

const char *CudaSamplingKernels::name(DeviceKernel kernel) const {
  return kernel == DeviceKernel::TopKTopP ? top_k_top_p_name_.c_str()
                                          : argmax_name_.c_str();
}

CUresult CudaSamplingKernels::launch(const DeviceSampling &plan, float u,
                                     CUdeviceptr logits, CUdeviceptr token,
                                     CUstream stream) const {
  MemRef1D in(logits, vocab_), out(token, 1);
  float temperature = plan.temperature, top_p = plan.top_p;
  int32_t top_k = plan.top_k;
  void *params[kMaxParams];
  void **p = in.push(params);
  CUfunction f = argmax_;
  if (plan.kernel == DeviceKernel::TopKTopP) {
    f = top_k_top_p_;
    *p++ = &temperature;
    *p++ = &top_k;
    *p++ = &top_p;
    *p++ = &u;
  }
  out.push(p);
  // cuLaunchKernel copies the parameter values before it returns (and into
  // the graph node when capturing), so locals are enough.
  return cu_.cuLaunchKernel(f, 1, 1, 1, kSamplingBlock, 1, 1, 0, stream, params,
                            nullptr);
}

} // namespace llmc::rt
