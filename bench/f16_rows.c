/* f16_rows: how fast an f16 decode GEMV reads its weights, per row length and kernel shape, on this host.
 *
 *   f16_rows [threads, default 1] [MiB of weights, default 384] [rounds, default 8] [K...]
 *
 * For each K (default: 576 1536 2048 2560 3072 4096 5632 8192 14336, the row lengths of SmolLM2-135M,
 * TinyLlama-1.1B and LLaMA-3-8B), y = W x over N × K f16 weights (N = MiB / (2 K), a multiple of 16, in
 * 2 MiB-aligned MADV_HUGEPAGE memory; x in f32, K a multiple of 32), the threads taking equal slices of
 * the rows. The kernels, each written the way llmc's generated code is (AVX-512: vcvtph2ps, 16-lane FMAs):
 *   row-1chain-pf    the file's rows, one FMA chain per row, each 32 bytes prefetching the line 16 KiB
 *                    ahead into L2 (prefetcht1): llmc's decode GEMV on f16 rows of 8 KiB or more
 *   row-1chain       the same without the prefetch
 *   row-2chain       the file's rows, two chains (even and odd 16-column steps), no prefetch: llmc's
 *                    f16 GEMV on rows under 8 KiB (kF16GemvChains, prefetchesWeightRows)
 *   row-2chain-pf    two chains and the prefetch
 *   inter16          the rows stored in groups of 16 interleaved by column ([N/16][K][16]): one 32-byte
 *                    load holds column k of 16 rows, which meet x[k] broadcast, four chains over k and
 *                    no horizontal sums; no prefetch (not a layout llmc has: a candidate)
 * Rounds run every kernel once in a rotated order; each kernel's GB/s (weight bytes / time) is the mean
 * over the rounds, so that the host's phases (bench/stream.c) fall on all of them alike. The kernels'
 * outputs are checked against row-1chain-pf (the sums differ only by rounding order) before timing.
 * Build: clang -O2 -march=native -fopenmp bench/f16_rows.c -o f16_rows (needs AVX-512 F and F16C).
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "huge_alloc.h"
#include "now.h"

enum { kPrefetchBytes = 16384, kGroupRows = 16 };

static int K, N;
static const uint16_t *rows_f16, *groups_f16;
static const float *x;
static float *y;

/* One output of a row: one chain, or two summing alternate 16-column steps; each step prefetches. */
static inline float row_sum(const uint16_t *row, int chains, int prefetch) {
  __m512 a = _mm512_setzero_ps(), b = a;
  for (int k = 0; k < K; k += 32) {
    if (prefetch)
      _mm_prefetch((const char *)(row + k) + kPrefetchBytes, _MM_HINT_T1);
    a = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(row + k))),
                        _mm512_loadu_ps(x + k), a);
    if (prefetch && chains == 1)
      _mm_prefetch((const char *)(row + k + 16) + kPrefetchBytes, _MM_HINT_T1);
    __m512 second = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(row + k + 16)));
    if (chains == 1)
      a = _mm512_fmadd_ps(second, _mm512_loadu_ps(x + k + 16), a);
    else
      b = _mm512_fmadd_ps(second, _mm512_loadu_ps(x + k + 16), b);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(a, b));
}

/* Rows [lo, hi) by row_sum. */
static void row_range(int lo, int hi, int chains, int prefetch) {
  for (int i = lo; i < hi; ++i)
    y[i] = row_sum(rows_f16 + (size_t)i * K, chains, prefetch);
}

/* Groups [lo / 16, hi / 16): column k of the group's 16 rows times x[k], four chains over k. */
static void inter16(int lo, int hi) {
  for (int g = lo / kGroupRows; g < hi / kGroupRows; ++g) {
    const uint16_t *group = groups_f16 + (size_t)g * K * kGroupRows;
    __m512 s[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int k = 0; k < K; k += 4)
      for (int c = 0; c < 4; ++c)
        s[c] = _mm512_fmadd_ps(
            _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(group + (size_t)(k + c) * kGroupRows))),
            _mm512_set1_ps(x[k + c]), s[c]);
    _mm512_storeu_ps(y + g * kGroupRows, _mm512_add_ps(_mm512_add_ps(s[0], s[1]), _mm512_add_ps(s[2], s[3])));
  }
}

/* A kernel of the table: rows in `chains` chains with or without the prefetch, or (chains 0) inter16. */
typedef struct {
  const char *name;
  int chains, prefetch;
} Kernel;
static const Kernel kKernels[] = {{"row-1chain-pf", 1, 1}, {"row-1chain", 1, 0}, {"row-2chain", 2, 0},
                                  {"row-2chain-pf", 2, 1}, {"inter16", 0, 0}};
