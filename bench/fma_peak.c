/* fma_peak: the f32 multiply-add rate of this CPU, the ceiling the benchmark's prefill figures are compared with.
 *
 *   fma_peak [seconds per measurement, default 0.5]
 *
 * Each thread runs independent chains of vector fused multiply-adds (vectors of the widest width the
 * compiler targets with -march=native: 8 floats with AVX2, 16 with AVX-512), enough chains to cover
 * the FMA latency (4 cycles) of two FMA pipes, so the loop is bound by FMA throughput.
 * GFLOP/s = 2 flops per lane per FMA / time. It runs at 1 and 2 threads (pthreads, released
 * together); the best of 5 measurements is reported. Output lines (parsed by run.sh):
 *   fma threads=1 GFLOP/s=99.7
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "now.h"

/* Vector width and chains: the chains, the scale and the shift must all stay in registers (16 ymm
 * with AVX2: 12 chains; 32 zmm with AVX-512: 24; 32 NEON registers: 24 of 4 lanes). */
#if defined(__AVX512F__)
#define LANES 16
#define CHAINS 24
#elif defined(__AVX__)
#define LANES 8
#define CHAINS 12
#else
#define LANES 4
#define CHAINS 24
#endif
typedef float vec __attribute__((vector_size(LANES * 4)));
enum { kChains = CHAINS, kInner = 1000 };

typedef struct {
  long rounds;
  pthread_barrier_t *start;
  double elapsed;
  float sink;
} Work;

static void *run(void *arg) {
  Work *w = arg;
  vec acc[kChains], scale, shift;
  for (int l = 0; l < LANES; ++l) {
    scale[l] = 0.999999f;
    shift[l] = 1e-7f;
  }
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < LANES; ++l)
      acc[c][l] = (float)(c + l) * 1e-3f;
  pthread_barrier_wait(w->start);
  double t0 = now();
  for (long r = 0; r < w->rounds; ++r)
    for (int i = 0; i < kInner; ++i)
      for (int c = 0; c < kChains; ++c) /* contracted to one FMA each (-O3 -march=native) */
        acc[c] = acc[c] * scale + shift;
  w->elapsed = now() - t0;
  float s = 0;
  for (int c = 0; c < kChains; ++c)
    s += acc[c][0];
  w->sink = s; /* keeps the chains alive */
  return NULL;
}

/* GFLOP/s of `threads` threads each running `rounds` rounds. */
static double measure(int threads, long rounds) {
  pthread_t tid[2];
  Work work[2];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int t = 0; t < threads; ++t) {
    work[t] = (Work){rounds, &start, 0, 0};
    pthread_create(&tid[t], NULL, run, &work[t]);
  }
  double slowest = 0, sink = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(tid[t], NULL);
    if (work[t].elapsed > slowest)
      slowest = work[t].elapsed;
    sink += work[t].sink;
  }
  pthread_barrier_destroy(&start);
  double flops = 2.0 * LANES * kChains * kInner * (double)rounds * threads;
  return sink == 12345.0f ? 0 : flops / slowest / 1e9;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.5;
  /* Calibrate the round count to about `seconds` on one thread. */
  long rounds = 1000;
  double rate = measure(1, rounds);
  rounds = (long)(seconds * rate * 1e9 / (2.0 * LANES * kChains * kInner)) + 1;
  for (int threads = 1; threads <= 2; ++threads) {
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
      double g = measure(threads, rounds);
      if (g > best)
        best = g;
    }
    printf("fma threads=%d GFLOP/s=%.1f\n", threads, best);
  }
  return 0;
}
