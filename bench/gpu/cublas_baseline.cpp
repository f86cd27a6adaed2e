// cublas-baseline: cuBLAS bf16 GEMV/GEMM and device-copy bandwidth on the GPU, the yardstick for llmc's kernels.
//
// Usage (on a machine with an NVIDIA GPU; scripts/gpu-check.sh runs it):
//   build/bin/cublas-baseline [--reps N] [--warmup N] [--copy-mib N] [--device N]
// Prints one Markdown table:
//   - device-to-device cuMemcpy of --copy-mib MiB (default 1024): read + write
//     GB/s, the measured bandwidth ceiling the GEMV rows are compared with;
//   - cublasGemmEx bf16 x bf16 -> f32 (f32 accumulation) for the decode
//     projections of LLaMA-3-8B as GEMVs (N = 1): GB/s of weights and
//     vectors moved, and the share of the copy bandwidth;
//   - the same weights as prefill GEMMs with T = 512 and 2048 tokens: TFLOP/s.
// Each time is the median of --reps samples (default 20) after --warmup calls
// (default 5); a sample times enough back-to-back calls between two CUDA
// events to last at least 200 us. GEMV weights rotate through enough copies
// to exceed 3x the L2 cache, so they stream from memory as in a real decode.
//
// Neither libcuda nor cuBLAS is linked: the driver comes from the runtime's
// loader (runtime/src/cuda_driver.h, dlopen of libcuda.so.1) and cuBLAS is
// dlopened here (libcublas.so.13, .12, then libcublas.so); cublas_api.h is
// used for its declarations only. Without cuBLAS one line says so and the
// copy row is still measured. Exit status 1 when CUDA is not usable or a call
// fails.
#include "cuda_driver.h"

#include <cublas_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <string>
#include <vector>

namespace rt = llmc::rt;

namespace {

/// Shortest sample: event timing resolution is about a microsecond.
constexpr double kMinSampleMs = 0.2;
/// GEMV weights span at least this many L2 caches across their copies.
constexpr int64_t kL2Multiple = 3;
/// Elements of the random bf16 pattern that fills device buffers.
constexpr size_t kPatternElements = size_t(1) << 22;

/// The CUDA driver's event API (not in the runtime's driver table), from the
/// library the runtime has loaded.
struct CUevent_st;
using CUevent = CUevent_st *;
struct EventAPI {
  rt::CUresult (*create)(CUevent *, unsigned);
  rt::CUresult (*record)(CUevent, rt::CUstream);
  rt::CUresult (*synchronize)(CUevent);
  rt::CUresult (*elapsed)(float *, CUevent, CUevent);
  rt::CUresult (*destroy)(CUevent);
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "cublas-baseline: %s\n", message.c_str());
  std::exit(1);
}

template <typename Fn> void resolve(void *lib, Fn &slot, const char *name) {
  slot = reinterpret_cast<Fn>(::dlsym(lib, name));
  if (!slot)
    die(std::string("the CUDA driver lacks ") + name);
}

EventAPI loadEventAPI() {
  // The runtime loaded $LLMC_CUDA_DRIVER or libcuda.so.1; RTLD_NOLOAD finds
  // that same library.
  const char *override_path = std::getenv("LLMC_CUDA_DRIVER");
  const char *path = override_path && *override_path ? override_path : "libcuda.so.1";
  void *lib = ::dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (!lib)
    die(std::string("cannot find the loaded CUDA driver ") + path);
  EventAPI api{};
  resolve(lib, api.create, "cuEventCreate");
  resolve(lib, api.record, "cuEventRecord");
  resolve(lib, api.synchronize, "cuEventSynchronize");
  resolve(lib, api.destroy, "cuEventDestroy_v2");
  // cuda.h maps cuEventElapsedTime to _v2 since CUDA 12.8; older drivers
  // have only the first version (same signature).
  api.elapsed = reinterpret_cast<decltype(api.elapsed)>(
      ::dlsym(lib, "cuEventElapsedTime_v2"));
  if (!api.elapsed)
    resolve(lib, api.elapsed, "cuEventElapsedTime");
  return api;
}

/// cublasGemmEx's C signature; checked against cublas_api.h below without
/// referencing the symbol (which would need libcublas at link time).
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                    cublasOperation_t, int, int, int,
                                    const void *, const void *, cudaDataType,
                                    int, const void *, cudaDataType, int,
                                    const void *, void *, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
static_assert(sizeof(decltype(static_cast<GemmExFn>(&cublasGemmEx))) > 0,
              "cublasGemmEx's declaration differs from GemmExFn");

