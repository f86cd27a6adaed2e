// Runs a manifest of kernel launches (small_kernels_gpu.py) on the GPU through the CUDA driver API.
//
// Usage: kernel_manifest_runner DIR. DIR/manifest.txt holds, one per line:
//   load NAME FILE        device buffer NAME with the bytes of DIR/FILE
//   alloc NAME BYTES      device buffer NAME filled with 0xCD bytes
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

#include <cstdint>
#include <cstdio>
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
    }
  }
  printf("%d launches\n", launches);
  return 0;
}
