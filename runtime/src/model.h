// A compiled model: the artifact's manifest plus its loaded library and entry points.
#ifndef LLMC_RUNTIME_MODEL_H
#define LLMC_RUNTIME_MODEL_H

#include "artifact_manifest.h"
#include "cpu_threads.h"
#include "cuda_module.h"
#include "llmc/runtime.h"
#include "shared_library.h"

#include <cstdint>
#include <memory>
#include <string>

namespace llmc::rt {

/// The entry-point ABI (abi_version 2), exactly as `llmc compile` emits it.
using PrefillFn = llmc_prefill_fn;
using DecodeFn = llmc_decode_fn;

/// Immutable after open, so sessions on different threads share it freely.
/// Held by shared_ptr: each session keeps the library mapped while it runs.
class Model {
public:
  /// `path`: the artifact directory or its manifest file. Throws Error.
  static std::shared_ptr<const Model> open(const std::string &path);
  /// Same manifest checks, but the entry points come from the caller (a
  /// program that statically links lib<name>.a); no library is loaded. A
  /// CUDA artifact's images and host-API global are then looked up in the
  /// program itself, which must export them (link with -rdynamic).
  static std::shared_ptr<const Model> open_linked(const std::string &path,
                                                  PrefillFn prefill,
                                                  DecodeFn decode);

  const Manifest &manifest() const { return manifest_; }
  const std::string &directory() const { return dir_; }
  PrefillFn prefill() const { return prefill_; }
  DecodeFn decode() const { return decode_; }
  bool is_eos(int32_t token) const;
  /// The CUDA images, host-API slot and loaded module of a CUDA artifact;
  /// nullptr for a CPU one.
  CudaProgram *cuda() const { return cuda_.get(); }
  /// libomp's settings for the compiled CPU code (no-ops without libomp).
  const CpuThreads &cpu_threads() const { return cpu_threads_; }

private:
  Model(Manifest manifest, std::string dir);
  static std::shared_ptr<Model> open_manifest(const std::string &path);

  Manifest manifest_;
  std::string dir_;
  std::unique_ptr<SharedLibrary> library_;
  PrefillFn prefill_ = nullptr;
  DecodeFn decode_ = nullptr;
  CpuThreads cpu_threads_; // no-ops until open / open_linked resolve libomp
  // After library_: released first, while the library is still mapped.
  std::unique_ptr<CudaProgram> cuda_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_MODEL_H