struct Cublas {
  void *lib = nullptr;
  std::string library;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) setStream = nullptr;
  decltype(&cublasGetVersion_v2) getVersion = nullptr;
  GemmExFn gemmEx = nullptr;
};

/// cuBLAS, or an empty `lib` and the reason in `why`.
Cublas loadCublas(std::string &why) {
  Cublas blas;
  for (const char *name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
    blas.lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (blas.lib) {
      blas.library = name;
      break;
    }
    const char *error = ::dlerror();
    why = std::string(error ? error : name);
  }
  if (!blas.lib)
    return blas;
  blas.create = reinterpret_cast<decltype(blas.create)>(::dlsym(blas.lib, "cublasCreate_v2"));
  blas.destroy = reinterpret_cast<decltype(blas.destroy)>(::dlsym(blas.lib, "cublasDestroy_v2"));
  blas.setStream = reinterpret_cast<decltype(blas.setStream)>(::dlsym(blas.lib, "cublasSetStream_v2"));
  blas.getVersion = reinterpret_cast<decltype(blas.getVersion)>(::dlsym(blas.lib, "cublasGetVersion_v2"));
  blas.gemmEx = reinterpret_cast<GemmExFn>(::dlsym(blas.lib, "cublasGemmEx"));
  if (!blas.create || !blas.destroy || !blas.setStream || !blas.getVersion ||
      !blas.gemmEx) {
    why = blas.library + " lacks cublasCreate_v2/cublasGemmEx";
    blas.lib = nullptr;
  }
  return blas;
}

struct Options {
  int reps = 20;
  int warmup = 5;
  int64_t copyMiB = 1024;
  int device = 0;
};

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc)
      die("usage: cublas-baseline [--reps N] [--warmup N] [--copy-mib N] [--device N]");
    long value = std::strtol(argv[++i], nullptr, 10);
    if (flag == "--reps" && value > 0)
      options.reps = int(value);
    else if (flag == "--warmup" && value >= 0)
      options.warmup = int(value);
    else if (flag == "--copy-mib" && value > 0)
      options.copyMiB = value;
    else if (flag == "--device" && value >= 0)
      options.device = int(value);
    else
      die("bad option " + flag + " " + argv[i]);
  }
  return options;
}

/// A device allocation freed on scope exit.
class DeviceBuffer {
public:
  DeviceBuffer(const rt::CudaDriver &cu, size_t bytes) : cu_(cu), bytes_(bytes) {
    rt::cuda_check(cu, cu.cuMemAlloc(&ptr_, bytes),
                   "cuMemAlloc of " + std::to_string(bytes) + " bytes");
  }
  DeviceBuffer(DeviceBuffer &&other) noexcept
      : cu_(other.cu_), ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = 0;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (ptr_)
      cu_.cuMemFree(ptr_);
  }
  rt::CUdeviceptr get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

private:
  const rt::CudaDriver &cu_;
  rt::CUdeviceptr ptr_ = 0;
  size_t bytes_;
};

/// Measures calls on one stream with CUDA events.
class Timer {
public:
  Timer(const rt::CudaDriver &cu, const EventAPI &events, rt::CUstream stream,
        const Options &options)
      : cu_(cu), events_(events), stream_(stream), options_(options) {
    rt::cuda_check(cu, events.create(&start_, 0), "cuEventCreate");
    rt::cuda_check(cu, events.create(&stop_, 0), "cuEventCreate");
  }
  ~Timer() {
    events_.destroy(start_);
    events_.destroy(stop_);
  }

