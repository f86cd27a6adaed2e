// CudaProgram: image symbols and host-API slot from the library; CudaModule: the GPU, its context, the loaded image.
#include "cuda_module.h"

#include "cuda_image_select.h"
#include "error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>

namespace llmc::rt {

namespace {

constexpr const char *kDeviceEnv = "LLMC_CUDA_DEVICE";
/// Dynamic shared memory a kernel may use without opting in (all GPUs since
/// sm_20); larger launches need cuFuncSetAttribute first.
constexpr uint32_t kDefaultSharedBytes = 48 * 1024;
/// PTX JIT error logs: long enough for a page of ptxas diagnostics.
constexpr size_t kJitLogBytes = 8192;
/// Device names are at most 256 bytes in cudaDeviceProp.
constexpr int kDeviceNameBytes = 256;

/// The size dlsym's symbol table records for `address`, or 0 when unknown
/// (a stripped or odd library): used to catch a manifest whose "bytes" does
/// not match the embedded image.
uint64_t symbol_size(const void *address) {
  Dl_info info;
  void *extra = nullptr;
  if (!::dladdr1(address, &info, &extra, RTLD_DL_SYMENT) || !extra ||
      info.dli_saddr != address)
    return 0;
  return static_cast<const ElfW(Sym) *>(extra)->st_size;
}

int device_ordinal(const CudaDriver &cu) {
  int count = 0;
  cuda_check(cu, cu.cuDeviceGetCount(&count), "cuDeviceGetCount");
  const char *env = std::getenv(kDeviceEnv);
  if (!env || !*env)
    return 0;
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(env, &end, 10);
  if (errno || end == env || *end || v < 0 || v >= count)
    fail(LLMC_ERR_INVALID_ARGUMENT, kDeviceEnv, "='", env,
         "' is not a CUDA device ordinal in [0, ", count, ")");
  return static_cast<int>(v);
}

} // namespace

// ---------------------------------------------------------------------------
// CudaModule

CudaModule::~CudaModule() {
  // Teardown errors are ignored: nothing can be done about them and a
  // destructor must not throw.
  if (ctx_)
    cu_.cuCtxSetCurrent(ctx_);
  if (module_)
    cu_.cuModuleUnload(module_);
  if (retained_)
    cu_.cuDevicePrimaryCtxRelease(device_);
}

void CudaModule::make_current() const {
  cuda_check(cu_, cu_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

CUfunction CudaModule::function(const char *name, uint32_t shared_bytes,
                                std::string *error) {
  Kernel &k = kernels_[name];
  if (!k.function) {
    CUresult r = cu_.cuModuleGetFunction(&k.function, module_, name);
    if (r != CUDA_SUCCESS) {
      k.function = nullptr;
      kernels_.erase(name);
      *error = cat("kernel '", name, "' is not in the loaded image: ",
                   cuda_error_text(cu_, r));
      return nullptr;
    }
  }
  if (shared_bytes > kDefaultSharedBytes && shared_bytes > k.shared_opt_in) {
    CUresult r = cu_.cuFuncSetAttribute(
        k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(shared_bytes));
    if (r != CUDA_SUCCESS) {
      *error = cat("kernel '", name, "' cannot use ", shared_bytes,
                   " bytes of dynamic shared memory: ", cuda_error_text(cu_, r));
      return nullptr;
    }
    k.shared_opt_in = shared_bytes;
  }
  return k.function;
}

CUfunction CudaModule::find_function(const char *name, std::string *error) const {
  CUfunction f = nullptr;
  CUresult r = cu_.cuModuleGetFunction(&f, module_, name);
  error->clear();
  if (r == CUDA_SUCCESS)
    return f;
  if (r != CUDA_ERROR_NOT_FOUND)
    *error = cat("looking up kernel '", name, "': ", cuda_error_text(cu_, r));
  return nullptr;
}

// ---------------------------------------------------------------------------
// CudaProgram

CudaProgram::CudaProgram(const Manifest &m, const SharedLibrary &lib)
    : manifest_(m) {
  host_api_slot_ = static_cast<const llmc_cuda_host_api **>(
      lib.lookup(m.cuda_host_api_symbol, "CUDA host API global"));
  for (const ManifestCudaImage &img : m.cuda_images) {
    const void *data =
        lib.lookup(img.symbol, cat("CUDA image (", img.arch, " ", img.format, ")"));
    uint64_t size = symbol_size(data);
    if (size != 0 && size != img.bytes)
      fail(LLMC_ERR_FORMAT, m.path, ": the ", img.arch, " ", img.format,
           " image '", img.symbol, "' has ", size, " bytes in ", lib.path(),
           " but the manifest says ", img.bytes);
    const auto *bytes = static_cast<const unsigned char *>(data);
    if (img.format == "ptx" && bytes[img.bytes - 1] != 0)
      fail(LLMC_ERR_FORMAT, m.path, ": the ", img.arch, " PTX image '",
           img.symbol, "' does not end with a NUL byte");
    if (img.format == "cubin" &&
        (img.bytes < 4 || std::memcmp(bytes, "\x7f" "ELF", 4) != 0))
      fail(LLMC_ERR_FORMAT, m.path, ": the ", img.arch, " cubin '", img.symbol,
           "' is not an ELF image");
    image_data_.push_back(data);
  }
}

std::shared_ptr<CudaModule> CudaProgram::module() const {
  std::lock_guard<std::mutex> lock(load_mutex_);
  if (!module_)
    module_ = load();
  return module_;
}

std::shared_ptr<CudaModule> CudaProgram::load() const {
  const CudaDriver &cu = cuda_driver();
  std::shared_ptr<CudaModule> mod(new CudaModule(cu));
  int ordinal = device_ordinal(cu);
  cuda_check(cu, cu.cuDeviceGet(&mod->device_, ordinal), "cuDeviceGet");
  int major = 0, minor = 0;
  cuda_check(cu, cu.cuDeviceGetAttribute(
                     &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                     mod->device_),
             "reading the GPU's compute capability");
  cuda_check(cu, cu.cuDeviceGetAttribute(
                     &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                     mod->device_),
             "reading the GPU's compute capability");
  char name[kDeviceNameBytes] = {};
  cuda_check(cu, cu.cuDeviceGetName(name, kDeviceNameBytes - 1, mod->device_),
             "cuDeviceGetName");
  int32_t sm = major * 10 + minor;
  std::string gpu = cat(sm_name(sm), " (", name, ")");

  const auto &images = manifest_.cuda_images;
  std::vector<size_t> order = rank_cuda_images(images, sm);
  if (order.empty())
    fail(LLMC_ERR_UNSUPPORTED, "artifact '", manifest_.name, "' was built for ",
         describe_cuda_images(images), "; this GPU is ", gpu,
         ": no cubin for ", sm_name(sm), " (or an older sm_", major,
         "x) and no PTX for ", sm_name(sm),
         " or older; recompile with --target=cuda:", sm_name(sm));

  cuda_check(cu, cu.cuDevicePrimaryCtxRetain(&mod->ctx_, mod->device_),
             cat("retaining the primary context of CUDA device ", ordinal));
  mod->retained_ = true;
  mod->make_current();

  std::string failures;
  for (size_t i : order) {
    const ManifestCudaImage &img = images[i];
    char log[kJitLogBytes] = {};
    int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(kJitLogBytes)};
    CUresult r = cu.cuModuleLoadDataEx(&mod->module_, image_data_[i], 2,
                                       options, values);
    if (r == CUDA_SUCCESS) {
      mod->description_ = cat("cuda:", ordinal, " ", name, " (", sm_name(sm),
                              "), ", img.arch, " ", img.format);
      return mod;
    }
    mod->module_ = nullptr;
    log[kJitLogBytes - 1] = 0;
    failures += cat(failures.empty() ? "" : "; ", img.arch, " ", img.format,
                    ": ", cuda_error_text(cu, r), *log ? cat(": ", log) : "");
  }
  fail(LLMC_ERR_UNSUPPORTED, "no image of artifact '", manifest_.name,
       "' loads on CUDA device ", ordinal, ", ", gpu, ": ", failures);
}

} // namespace llmc::rt
