// GPU check of llmc's llm.attention kernels: each run of cases.inc against a double-precision reference; bench runs timed.
//
// Usage: attention_gpu_check cases_sm_XX.ptx... (sections newer than the
// GPU are skipped). The launch shapes and kernel arguments mirror
// FlashAttentionKernel.cpp / DecodeAttentionKernel.cpp: memrefs as
// (allocated, aligned, offset, sizes..., strides...), the scale as f32.
#include <dlfcn.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef unsigned long long CUdeviceptr;

#define FN(name, ...) typedef CUresult (*name##_t)(__VA_ARGS__); static name##_t name;
FN(cuInit, unsigned)
FN(cuDeviceGet, CUdevice *, int)
FN(cuDeviceGetAttribute, int *, int, CUdevice)
FN(cuCtxCreate_v2, CUcontext *, unsigned, CUdevice)
FN(cuModuleLoadDataEx, CUmodule *, const void *, unsigned, int *, void **)
FN(cuModuleGetFunction, CUfunction *, CUmodule, const char *)
FN(cuMemAlloc_v2, CUdeviceptr *, size_t)
FN(cuMemFree_v2, CUdeviceptr)
FN(cuMemcpyHtoD_v2, CUdeviceptr, const void *, size_t)
FN(cuMemcpyDtoH_v2, void *, CUdeviceptr, size_t)
FN(cuMemsetD32_v2, CUdeviceptr, unsigned, size_t)
FN(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
   unsigned, unsigned, void *, void **, void **)
FN(cuCtxSynchronize, void)
FN(cuGetErrorString, CUresult, const char **)

static void check(CUresult r, const char *what) {
  if (r == 0) return;
  const char *s = "?";
  if (cuGetErrorString) cuGetErrorString(r, &s);
  fprintf(stderr, "CUDA error %d (%s) in %s\n", r, s, what);
  exit(2);
}

struct Config { int B, H, Hkv, Dh, S, staticS, kv, causal, window, pos, decode; };
struct Run { int config, T; std::vector<int> positions, valid; int bench; };
#include "cases.inc"

static int lanesPerVector(int headDim, int target) {
  int lanes = 1;
  while (lanes * 2 <= 32 && lanes * 2 * target <= headDim && headDim % (lanes * 2 * 4) == 0)
    lanes *= 2;
  return lanes;
}
static int headsPerBlock(int group, int maxHeads = 8) {
  for (int h = group < maxHeads ? group : maxHeads; h > 1; --h)
    if (group % h == 0) return h;
  return 1;
}
static const char *kvTag(int kv) { return kv == 0 ? "f32" : kv == 1 ? "bf16" : "f16"; }

static std::string suffix(const Config &c) {
  std::string s = "d" + std::to_string(c.Dh) + "_h" + std::to_string(c.H) + "_kv" +
                  std::to_string(c.Hkv) + "_s" + (c.staticS ? std::to_string(c.S) : "dyn") +
                  "_b" + std::to_string(c.B) + "_f32_" + kvTag(c.kv);
  if (!c.causal) return s + "_full";
  s += "_causal";
  if (c.window) s += "_w" + std::to_string(c.window);
  s += c.pos ? "_posi32" : "_nopos";
  return s;
}

static uint16_t toHalf(float f) { // exact for the values used (n/64, |n| <= 64), or NaN
  if (std::isnan(f)) return 0x7E00;
  if (f == 0) return 0;
  uint16_t sign = f < 0 ? 0x8000 : 0;
  float a = std::fabs(f);
  int e; float m = std::frexp(a, &e); // a = m * 2^e, m in [0.5,1)
  int exp = e - 1 + 15;
  uint16_t mant = (uint16_t)std::lround((m * 2 - 1) * 1024);
  return sign | (exp << 10) | mant;
}
static uint16_t toBF16(float f) {
  uint32_t u; memcpy(&u, &f, 4);
  if (std::isnan(f)) return 0x7FC0;
  return u >> 16;
}

/// A memref argument: allocated, aligned, offset, sizes, strides.
struct Args {
  std::vector<std::vector<unsigned char>> storage;
  std::vector<void *> pointers;
  template <typename T> void scalar(T v) {
    storage.emplace_back(sizeof(T));
    memcpy(storage.back().data(), &v, sizeof(T));
  }
  void memref(CUdeviceptr p, std::vector<long long> sizes) {
    scalar(p); scalar(p); scalar((long long)0);
    for (long long s : sizes) scalar(s);
    std::vector<long long> strides(sizes.size());
    long long st = 1;
    for (int i = (int)sizes.size() - 1; i >= 0; --i) { strides[i] = st; st *= sizes[i]; }
    for (long long s : strides) scalar(s);
  }
  void **get() {
    pointers.clear();
    for (auto &s : storage) pointers.push_back(s.data());
    return pointers.data();
  }
};

