// The CUDA side of a compiled model: its embedded images and host-API slot, and the module loaded on the GPU.
#ifndef LLMC_RUNTIME_CUDA_MODULE_H
#define LLMC_RUNTIME_CUDA_MODULE_H

#include "artifact_manifest.h"
#include "cuda_driver.h"
#include "llmc/cuda_host_api.h"
#include "shared_library.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace llmc::rt {

/// The artifact's images loaded into the primary context of one GPU, plus the
/// kernels looked up so far. Owns one retain of the primary context: device
/// memory of every session lives in that context, so sessions hold this too.
class CudaModule {
public:
  ~CudaModule();
  CudaModule(const CudaModule &) = delete;
  CudaModule &operator=(const CudaModule &) = delete;

  const CudaDriver &driver() const { return cu_; }
  CUcontext context() const { return ctx_; }
  /// Makes the context current on the calling thread (the driver's current
  /// context is per thread, and sessions may move between threads).
  void make_current() const;
  /// "cuda:0 NVIDIA H200 (sm_90), sm_90 cubin".
  const std::string &description() const { return description_; }

  /// The kernel `name` (cached by the pointer, which is a constant of the
  /// artifact), opted in to `shared_bytes` of dynamic shared memory when that
  /// exceeds the default 48 KiB. nullptr with *error set on failure.
  /// Not thread-safe: callers hold the program's entry mutex.
  CUfunction function(const char *name, uint32_t shared_bytes, std::string *error);
  /// A kernel the image may lack (the sampling kernels, absent from
  /// artifacts compiled before them): nullptr with *error empty when the
  /// image has no such kernel, with *error set on any other failure. Not
  /// cached here (`name` need not outlive the call; callers keep the
  /// function), so it needs no lock.
  CUfunction find_function(const char *name, std::string *error) const;

private:
  friend class CudaProgram;
  explicit CudaModule(const CudaDriver &cu) : cu_(cu) {}

  struct Kernel {
    CUfunction function = nullptr;
    uint32_t shared_opt_in = 0; // dynamic shared bytes allowed so far
  };
  const CudaDriver &cu_;
  CUdevice device_ = 0;
  bool retained_ = false;
  CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  std::string description_;
  std::unordered_map<const char *, Kernel> kernels_;
};

/// One per CUDA model, created when the model opens: the image bytes and the
/// host-API global found in the library (checked against the manifest, no
/// driver needed), and the module, loaded when the first session needs it.
///
/// Thread-safety: the artifact's host code reads its API table from one
/// global per model, and the kernel cache is shared, so every entry-point
/// call of the model's sessions runs under entry_mutex() (only the enqueuing
/// host code; GPU work and copies run outside it).
class CudaProgram {
public:
  CudaProgram(const Manifest &manifest, const SharedLibrary &library);

  /// Loads the driver, picks the GPU ($LLMC_CUDA_DEVICE, default 0), retains
  /// its primary context and loads the best image for it (rank_cuda_images;
  /// the next one is tried when the driver rejects one). Loaded once and
  /// shared. Throws "CUDA is not available: ..." (LLMC_ERR_UNSUPPORTED)
  /// without a driver or GPU, LLMC_ERR_UNSUPPORTED when no image suits the
  /// GPU. Thread-safe.
  std::shared_ptr<CudaModule> module() const;

  std::mutex &entry_mutex() const { return entry_mutex_; }
  /// The artifact's `const llmc_cuda_host_api *` global.
  const llmc_cuda_host_api **host_api_slot() const { return host_api_slot_; }

private:
  std::shared_ptr<CudaModule> load() const;

  const Manifest &manifest_;
  const llmc_cuda_host_api **host_api_slot_ = nullptr;
  std::vector<const void *> image_data_; // parallel to manifest.cuda_images
  mutable std::mutex load_mutex_;
  mutable std::shared_ptr<CudaModule> module_;
  mutable std::mutex entry_mutex_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_MODULE_H
