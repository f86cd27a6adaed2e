// Runs a manifest of kernel launches (test/lib/llmc_cuda_module.py's Manifest) on the GPU through the CUDA driver API.
//
// Usage: kernel_manifest_runner DIR. DIR/manifest.txt holds, one per line:
//   load NAME FILE        device buffer NAME with the bytes of DIR/FILE
//   alloc NAME BYTES      device buffer NAME filled with 0xCD bytes
//   random NAME TYPE COUNT SEED SCALE
//                         device buffer NAME of COUNT f32/bf16/f16 elements
//                         from the stream SEED (llmc_cuda_module.py's
//                         random_values, bit for bit: inputs that need not
//                         travel as files)
//   fill NAME OFFSET BYTES BYTE
//                         bytes [OFFSET, OFFSET + BYTES) of NAME set to BYTE
//   launch MODULE KERNEL GX GY GZ BX BY BZ, then argument lines up to "end":
//     mem NAME RANK DIMS...   a memref descriptor of buffer NAME (allocated =
//                             aligned pointer, offset 0, DIMS, row-major
//                             strides), one kernel parameter per field
//     f32 VALUE / i32 VALUE   a scalar parameter
//   dump NAME FILE        buffer NAME copied to DIR/out/FILE
// MODULE's PTX is DIR/MODULE_sm_90.ptx on sm_90 and newer GPUs, else
// DIR/MODULE_sm_80.ptx. libcuda is loaded with dlopen (nothing CUDA linked).
#include <dlfcn.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef unsigned long long CUdeviceptr;

#define FN(name, ...)                                                          \
  typedef CUresult (*name##_t)(__VA_ARGS__);                                   \
  static name##_t name;
FN(cuInit, unsigned)
FN(cuDeviceGet, CUdevice *, int)
FN(cuDeviceGetAttribute, int *, int, CUdevice)
FN(cuDevicePrimaryCtxRetain, CUcontext *, CUdevice)
FN(cuCtxSetCurrent, CUcontext)
FN(cuModuleLoadDataEx, CUmodule *, const void *, unsigned, int *, void **)
FN(cuModuleGetFunction, CUfunction *, CUmodule, const char *)
FN(cuMemAlloc_v2, CUdeviceptr *, size_t)
FN(cuMemsetD8_v2, CUdeviceptr, unsigned char, size_t)
FN(cuMemcpyHtoD_v2, CUdeviceptr, const void *, size_t)
FN(cuMemcpyDtoH_v2, void *, CUdeviceptr, size_t)
FN(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned,
   unsigned, unsigned, unsigned, void *, void **, void **)
FN(cuCtxSynchronize, void)
FN(cuGetErrorString, CUresult, const char **)

/// CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR.
constexpr int kComputeMajor = 75, kComputeMinor = 76;
/// CU_JIT_ERROR_LOG_BUFFER / CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES.
constexpr int kJitErrorLog = 5, kJitErrorLogSize = 6;

static void check(CUresult result, const std::string &what) {
  if (result == 0)
    return;
  const char *text = "?";
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  fprintf(stderr, "CUDA error %d (%s) in %s\n", result, text, what.c_str());
  exit(2);
}

static std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fprintf(stderr, "cannot read %s\n", path.c_str());
    exit(2);
  }
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

static void fail(const std::string &message) {
  fprintf(stderr, "kernel_manifest_runner: %s\n", message.c_str());
  exit(2);
}