enum { kKernelCount = sizeof kKernels / sizeof kKernels[0] };

/* Seconds of one pass of `kernel` over every row, the threads on equal slices of whole groups. */
static double run_pass(const Kernel *kernel, int threads) {
  double start = now();
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), slice = N / threads / kGroupRows * kGroupRows;
    int lo = slice * t, hi = t == threads - 1 ? N : slice * (t + 1);
    if (kernel->chains)
      row_range(lo, hi, kernel->chains, kernel->prefetch);
    else
      inter16(lo, hi);
  }
  return now() - start;
}

/* One line of the table for row length k. */
static int measure(int k, int threads, size_t bytes, int rounds) {
  if (k <= 0 || k % 32) {
    fprintf(stderr, "f16_rows: error: K = %d is not a positive multiple of 32\n", k);
    return 1;
  }
  K = k;
  N = (int)(bytes / (2 * (size_t)K)) / kGroupRows * kGroupRows;
  if (N < kGroupRows * threads) {
    fprintf(stderr, "f16_rows: error: %zu bytes hold too few rows of K = %d\n", bytes, K);
    return 1;
  }
  size_t elements = (size_t)N * K;
  uint16_t *rows = huge_alloc("f16_rows", elements * 2), *groups = huge_alloc("f16_rows", elements * 2);
  float *xs = aligned_alloc(64, (size_t)K * 4), *ys = aligned_alloc(64, (size_t)N * 4), *reference = malloc((size_t)N * 4);
  for (size_t i = 0; i < elements; ++i)
    rows[i] = (uint16_t)(0x3800 ^ (i * 2654435761u >> 22 & 0x3ff)); /* f16 in [0.5, 1) */
  for (int g = 0; g < N / kGroupRows; ++g)
    for (int c = 0; c < K; ++c)
      for (int r = 0; r < kGroupRows; ++r)
        groups[((size_t)g * K + c) * kGroupRows + r] = rows[(size_t)(g * kGroupRows + r) * K + c];
  for (int c = 0; c < K; ++c)
    xs[c] = (float)((c % 61) - 30) / 64.0f;
  rows_f16 = rows, groups_f16 = groups, x = xs, y = ys;
  run_pass(&kKernels[0], threads);
  for (int i = 0; i < N; ++i)
    reference[i] = y[i];
  for (int v = 1; v < kKernelCount; ++v) {
    run_pass(&kKernels[v], threads);
    for (int i = 0; i < N; ++i)
      if (fabsf(y[i] - reference[i]) > 1e-3f * (1.0f + fabsf(reference[i]))) {
        fprintf(stderr, "f16_rows: error: %s row %d: %g, row-1chain-pf %g\n", kKernels[v].name, i, y[i], reference[i]);
        return 1;
      }
  }
  double seconds[kKernelCount] = {0};
  for (int round = 0; round < rounds; ++round)
    for (int i = 0; i < kKernelCount; ++i) {
      int v = (i + round) % kKernelCount;
      seconds[v] += run_pass(&kKernels[v], threads);
    }
  printf("| %d | %.2f |", K, elements * 2 / 1e6);
  for (int v = 0; v < kKernelCount; ++v)
    printf(" %.1f |", elements * 2.0 * rounds / seconds[v] / 1e9);
  printf("\n");
  free(rows), free(groups), free(xs), free(ys), free(reference);
  return 0;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  long mib = argc > 2 ? atol(argv[2]) : 384;
  int rounds = argc > 3 ? atoi(argv[3]) : 8;
  if (threads < 1 || mib < 1 || rounds < 1) {
    fprintf(stderr, "usage: f16_rows [threads] [MiB] [rounds] [K...]\n");
    return 2;
  }
  static const int kDefaultDepths[] = {576, 1536, 2048, 2560, 3072, 4096, 5632, 8192, 14336};
  printf("f16 GEMV read rate, GB/s (weight bytes / time, mean of %d rounds), %d thread(s)\n\n| K | MB |", rounds,
         threads);
  for (int v = 0; v < kKernelCount; ++v)
    printf(" %s |", kKernels[v].name);
  printf("\n|---|---|");
  for (int v = 0; v < kKernelCount; ++v)
    printf("---|");
  printf("\n");
  fflush(stdout);
  if (argc > 4) {
    for (int i = 4; i < argc; ++i)
      if (measure(atoi(argv[i]), threads, (size_t)mib << 20, rounds))
        return 1;
  } else {
    for (size_t i = 0; i < sizeof kDefaultDepths / sizeof kDefaultDepths[0]; ++i)
      if (measure(kDefaultDepths[i], threads, (size_t)mib << 20, rounds))
        return 1;
  }
  return 0;
}
