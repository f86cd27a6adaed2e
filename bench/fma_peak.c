/* fma_peak: the f32 multiply-add rate of this CPU, the ceiling the benchmark's prefill figures are compared with.
 *
 *   fma_peak [seconds per measurement, default 0.5]
 *
 * Each thread runs independent chains of vector fused multiply-adds, enough chains to cover the FMA
 * latency (4 cycles) of two FMA pipes, so the loop is bound by FMA throughput. It measures every vector
 * width the compiler targets (-march=...): 256 bits (8 floats) with AVX2, and 512 bits (16) too with
 * AVX-512, because the wider vector is not always the faster one (Zen 4 runs a 512-bit FMA as two
 * 256-bit halves and reaches a higher rate with 256-bit ones). GFLOP/s = 2 flops per lane per FMA /
 * time, at 1 and 2 threads (pthreads, released together), the best of 5 measurements. Output lines,
 * per width and then the best width (the line run.sh and quant.sh parse):
 *   fma threads=1 bits=256 GFLOP/s=114.1
 *   fma threads=1 bits=512 GFLOP/s=93.0
 *   fma threads=1 GFLOP/s=114.1
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "now.h"

enum { kInner = 1000 };

typedef struct {
  long rounds;
  pthread_barrier_t *start;
  double elapsed;
  float sink;
} Work;

/* One thread's chains at one vector width: the chains, the scale and the shift must all stay in
 * registers (16 ymm with AVX2: 12 chains; 32 registers with AVX-512: 24; 32 NEON registers: 24). */
#define DEFINE_FMA_CHAINS(NAME, LANES, CHAINS)                                                           \
  static void *NAME(void *arg) {                                                                         \
    typedef float vec __attribute__((vector_size((LANES) * 4)));                                         \
    Work *w = arg;                                                                                       \
    vec acc[CHAINS], scale, shift;                                                                       \
    for (int l = 0; l < (LANES); ++l) {                                                                  \
      scale[l] = 0.999999f;                                                                              \
      shift[l] = 1e-7f;                                                                                  \
    }                                                                                                    \
    for (int c = 0; c < (CHAINS); ++c)                                                                   \
      for (int l = 0; l < (LANES); ++l)                                                                  \
        acc[c][l] = (float)(c + l) * 1e-3f;                                                              \
    pthread_barrier_wait(w->start);                                                                      \
    double t0 = now();                                                                                   \
    for (long r = 0; r < w->rounds; ++r)                                                                 \
      for (int i = 0; i < kInner; ++i) {                                                                 \
        /* unrolled so that the chains stay in registers; one FMA each (-O3 -march=...) */              \
        _Pragma("GCC unroll 32") for (int c = 0; c < (CHAINS); ++c) acc[c] = acc[c] * scale + shift;     \
      }                                                                                                  \
    w->elapsed = now() - t0;                                                                             \
    float s = 0;                                                                                         \
    for (int c = 0; c < (CHAINS); ++c)                                                                   \
      s += acc[c][0];                                                                                    \
    w->sink = s; /* keeps the chains alive */                                                            \
    return NULL;                                                                                         \
  }

typedef struct {
  int bits;
  int lanes;
  int chains;
  void *(*run)(void *);
} Width;

#if defined(__AVX512F__)
DEFINE_FMA_CHAINS(run256, 8, 24)
DEFINE_FMA_CHAINS(run512, 16, 24)
static const Width kWidths[] = {{256, 8, 24, run256}, {512, 16, 24, run512}};
#elif defined(__AVX__)
DEFINE_FMA_CHAINS(run256, 8, 12)
static const Width kWidths[] = {{256, 8, 12, run256}};
#else
DEFINE_FMA_CHAINS(run128, 4, 24)
static const Width kWidths[] = {{128, 4, 24, run128}};
#endif
enum { kWidthCount = sizeof kWidths / sizeof kWidths[0] };

/* GFLOP/s of `threads` threads each running `rounds` rounds at one width. */
static double measure(const Width *width, int threads, long rounds) {
  pthread_t tid[2];
  Work work[2];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int t = 0; t < threads; ++t) {
    work[t] = (Work){rounds, &start, 0, 0};
    pthread_create(&tid[t], NULL, width->run, &work[t]);
  }
  double slowest = 0, sink = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(tid[t], NULL);
    if (work[t].elapsed > slowest)
      slowest = work[t].elapsed;
    sink += work[t].sink;
  }
  pthread_barrier_destroy(&start);
  double flops = 2.0 * width->lanes * width->chains * kInner * (double)rounds * threads;
  return sink == 12345.0f ? 0 : flops / slowest / 1e9;
}

/* Rounds that take about `seconds` on one thread at this width. */
static long calibrate(const Width *width, double seconds) {
  double rate = measure(width, 1, 1000);
  return (long)(seconds * rate * 1e9 / (2.0 * width->lanes * width->chains * kInner)) + 1;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.5;
  long rounds[kWidthCount];
  for (int w = 0; w < kWidthCount; ++w)
    rounds[w] = calibrate(&kWidths[w], seconds);
  for (int threads = 1; threads <= 2; ++threads) {
    double bestOfWidths = 0;
    for (int w = 0; w < kWidthCount; ++w) {
      double best = 0;
      for (int rep = 0; rep < 5; ++rep) {
        double g = measure(&kWidths[w], threads, rounds[w]);
        if (g > best)
          best = g;
      }
      printf("fma threads=%d bits=%d GFLOP/s=%.1f\n", threads, kWidths[w].bits, best);
      if (best > bestOfWidths)
        bestOfWidths = best;
    }
    printf("fma threads=%d GFLOP/s=%.1f\n", threads, bestOfWidths);
  }
  return 0;
}