/// splitmix64's output function, as llmc_cuda_module.random_values.
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The bytes of a `random` line: element i is k * 2^-b * scale with k
/// uniform in [-2^b, 2^b] and b the type's fraction bits, exact in the type
/// (scale a power of two; f16 values normal: scale in [2^-4, 2^15]).
static std::vector<char> randomBytes(const std::string &name,
                                     const std::string &type, uint64_t count,
                                     uint64_t seed, double scale) {
  int exponent;
  if (std::frexp(scale, &exponent) != 0.5)
    fail("random " + name + ": scale " + std::to_string(scale) +
         " is not a power of two");
  int bits = type == "f32" ? 23 : type == "bf16" ? 7 : type == "f16" ? 10 : -1;
  if (bits < 0)
    fail("random " + name + ": type '" + type + "' is not f32, bf16 or f16");
  if (type == "f16" && (scale < 0x1p-4 || scale > 0x1p15))
    fail("random " + name + ": f16 scale " + std::to_string(scale) +
         " is outside [2^-4, 2^15]");
  size_t width = type == "f32" ? 4 : 2;
  std::vector<char> bytes(count * width);
  uint64_t levels = (uint64_t{2} << bits) + 1;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t z = mix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
    int64_t k = static_cast<int64_t>(z % levels) - (int64_t{1} << bits);
    float value = static_cast<float>(std::ldexp(static_cast<double>(k) * scale, -bits));
    uint32_t f;
    memcpy(&f, &value, 4);
    if (type == "f32") {
      memcpy(&bytes[i * 4], &f, 4);
      continue;
    }
    uint16_t half;
    if (type == "bf16") {
      half = static_cast<uint16_t>(f >> 16); // exact: 8 significant bits
    } else if (k == 0) {
      half = 0;
    } else { // normal and at most 11 significant bits: rebias, no rounding
      uint32_t sign = (f >> 16) & 0x8000, exp = (f >> 23) & 0xFF;
      half = static_cast<uint16_t>(sign | ((exp - 127 + 15) << 10) |
                                   ((f >> 13) & 0x3FF));
    }
    memcpy(&bytes[i * 2], &half, 2);
  }
  return bytes;
}

static void loadDriver() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "libcuda.so.1 not found\n");
    exit(2);
  }
