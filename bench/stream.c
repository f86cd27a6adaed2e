/* stream: STREAM-like memory bandwidth, the ceiling the benchmark's decode figures are compared with.
 *
 *   stream [MiB per array, default 256] [repetitions, default 10]
 *
 * read: sums a 256 MiB f32 array (16-float vectors, 4 independent accumulators, so the loop is
 *       limited by memory, not by add latency); GB/s = bytes read / time. The loop runs twice: as
 *       written (the hardware prefetchers alone) and with a software prefetch of each line 16 KiB
 *       ahead, as llmc's decode GEMVs do (4 KiB until 7 December 2026); the read line is the faster
 *       of the two, the ceiling a weight-streaming decode is held against. On a 2-core Zen 3 (December 2026) the prefetch
 *       raised the 2-thread read from 25.8-26.7 GB/s to 29.2-30.2, and an f16 GEMV over SmolLM2's
 *       shapes reached 29.9: without it the bound was low by an eighth.
 * copy: copies one 256 MiB array into another; GB/s = (bytes read + bytes written) / time, as
 *       STREAM counts it.
 * Buffers are 2 MiB aligned, madvise(MADV_HUGEPAGE)'d and touched before timing. Each kernel runs at
 * 1 and 2 threads (pthreads, each thread a contiguous slice); the best of the repetitions is reported,
 * as STREAM does. A pass lasts from the first thread's start to the last thread's end: the threads
 * meet at a spinning barrier so that they start together, and a thread that still starts late (woken
 * after the other has read part of its slice alone, at one thread's bandwidth) lengthens the pass
 * instead of hiding in per-thread times. Timing each thread alone and taking the slowest had made
 * such passes the best of 10: 46-62 GB/s at 2 threads on a host whose concurrent reads reach 35.
 * Output lines (the read and copy lines are parsed by run.sh and quant.sh; the two read loops'
 * own figures follow as read-plain / read-prefetch):
 *   stream read threads=1 GB/s=17.02
 *   stream read-plain threads=1 GB/s=15.80
 *   stream read-prefetch threads=1 GB/s=17.02
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "huge_alloc.h"
#include "now.h"

typedef float v16 __attribute__((vector_size(64)));

/* How far ahead the prefetching read loop prefetches: what llmc's decode GEMVs use. */
enum { kPrefetchBytes = 16384 };

typedef struct {
  const v16 *src;
  v16 *dst;
  size_t n; /* vectors in this slice */
  int copy;
  int prefetch; /* read: bytes ahead of each load to prefetch, 0 for none */
  int threads;
  atomic_int *arrived; /* the spinning start barrier: threads that have reached it */
  double start, end;
  float sink;
} Work;

static void *run(void *arg) {
  Work *w = arg;
  atomic_fetch_add(w->arrived, 1);
  while (atomic_load(w->arrived) < w->threads)
    ;
  w->start = now();
  if (w->copy) {
    for (size_t i = 0; i < w->n; ++i)
      w->dst[i] = w->src[i];
  } else {
    v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    size_t i = 0;
    const size_t ahead = (size_t)w->prefetch;
    for (; i + 4 <= w->n; i += 4) {
      if (ahead) {
        const char *line = (const char *)(w->src + i) + ahead;
        __builtin_prefetch(line, 0, 3);
        __builtin_prefetch(line + 64, 0, 3);
        __builtin_prefetch(line + 128, 0, 3);
        __builtin_prefetch(line + 192, 0, 3);
      }
      a0 += w->src[i];
      a1 += w->src[i + 1];
      a2 += w->src[i + 2];
      a3 += w->src[i + 3];
    }
    for (; i < w->n; ++i)
      a0 += w->src[i];
    v16 a = a0 + a1 + a2 + a3;
    float s = 0;
    for (int j = 0; j < 16; ++j)
      s += a[j];
    w->sink = s;
  }
  w->end = now();
  return NULL;
}

/* One timed pass: from the first thread's start to the last thread's end. */
static double pass(const v16 *src, v16 *dst, size_t n, int threads, int copy, int prefetch,
                   float *sink) {
  pthread_t tid[8];
  Work w[8];
  atomic_int arrived = 0;
  for (int t = 0; t < threads; ++t) {
    size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    w[t] = (Work){src + lo, dst ? dst + lo : NULL, hi - lo, copy, prefetch, threads, &arrived, 0, 0, 0};
    pthread_create(&tid[t], NULL, run, &w[t]);
  }
  double first = 1e30, last = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(tid[t], NULL);
    if (w[t].start < first)
      first = w[t].start;
    if (w[t].end > last)
      last = w[t].end;
    *sink += w[t].sink;
  }
  return last - first;
}

/* The fastest of `reps` passes, in seconds. */
static double best_pass(const v16 *src, v16 *dst, size_t n, int threads, int copy, int prefetch,
                        int reps, float *sink) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t = pass(src, dst, n, threads, copy, prefetch, sink);
    if (t < best)
      best = t;
  }
  return best;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  size_t bytes = mib << 20, n = bytes / sizeof(v16);
  v16 *a = huge_alloc("stream", bytes), *b = huge_alloc("stream", bytes);
  float *fa = (float *)a;
  for (size_t i = 0; i < bytes / 4; ++i)
    fa[i] = (float)(i & 1023) * 1e-3f;
  memset(b, 0, bytes);
  float sink = 0;
  for (int threads = 1; threads <= 2; ++threads) {
    double readPlain = best_pass(a, NULL, n, threads, 0, 0, reps, &sink);
    double readPrefetch = best_pass(a, NULL, n, threads, 0, kPrefetchBytes, reps, &sink);
    double read = readPlain < readPrefetch ? readPlain : readPrefetch;
    double copy = best_pass(a, b, n, threads, 1, 0, reps, &sink);
    printf("stream read threads=%d GB/s=%.2f\n", threads, bytes / read / 1e9);
    printf("stream copy threads=%d GB/s=%.2f\n", threads, 2.0 * bytes / copy / 1e9);
    printf("stream read-plain threads=%d GB/s=%.2f\n", threads, bytes / readPlain / 1e9);
    printf("stream read-prefetch threads=%d GB/s=%.2f\n", threads, bytes / readPrefetch / 1e9);
    fflush(stdout);
  }
  fprintf(stderr, "stream: %zu MiB per array, best of %d (checksum %g)\n", mib, reps, (double)sink);
  return 0;
}
