// The CUDA driver API, loaded with dlopen at run time: the few types and functions the runtime calls.
#ifndef LLMC_RUNTIME_CUDA_DRIVER_H
#define LLMC_RUNTIME_CUDA_DRIVER_H

#include <cstddef>
#include <string>

namespace llmc::rt {

/// Declared here rather than taken from cuda.h: the runtime neither includes
/// nor links CUDA, so it builds and runs its CPU path on machines without the
/// toolkit or a driver. Values and layouts follow cuda.h (CUDA 12/13); only
/// what the runtime uses is declared.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUgraph = CUgraph_st *;
using CUgraphExec = CUgraphExec_st *;
using CUevent = CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;

/// The driver's entry points. Where cuda.h #defines a name to a versioned
/// symbol (cuMemAlloc -> cuMemAlloc_v2, ...), the member is resolved by that
/// versioned name: the unversioned exports are the old 32-bit-size ABI.
struct CudaDriver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);              // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned num_options, int *options,
                                 void **option_values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);              // _v2
  CUresult (*cuMemFree)(CUdeviceptr ptr);                              // _v2
  CUresult (*cuMemAllocHost)(void **ptr, size_t bytes);                // _v2
  CUresult (*cuMemFreeHost)(void *ptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes); // _v2
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src,
                                size_t bytes, CUstream stream);        // _v2
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                                CUstream stream);                      // _v2
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src,
                                size_t bytes, CUstream stream);        // _v2
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value,
                              size_t bytes, CUstream stream);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);                        // _v2
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x,
                             unsigned grid_y, unsigned grid_z,
                             unsigned block_x, unsigned block_y,
                             unsigned block_z, unsigned shared_bytes,
                             CUstream stream, void **params, void **extra);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end); // _v2 if any
  CUresult (*cuEventDestroy)(CUevent event);                           // _v2
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);         // _v2
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);
};

/// The process's driver: dlopen("libcuda.so.1") (or $LLMC_CUDA_DRIVER, a path
/// for tests and unusual installs), every entry point resolved, cuInit(0)
/// done and at least one device present. Loaded once; a failure is kept and
/// thrown again, as Error(LLMC_ERR_UNSUPPORTED), on every later call, with a
/// message that starts "CUDA is not available: ". Thread-safe.
const CudaDriver &cuda_driver();

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a driver result code.
std::string cuda_error_text(const CudaDriver &cu, CUresult result);

/// Throws Error(LLMC_ERR_INTERNAL) "<what>: <error text>" unless `result` is
/// CUDA_SUCCESS (LLMC_ERR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY).
void cuda_check(const CudaDriver &cu, CUresult result, const std::string &what);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_DRIVER_H