#define LOAD(name)                                                             \
  name = (name##_t)dlsym(lib, #name);                                          \
  if (!name) {                                                                 \
    fprintf(stderr, "libcuda lacks %s\n", #name);                              \
    exit(2);                                                                   \
  }
  LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuDeviceGetAttribute)
  LOAD(cuDevicePrimaryCtxRetain) LOAD(cuCtxSetCurrent) LOAD(cuModuleLoadDataEx)
  LOAD(cuModuleGetFunction) LOAD(cuMemAlloc_v2) LOAD(cuMemsetD8_v2)
  LOAD(cuMemcpyHtoD_v2) LOAD(cuMemcpyDtoH_v2) LOAD(cuLaunchKernel)
  LOAD(cuCtxSynchronize) LOAD(cuGetErrorString)
#undef LOAD
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: kernel_manifest_runner DIR\n");
    return 2;
  }
  std::string dir = argv[1], outDir = dir + "/out";
  mkdir(outDir.c_str(), 0755);
  loadDriver();
  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  int major = 0, minor = 0;
  check(cuDeviceGetAttribute(&major, kComputeMajor, device), "attribute");
  check(cuDeviceGetAttribute(&minor, kComputeMinor, device), "attribute");
  const char *arch = major * 10 + minor >= 90 ? "sm_90" : "sm_80";
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "context");
  check(cuCtxSetCurrent(context), "context");
  printf("device sm_%d%d, PTX for %s\n", major, minor, arch);

  std::map<std::string, CUmodule> modules;
  std::map<std::string, std::pair<CUdeviceptr, size_t>> buffers;
  auto allocate = [&](const std::string &name, size_t bytes) {
    CUdeviceptr pointer;
    check(cuMemAlloc_v2(&pointer, bytes ? bytes : 16), "alloc " + name);
    buffers[name] = {pointer, bytes};
    return pointer;
  };
  std::ifstream manifest(dir + "/manifest.txt");
  if (!manifest)
    fail("cannot read " + dir + "/manifest.txt");
  std::string line;
  int launches = 0;
  while (std::getline(manifest, line)) {
    std::istringstream in(line);
    std::string command, name;
    in >> command >> name;
    if (command == "load") {
      std::string file;
      in >> file;
      std::string data = readFile(dir + "/" + file);
      CUdeviceptr pointer = allocate(name, data.size());
      check(cuMemcpyHtoD_v2(pointer, data.data(), data.size()), "load " + name);
    } else if (command == "alloc") {
      size_t bytes;
      in >> bytes;
      check(cuMemsetD8_v2(allocate(name, bytes), 0xCD, bytes ? bytes : 16),
            "memset " + name);
    } else if (command == "random") {
      std::string type;
      uint64_t count = 0, seed = 0;
      double scale = 0;
      if (!(in >> type >> count >> seed >> scale))
        fail("bad line: " + line);
      std::vector<char> data = randomBytes(name, type, count, seed, scale);
      CUdeviceptr pointer = allocate(name, data.size());
      check(cuMemcpyHtoD_v2(pointer, data.data(), data.size()), "random " + name);
    } else if (command == "fill") {
      size_t offset = 0, bytes = 0;
      unsigned value = 0;
      if (!(in >> offset >> bytes >> value) || value > 255)
        fail("bad line: " + line);
      auto found = buffers.find(name);
      if (found == buffers.end())
        fail("fill " + name + ": no such buffer");
      if (offset > found->second.second || bytes > found->second.second - offset)
        fail("fill " + name + ": bytes [" + std::to_string(offset) + ", " +
             std::to_string(offset + bytes) + ") outside its " +
             std::to_string(found->second.second) + " bytes");
      check(cuMemsetD8_v2(found->second.first + offset, (unsigned char)value, bytes),
            "fill " + name);
    } else if (command == "dump") {
      std::string file;
      in >> file;
      auto [pointer, bytes] = buffers.at(name);
      std::vector<char> host(bytes);
      check(cuMemcpyDtoH_v2(host.data(), pointer, bytes), "dump " + name);
      std::ofstream(outDir + "/" + file, std::ios::binary)
          .write(host.data(), bytes);
    } else if (command == "launch") {
      std::string kernel;
      unsigned grid[3], block[3];
      in >> kernel >> grid[0] >> grid[1] >> grid[2] >> block[0] >> block[1] >>
          block[2];
      if (!modules.count(name)) {
        std::string ptx = readFile(dir + "/" + name + "_" + arch + ".ptx");
        char log[8192] = {0};
        int options[] = {kJitErrorLog, kJitErrorLogSize};
        void *values[] = {log, (void *)sizeof(log)};
        CUresult result =
            cuModuleLoadDataEx(&modules[name], ptx.c_str(), 2, options, values);
        if (result)
          fprintf(stderr, "%s\n", log);
        check(result, "loading " + name);
      }
      CUfunction function;
      check(cuModuleGetFunction(&function, modules[name], kernel.c_str()),
            kernel);
      // Each parameter's bytes, kept alive until the launch.
      std::vector<std::vector<char>> storage;
      auto push = [&](const void *value, size_t bytes) {
        storage.emplace_back((const char *)value, (const char *)value + bytes);
      };
      std::string argument;
      while (std::getline(manifest, argument) && argument != "end") {
        std::istringstream arg(argument);
        std::string kind;
        arg >> kind;
        if (kind == "mem") {
          std::string buffer;
          int rank;
          arg >> buffer >> rank;
          std::vector<int64_t> dims(rank);
          for (int64_t &d : dims)
            arg >> d;
          uint64_t pointer = buffers.at(buffer).first;
          int64_t offset = 0;
          push(&pointer, 8);
          push(&pointer, 8);
          push(&offset, 8);
          for (int64_t d : dims)
            push(&d, 8);
          for (int i = 0; i < rank; ++i) {
            int64_t stride = 1;
            for (int j = i + 1; j < rank; ++j)
              stride *= dims[j];
            push(&stride, 8);
          }
        } else if (kind == "f32") {
          float value;
          arg >> value;
          push(&value, 4);
        } else if (kind == "i32") {
          int32_t value;
          arg >> value;
          push(&value, 4);
        }
      }
      std::vector<void *> params;
      for (std::vector<char> &bytes : storage)
        params.push_back(bytes.data());
      check(cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                           block[1], block[2], 0, nullptr, params.data(),
                           nullptr),
            kernel);
      check(cuCtxSynchronize(), kernel);
      ++launches;
    } else if (!command.empty()) {
      fail("unknown command '" + command + "' in: " + line);
    }
  }
  printf("%d launches\n", launches);
  return 0;
}