static CUdeviceptr upload(const void *data, size_t bytes) {
  CUdeviceptr p; check(cuMemAlloc_v2(&p, bytes + 256), "alloc");
  check(cuMemcpyHtoD_v2(p, data, bytes), "htod");
  return p;
}

int main(int argc, char **argv) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "no libcuda\n"); return 2; }
#define LOAD(name) name = (name##_t)dlsym(lib, #name); if (!name) { fprintf(stderr, "no %s\n", #name); return 2; }
  LOAD(cuInit) LOAD(cuDeviceGet) LOAD(cuDeviceGetAttribute) LOAD(cuCtxCreate_v2) LOAD(cuModuleLoadDataEx) LOAD(cuModuleGetFunction)
  LOAD(cuMemAlloc_v2) LOAD(cuMemFree_v2) LOAD(cuMemcpyHtoD_v2) LOAD(cuMemcpyDtoH_v2) LOAD(cuMemsetD32_v2)
  LOAD(cuLaunchKernel) LOAD(cuCtxSynchronize) LOAD(cuGetErrorString)
  check(cuInit(0), "init");
  CUdevice dev; check(cuDeviceGet(&dev, 0), "device");
  CUcontext ctx; check(cuCtxCreate_v2(&ctx, 0, dev), "ctx");
  int major = 0, minor = 0;
  check(cuDeviceGetAttribute(&major, 75, dev), "major");
  check(cuDeviceGetAttribute(&minor, 76, dev), "minor");
  int failures = 0;
  for (int m = 1; m < argc; ++m) {
    std::ifstream in(argv[m]);
    std::stringstream ss; ss << in.rdbuf();
    std::string ptx = ss.str();
    size_t target = ptx.find(".target sm_");
    if (target == std::string::npos) { fprintf(stderr, "%s: no .target\n", argv[m]); return 2; }
    int arch = atoi(ptx.c_str() + target + 11);
    if (arch > major * 10 + minor) {
      printf("== %s: sm_%d is newer than this GPU (sm_%d%d), skipped\n", argv[m], arch, major, minor);
      continue;
    }
    CUmodule module;
    char log[8192] = {0};
    int options[] = {5 /*CU_JIT_ERROR_LOG_BUFFER*/, 6 /*SIZE*/};
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    CUresult r = cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
    if (r) { fprintf(stderr, "%s\n", log); check(r, "module load"); }
    printf("== %s\n", argv[m]);
    std::mt19937 rng(1234);
    for (size_t ri = 0; ri < sizeof(kRuns) / sizeof(kRuns[0]); ++ri) {
      const Run &run = kRuns[ri];
      const Config &c = kConfigs[run.config];
      int B = c.B, T = run.T, H = c.H, Hkv = c.Hkv, Dh = c.Dh;
      int S = c.staticS ? c.S : T;
      int G = H / Hkv;
      std::uniform_int_distribution<int> small(-64, 64);
      std::vector<float> q((size_t)B * T * H * Dh), k((size_t)B * S * Hkv * Dh), v(k.size());
      for (float &x : q) x = small(rng) / 32.0f;
      for (int b = 0; b < B; ++b)
        for (int s = 0; s < S; ++s)
          for (int e = 0; e < Hkv * Dh; ++e) {
            size_t i = ((size_t)b * S + s) * Hkv * Dh + e;
            bool written = s < run.valid[b];
            k[i] = written ? small(rng) / 64.0f : NAN;
            v[i] = written ? small(rng) / 64.0f : NAN;
          }
      // Reference (and the work the kernels must do, for bench runs).
      double scale = 1.0 / std::sqrt((double)Dh);
      std::vector<double> ref(run.bench ? 0 : q.size());
      double visibleKeys = 0;  // summed over (b, t, h)
      for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t) {
          long p = c.pos ? run.positions[b * T + t] : t + S - T;
          long lo = 0, hi = S;
          if (c.causal) {
            hi = std::min<long>(std::max<long>(p + 1, 0), S);
            if (c.window) lo = std::max<long>(p - c.window + 1, 0);
          }
          visibleKeys += (double)H * std::max<long>(hi - lo, 0);
        }
      for (int b = 0; b < B && !run.bench; ++b)
        for (int t = 0; t < T; ++t)
          for (int h = 0; h < H; ++h) {
            int g = h / G;
            long p = c.pos ? run.positions[b * T + t] : t + S - T;
            std::vector<double> sc(S);
            double mx = -1e300; bool any = false;
            for (int s = 0; s < S; ++s) {
              bool vis = true;
              if (c.causal) {
                vis = s <= p;
                if (c.window) vis = vis && (p - s < c.window);
              }
              if (!vis) { sc[s] = NAN; continue; }
              double dot = 0;
              for (int e = 0; e < Dh; ++e)
                dot += (double)q[(((size_t)b * T + t) * H + h) * Dh + e] *
                       k[(((size_t)b * S + s) * Hkv + g) * Dh + e];
              sc[s] = dot * scale; any = true; mx = std::max(mx, sc[s]);
            }
            for (int e = 0; e < Dh; ++e) {
              double num = 0, den = 0;
              if (any)
                for (int s = 0; s < S; ++s) {
                  if (std::isnan(sc[s])) continue;
                  double w = std::exp(sc[s] - mx);
                  den += w;
                  num += w * v[(((size_t)b * S + s) * Hkv + g) * Dh + e];
                }
              ref[(((size_t)b * T + t) * H + h) * Dh + e] = any ? num / den : 0.0;
            }
          }
      // Device buffers.
      size_t kvBytes = c.kv == 0 ? 4 : 2;
      std::vector<unsigned char> kb(k.size() * kvBytes), vb(v.size() * kvBytes);
      for (size_t i = 0; i < k.size(); ++i) {
        if (c.kv == 0) { memcpy(&kb[i * 4], &k[i], 4); memcpy(&vb[i * 4], &v[i], 4); }
        else {
          uint16_t a = c.kv == 1 ? toBF16(k[i]) : toHalf(k[i]);
          uint16_t z = c.kv == 1 ? toBF16(v[i]) : toHalf(v[i]);
          memcpy(&kb[i * 2], &a, 2); memcpy(&vb[i * 2], &z, 2);
        }
      }
      CUdeviceptr dq = upload(q.data(), q.size() * 4);
      CUdeviceptr dk = upload(kb.data(), kb.size()), dv = upload(vb.data(), vb.size());
      CUdeviceptr dpos = 0;
      if (c.pos) dpos = upload(run.positions.data(), run.positions.size() * 4);
      CUdeviceptr dout; check(cuMemAlloc_v2(&dout, q.size() * 4), "alloc out");
      check(cuMemsetD32_v2(dout, 0x7FC00001u, q.size()), "memset out");  // NaN poison
      std::vector<long long> qs = {B, T, H, Dh}, ks = {B, S, Hkv, Dh}, ps = {B, T};
      std::string sfx = suffix(c);
      float fscale = (float)scale;
      std::vector<CUdeviceptr> extra;
      std::vector<std::pair<CUfunction, std::vector<unsigned>>> launches;
      std::vector<Args> launchArgs;
      if (!c.decode) {
        int lanes = lanesPerVector(Dh, 16);
        int rpg = lanes >= 8 ? 2 : 1;
        int threads = std::min(256, 64 * lanes / rpg);
        int rows = threads / lanes * rpg;
        int hpb = headsPerBlock(G);
        int qt = rows / hpb;
        CUfunction f;
        std::string name = "attention_prefill_" + sfx;
        check(cuModuleGetFunction(&f, module, name.c_str()), name.c_str());
        Args a;
        a.memref(dq, qs); a.memref(dk, ks); a.memref(dv, ks);
        if (c.pos) a.memref(dpos, ps);
        a.memref(dout, qs); a.scalar(fscale);
        launches.push_back({f, {(unsigned)((T + qt - 1) / qt), (unsigned)(H / hpb), (unsigned)B, (unsigned)threads}});
        launchArgs.push_back(a);
      } else {
        // DecodeAttentionKernel.cpp: 128-key splits; heads per block while
        // their query and accumulator slices fit 128 registers.
        int splits = (S + 127) / 128;
        int elements = Dh / lanesPerVector(Dh, 8);
        int hpb = headsPerBlock(G, std::max(1, std::min(8, 128 / (2 * elements))));
        CUdeviceptr pm, pl, pa;
        check(cuMemAlloc_v2(&pm, (size_t)B * H * splits * 4), "pm");
        check(cuMemAlloc_v2(&pl, (size_t)B * H * splits * 4), "pl");
        check(cuMemAlloc_v2(&pa, (size_t)B * H * splits * Dh * 4), "pa");
        // Poison the partials: splits that must not be read stay NaN.
        check(cuMemsetD32_v2(pm, 0x7FC00001u, (size_t)B * H * splits), "m");
        check(cuMemsetD32_v2(pl, 0x7FC00001u, (size_t)B * H * splits), "l");
        check(cuMemsetD32_v2(pa, 0x7FC00001u, (size_t)B * H * splits * Dh), "a");
        extra = {pm, pl, pa};
        std::vector<long long> pms = {B, H, splits}, pas = {B, H, splits, Dh};
        CUfunction f1, f2;
        std::string n1 = "attention_decode_" + sfx, n2 = "attention_decode_combine_" + sfx;
        check(cuModuleGetFunction(&f1, module, n1.c_str()), n1.c_str());
        check(cuModuleGetFunction(&f2, module, n2.c_str()), n2.c_str());
        Args a;
        a.memref(dq, qs); a.memref(dk, ks); a.memref(dv, ks);
        if (c.pos) a.memref(dpos, ps);
        a.memref(pm, pms); a.memref(pl, pms); a.memref(pa, pas); a.scalar(fscale);
        launches.push_back({f1, {(unsigned)splits, (unsigned)(H / hpb), (unsigned)B, 128u}});
        launchArgs.push_back(a);
        Args a2;
        if (c.pos) a2.memref(dpos, ps);
        a2.memref(pm, pms); a2.memref(pl, pms); a2.memref(pa, pas); a2.memref(dout, qs);
        launches.push_back({f2, {(unsigned)H, (unsigned)B, 1u, (unsigned)((Dh + 31) / 32 * 32)}});
        launchArgs.push_back(a2);
      }
      auto launchAll = [&] {
        for (size_t i = 0; i < launches.size(); ++i) {
          const std::vector<unsigned> &g = launches[i].second;
          check(cuLaunchKernel(launches[i].first, g[0], g[1], g[2], g[3], 1, 1, 0, nullptr,
                               launchArgs[i].get(), nullptr), "launch");
        }
      };
      launchAll();
      check(cuCtxSynchronize(), "sync");
      if (run.bench) {
        const int iterations = 20;
        auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < iterations; ++i) launchAll();
        check(cuCtxSynchronize(), "sync");
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iterations;
        std::string name = (c.decode ? "decode_" : "prefill_") + sfx;
        if (c.decode)
          printf("bench  %-62s p=%-5d %8.1f us  %7.1f GB/s of K/V\n", name.c_str(), run.positions[0],
                 seconds * 1e6, visibleKeys / G * Dh * 2 * kvBytes / seconds * 1e-9);
        else
          printf("bench  %-62s T=%-5d %8.1f us  %7.2f TFLOP/s\n", name.c_str(), T, seconds * 1e6,
                 visibleKeys * Dh * 4 / seconds * 1e-12);
        cuMemFree_v2(dq); cuMemFree_v2(dk); cuMemFree_v2(dv); cuMemFree_v2(dout);
        if (dpos) cuMemFree_v2(dpos);
        for (CUdeviceptr p : extra) cuMemFree_v2(p);
        continue;
      }
      std::vector<float> out(q.size());
      check(cuMemcpyDtoH_v2(out.data(), dout, out.size() * 4), "dtoh");
      double maxErr = 0; size_t bad = 0, worst = 0;
      for (size_t i = 0; i < out.size(); ++i) {
        double e = std::fabs(out[i] - ref[i]);
        if (!(e <= 2e-5 + 1e-4 * std::fabs(ref[i]))) { ++bad; }
        if (!(e <= maxErr)) { maxErr = std::isnan(e) ? INFINITY : e; worst = i; }
      }
      printf("run %2zu %-62s T=%-4d max_err=%.3g bad=%zu%s\n", ri,
             ((c.decode ? "decode_" : "prefill_") + sfx).c_str(), T, maxErr, bad,
             bad ? "  FAIL" : "");
      if (bad) {
        ++failures;
        printf("   worst at %zu: got %g want %g\n", worst, out[worst], ref[worst]);
      }
      cuMemFree_v2(dq); cuMemFree_v2(dk); cuMemFree_v2(dv); cuMemFree_v2(dout);
      if (dpos) cuMemFree_v2(dpos);
      for (CUdeviceptr p : extra) cuMemFree_v2(p);
    }
  }
  printf("%d failing runs\n", failures);
  return failures ? 1 : 0;
}
