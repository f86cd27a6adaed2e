// Loads libcuda.so.1 with dlopen, resolves the driver entry points, runs cuInit.
#include "cuda_driver.h"

#include "error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace llmc::rt {

namespace {

constexpr const char *kDriverLibrary = "libcuda.so.1";
constexpr const char *kDriverEnv = "LLMC_CUDA_DRIVER";

constexpr const char *kNotAvailable = "CUDA is not available: ";
constexpr const char *kAdvice =
    "; a CUDA artifact needs an NVIDIA GPU and its driver (compile the model "
    "with --target=cpu to run it on this machine)";

/// Resolves one entry point into `slot` or returns false.
template <typename Fn>
bool resolve(void *lib, Fn &slot, const char *name, std::string &missing) {
  slot = reinterpret_cast<Fn>(::dlsym(lib, name));
  if (!slot)
    missing += cat(missing.empty() ? "" : ", ", name);
  return slot != nullptr;
}

struct LoadResult {
  CudaDriver driver{};
  std::string error; // empty when usable
};

LoadResult load() {
  LoadResult r;
  const char *override_path = std::getenv(kDriverEnv);
  std::string path =
      override_path && *override_path ? override_path : kDriverLibrary;
  // RTLD_LOCAL: the driver's symbols must not leak into the lookups of
  // compiled models (which never call it directly anyway).
  void *lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = ::dlerror();
    r.error = cat(kNotAvailable, path, " could not be loaded (",
                  override_path && *override_path
                      ? cat("$", kDriverEnv)
                      : std::string("no NVIDIA driver on this machine?"),
                  "): ", e ? e : "unknown dlerror", kAdvice);
    return r;
  }
  // The library is never closed: the driver stays loaded for the process,
  // as it would if the program linked it.
  CudaDriver &d = r.driver;
  std::string missing;
  resolve(lib, d.cuInit, "cuInit", missing);
  resolve(lib, d.cuDriverGetVersion, "cuDriverGetVersion", missing);
  resolve(lib, d.cuGetErrorName, "cuGetErrorName", missing);
  resolve(lib, d.cuGetErrorString, "cuGetErrorString", missing);
  resolve(lib, d.cuDeviceGetCount, "cuDeviceGetCount", missing);
  resolve(lib, d.cuDeviceGet, "cuDeviceGet", missing);
  resolve(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
  resolve(lib, d.cuDeviceGetName, "cuDeviceGetName", missing);
  resolve(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  resolve(lib, d.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", missing);
  resolve(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  resolve(lib, d.cuModuleLoadDataEx, "cuModuleLoadDataEx", missing);
  resolve(lib, d.cuModuleUnload, "cuModuleUnload", missing);
  resolve(lib, d.cuModuleGetFunction, "cuModuleGetFunction", missing);
  resolve(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute", missing);
  resolve(lib, d.cuMemAlloc, "cuMemAlloc_v2", missing);
  resolve(lib, d.cuMemFree, "cuMemFree_v2", missing);
  resolve(lib, d.cuMemAllocHost, "cuMemAllocHost_v2", missing);
  resolve(lib, d.cuMemFreeHost, "cuMemFreeHost", missing);
  resolve(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
  resolve(lib, d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", missing);
  resolve(lib, d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", missing);
  resolve(lib, d.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", missing);
  resolve(lib, d.cuMemsetD8Async, "cuMemsetD8Async", missing);
  resolve(lib, d.cuStreamCreate, "cuStreamCreate", missing);
  resolve(lib, d.cuStreamDestroy, "cuStreamDestroy_v2", missing);
  resolve(lib, d.cuStreamSynchronize, "cuStreamSynchronize", missing);
  resolve(lib, d.cuLaunchKernel, "cuLaunchKernel", missing);
  resolve(lib, d.cuEventCreate, "cuEventCreate", missing);
  resolve(lib, d.cuEventRecord, "cuEventRecord", missing);
  resolve(lib, d.cuEventSynchronize, "cuEventSynchronize", missing);
  // CUDA 12.8 added cuEventElapsedTime_v2 (cuda.h 13 renames to it); older
  // drivers have only the original, with the same signature.
  std::string no_v2;
  if (!resolve(lib, d.cuEventElapsedTime, "cuEventElapsedTime_v2", no_v2))
    resolve(lib, d.cuEventElapsedTime, "cuEventElapsedTime", missing);
  resolve(lib, d.cuEventDestroy, "cuEventDestroy_v2", missing);
  resolve(lib, d.cuStreamBeginCapture, "cuStreamBeginCapture_v2", missing);
  resolve(lib, d.cuStreamEndCapture, "cuStreamEndCapture", missing);
  resolve(lib, d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", missing);
  resolve(lib, d.cuGraphLaunch, "cuGraphLaunch", missing);
  resolve(lib, d.cuGraphExecDestroy, "cuGraphExecDestroy", missing);
  resolve(lib, d.cuGraphDestroy, "cuGraphDestroy", missing);
  if (!missing.empty()) {
    r.error = cat(kNotAvailable, path, " lacks driver entry points (",
                  missing, "); the NVIDIA driver is too old for this runtime "
                  "(CUDA 12 or newer is needed)");
    return r;
  }

  CUresult init = d.cuInit(0);
  if (init != CUDA_SUCCESS) {
    r.error = cat(kNotAvailable, "cuInit failed: ", cuda_error_text(d, init),
                  init == CUDA_ERROR_NO_DEVICE ? kAdvice : "");
    return r;
  }
  int count = 0;
  CUresult rc = d.cuDeviceGetCount(&count);
  if (rc != CUDA_SUCCESS) {
    r.error = cat(kNotAvailable, "cuDeviceGetCount failed: ",
                  cuda_error_text(d, rc));
    return r;
  }
  if (count <= 0)
    r.error = cat(kNotAvailable, "the driver reports no CUDA device", kAdvice);
  return r;
}

} // namespace

const CudaDriver &cuda_driver() {
  // Loaded once per process: dlopen and cuInit are not repeated, and a
  // machine without a driver fails fast with the same message every time.
  static std::once_flag once;
  static LoadResult result;
  std::call_once(once, [] { result = load(); });
  if (!result.error.empty())
    throw Error(LLMC_ERR_UNSUPPORTED, result.error);
  return result.driver;
}

std::string cuda_error_text(const CudaDriver &cu, CUresult result) {
  const char *name = nullptr;
  const char *text = nullptr;
  if (!cu.cuGetErrorName || cu.cuGetErrorName(result, &name) != CUDA_SUCCESS ||
      !name)
    return cat("CUDA error ", result);
  if (!cu.cuGetErrorString || cu.cuGetErrorString(result, &text) != CUDA_SUCCESS ||
      !text)
    return name;
  return cat(name, " (", text, ")");
}

void cuda_check(const CudaDriver &cu, CUresult result, const std::string &what) {
  constexpr CUresult kOutOfMemory = 2; // CUDA_ERROR_OUT_OF_MEMORY
  if (result == CUDA_SUCCESS)
    return;
  throw Error(result == kOutOfMemory ? LLMC_ERR_OUT_OF_MEMORY : LLMC_ERR_INTERNAL,
              cat(what, ": ", cuda_error_text(cu, result)));
}

} // namespace llmc::rt