  /// Median milliseconds per call of `call(i)` (i counts calls, so that
  /// callers can rotate buffers).
  double medianMs(const std::function<void(int64_t)> &call) {
    int64_t index = 0;
    for (int i = 0; i < options_.warmup; ++i)
      call(index++);
    double single = sample(call, index, 1);
    int64_t inner = std::clamp<int64_t>(
        int64_t(std::ceil(kMinSampleMs / std::max(single, 1e-6))), 1, 1000);
    std::vector<double> samples;
    for (int r = 0; r < options_.reps; ++r)
      samples.push_back(sample(call, index, inner) / double(inner));
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
  }

private:
  double sample(const std::function<void(int64_t)> &call, int64_t &index,
                int64_t count) {
    rt::cuda_check(cu_, events_.record(start_, stream_), "cuEventRecord");
    for (int64_t i = 0; i < count; ++i)
      call(index++);
    rt::cuda_check(cu_, events_.record(stop_, stream_), "cuEventRecord");
    rt::cuda_check(cu_, events_.synchronize(stop_), "cuEventSynchronize");
    float ms = 0;
    rt::cuda_check(cu_, events_.elapsed(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }

  const rt::CudaDriver &cu_;
  const EventAPI &events_;
  rt::CUstream stream_;
  const Options &options_;
  CUevent start_ = nullptr, stop_ = nullptr;
};

/// Fills `buffer` with small random bf16 values (a repeated pattern): GEMMs
/// on zeros would draw less power than on real data.
void fillRandomBF16(const rt::CudaDriver &cu, const DeviceBuffer &buffer) {
  static std::vector<uint16_t> pattern = [] {
    std::vector<uint16_t> values(kPatternElements);
    uint32_t state = 12345;
    for (uint16_t &v : values) {
      state = state * 1664525u + 1013904223u;
      float f = (float(state >> 8) / float(1u << 24) - 0.5f) * 0.25f;
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      v = uint16_t(bits >> 16);
    }
    return values;
  }();
  size_t chunk = pattern.size() * sizeof(uint16_t);
  for (size_t offset = 0; offset < buffer.bytes(); offset += chunk)
    rt::cuda_check(cu, cu.cuMemcpyHtoD(buffer.get() + offset, pattern.data(),
                                       std::min(chunk, buffer.bytes() - offset)),
                   "cuMemcpyHtoD");
}

struct Row {
  std::string what, shape;
  double us, gbs, tflops; // < 0: not applicable
  std::string share;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
};

/// One projection: out-features M, in-features K (a row-major [M, K]
/// weight, as in Hugging Face checkpoints).
struct Projection {
  const char *name;
  int64_t m, k;
};

/// LLaMA-3-8B's projections: q and o, k and v (8 KV heads), gate and up,
/// down, and the classifier.
constexpr Projection kProjections[] = {
    {"q/o_proj", 4096, 4096},      {"k/v_proj", 1024, 4096},
    {"gate/up_proj", 14336, 4096}, {"down_proj", 4096, 14336},
    {"lm_head", 128256, 4096}};

/// Prefill lengths of the GEMM rows.
constexpr int64_t kPrefillTokens[] = {512, 2048};

/// Y[T, M] = X[T, K] W[M, K]^T in cuBLAS's column-major terms:
/// C (M x T, ld M) = op_T(A: K x M, ld K) * B (K x T, ld K).
Row measureGemm(const rt::CudaDriver &cu, const Cublas &blas,
                cublasHandle_t handle, Timer &timer, const Projection &p,
                int64_t tokens, int64_t l2Bytes) {
  int64_t weightBytes = p.m * p.k * 2;
  int64_t copies = tokens == 1 ? std::max<int64_t>(
                                     1, (kL2Multiple * l2Bytes + weightBytes - 1) / weightBytes)
                               : 1;
  std::vector<DeviceBuffer> weights;
  for (int64_t c = 0; c < copies; ++c) {
    weights.emplace_back(cu, size_t(weightBytes));
    fillRandomBF16(cu, weights.back());
  }
  DeviceBuffer x(cu, size_t(p.k * tokens * 2));
  fillRandomBF16(cu, x);
  DeviceBuffer y(cu, size_t(p.m * tokens * 4));
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  double ms = timer.medianMs([&](int64_t i) {
    cublasStatus_t s = blas.gemmEx(
        handle, CUBLAS_OP_T, CUBLAS_OP_N, int(p.m), int(tokens), int(p.k), &alpha,
        reinterpret_cast<const void *>(weights[size_t(i % copies)].get()), CUDA_R_16BF,
        int(p.k), reinterpret_cast<const void *>(x.get()), CUDA_R_16BF, int(p.k),
        &beta, reinterpret_cast<void *>(y.get()), CUDA_R_32F, int(p.m),
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s != CUBLAS_STATUS_SUCCESS && status == CUBLAS_STATUS_SUCCESS)
      status = s;
  });
  double bytes = double(weightBytes) + double(p.k * tokens * 2) + double(p.m * tokens * 4);
  double flops = 2.0 * double(p.m) * double(p.k) * double(tokens);
  Row row;
  row.status = status;
  row.what = tokens == 1 ? std::string("GEMV ") + p.name
                         : std::string("GEMM ") + p.name + " T=" + std::to_string(tokens);
  row.shape = std::to_string(p.m) + "x" + std::to_string(tokens) + "x" + std::to_string(p.k);
  row.us = ms * 1e3;
  row.gbs = bytes / (ms * 1e-3) / 1e9;
  row.tflops = flops / (ms * 1e-3) / 1e12;
  return row;
}

std::string format(double value, const char *spec) {
  if (value < 0)
    return "-";
  char text[64];
  std::snprintf(text, sizeof text, spec, value);
  return text;
}

int run(const Options &options) {
  const rt::CudaDriver &cu = rt::cuda_driver();
  EventAPI events = loadEventAPI();
  rt::CUdevice device = 0;
  rt::cuda_check(cu, cu.cuDeviceGet(&device, options.device), "cuDeviceGet");
  rt::CUcontext context = nullptr;
  rt::cuda_check(cu, cu.cuDevicePrimaryCtxRetain(&context, device),
                 "cuDevicePrimaryCtxRetain");
  rt::cuda_check(cu, cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  rt::CUstream stream = nullptr;
  rt::cuda_check(cu, cu.cuStreamCreate(&stream, rt::CU_STREAM_NON_BLOCKING),
                 "cuStreamCreate");

  char name[256] = {};
  cu.cuDeviceGetName(name, sizeof name, device);
  int major = 0, minor = 0, l2 = 0, driverVersion = 0;
  cu.cuDeviceGetAttribute(&major, rt::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  cu.cuDeviceGetAttribute(&minor, rt::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  constexpr int kL2CacheSizeAttribute = 38; // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
  cu.cuDeviceGetAttribute(&l2, kL2CacheSizeAttribute, device);
  cu.cuDriverGetVersion(&driverVersion);
  std::printf("device %d: %s (sm_%d%d), L2 %d MiB, driver API %d\n", options.device,
              name, major, minor, l2 >> 20, driverVersion);

  std::vector<Row> rows;
  Timer timer(cu, events, stream, options);
  double copyGBs = 0;
  {
    size_t bytes = size_t(options.copyMiB) << 20;
    DeviceBuffer source(cu, bytes), target(cu, bytes);
    fillRandomBF16(cu, source);
    double ms = timer.medianMs([&](int64_t) {
      rt::cuda_check(cu, cu.cuMemcpyDtoDAsync(target.get(), source.get(), bytes, stream),
                     "cuMemcpyDtoDAsync");
    });
    copyGBs = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
    rows.push_back({"device copy (read + write)", std::to_string(options.copyMiB) + " MiB",
                    ms * 1e3, copyGBs, -1, "100%", CUBLAS_STATUS_SUCCESS});
  }

  std::string why;
  bool failed = false;
  Cublas blas = loadCublas(why);
  cublasHandle_t handle = nullptr;
  if (!blas.lib) {
    std::printf("cuBLAS not available (%s): GEMV/GEMM rows skipped\n", why.c_str());
  } else if (cublasStatus_t created = blas.create(&handle);
             created != CUBLAS_STATUS_SUCCESS) {
    std::printf("cuBLAS unusable: cublasCreate returned status %d: GEMV/GEMM rows skipped\n",
                int(created));
    failed = true;
  } else {
    blas.setStream(handle, reinterpret_cast<cudaStream_t>(stream));
    int version = 0;
    blas.getVersion(handle, &version);
    std::printf("cuBLAS %d (%s): cublasGemmEx bf16 x bf16 -> f32, f32 accumulation\n",
                version, blas.library.c_str());
    for (const Projection &p : kProjections) {
      Row row = measureGemm(cu, blas, handle, timer, p, 1, l2);
      row.share = format(100.0 * row.gbs / copyGBs, "%.0f%%");
      rows.push_back(row);
    }
    for (int64_t tokens : kPrefillTokens)
      for (const Projection &p : kProjections)
        rows.push_back(measureGemm(cu, blas, handle, timer, p, tokens, l2));
    blas.destroy(handle);
  }
  cu.cuStreamDestroy(stream);

  std::printf("\n| measurement | M x N x K | time (us) | GB/s | TFLOP/s | of copy bandwidth |\n"
              "|---|---|---:|---:|---:|---:|\n");
  for (const Row &row : rows) {
    if (row.status != CUBLAS_STATUS_SUCCESS) {
      std::printf("| %s | %s | cublasGemmEx failed: status %d | | | |\n", row.what.c_str(),
                  row.shape.c_str(), int(row.status));
      failed = true;
      continue;
    }
    std::printf("| %s | %s | %s | %s | %s | %s |\n", row.what.c_str(), row.shape.c_str(),
                format(row.us, "%.1f").c_str(), format(row.gbs, "%.0f").c_str(),
                format(row.tflops, "%.1f").c_str(), row.share.empty() ? "-" : row.share.c_str());
  }
  std::printf("\nGB/s: bytes of weights, inputs and outputs (copy: read + written) per "
              "second; median of %d samples after %d warm-up calls.\n",
              options.reps, options.warmup);
  return failed ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  try {
    return run(options);
  } catch (const std::exception &error) {
    die(error.what());
  }
}
