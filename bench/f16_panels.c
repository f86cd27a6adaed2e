/* f16_panels: the prefill GEMM on f16 weights, per weight layout and tile, at one thread on this host.
 *
 *   f16_panels [N, default 2016] [K, default 2048] [rounds, default 5]
 *
 * out[M][N] = x[M][K] · W[N][K]ᵀ for a 128-token prompt (M = 128), W in f16, x and out in f32, N a
 * multiple of 48. Each kernel walks the weights in panels of 48 rows and, per panel, every x row:
 *   rows-pack-4x6y   the file's rows; each panel packed (widened to f32, transposed in 8 × 8 blocks of
 *                    ymm shuffles) into [K][48], then tiles of 4 x rows × 6 vector<8xf32>: llmc's f16
 *                    GEMM on Zen 4 (emitPackedGemm, floatGemmBits)
 *   groups-widen-4x6y the rows stored in groups of 16 interleaved by column ([N/16][K][16], f16): each
 *                    panel (3 groups) widened to f32 [K][48] without shuffles, the same 4 × 6 tiles
 *   groups-8x3z      the same groups, no panel: tiles of 8 x rows × 3 vector<16xf32>, each step
 *                    widening the 3 groups' column k in the loop (3 vcvtph2ps per 24 FMAs)
 * GFLOP/s = 2 M N K / time, the best of the rounds (the kernels take turns within each round); the
 * outputs of the group kernels are checked against rows-pack-4x6y (same sums, same order per output).
 * The f32 FMA rate the figures compare with: bench/fma_peak.c at one thread.
 * Build: clang -O2 -march=native bench/f16_panels.c -o f16_panels (needs AVX-512 F and F16C).
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "now.h"

enum { M = 128, kPanelRows = 48, kGroupRows = 16 };

static int N, K;
static uint16_t *rows, *groups;
static float *x, *out, *panel;

/* Transposes 8 ymm rows in place (8 × 8 f32). */
static void transpose8(__m256 r[8]) {
  __m256 t[8], s[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    s[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    s[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
    s[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    s[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(s[i], s[i + 4], 0x31);
  }
}

static void pack_rows(int n0) {
  for (int g = 0; g < kPanelRows / 8; ++g)
    for (int k = 0; k < K; k += 8) {
      __m256 r[8];
      for (int i = 0; i < 8; ++i)
        r[i] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rows + (size_t)(n0 + g * 8 + i) * K + k)));
      transpose8(r);
      for (int i = 0; i < 8; ++i)
        _mm256_store_ps(panel + (size_t)(k + i) * kPanelRows + g * 8, r[i]);
    }
}

static void widen_groups(int n0) {
  for (int g = 0; g < kPanelRows / kGroupRows; ++g) {
    const uint16_t *group = groups + (size_t)(n0 / kGroupRows + g) * K * kGroupRows;
    for (int k = 0; k < K; ++k)
      _mm512_store_ps(panel + (size_t)k * kPanelRows + g * kGroupRows,
                      _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(group + (size_t)k * kGroupRows))));
  }
}

static void tile_4x6y(int m, int n0) {
  __m256 acc[4][6];
  for (int i = 0; i < 4; ++i)
    for (int v = 0; v < 6; ++v)
      acc[i][v] = _mm256_setzero_ps();
  for (int k = 0; k < K; ++k) {
    __m256 w[6];
    for (int v = 0; v < 6; ++v)
      w[v] = _mm256_load_ps(panel + (size_t)k * kPanelRows + v * 8);
    for (int i = 0; i < 4; ++i) {
      __m256 xv = _mm256_broadcast_ss(x + (size_t)(m + i) * K + k);
      for (int v = 0; v < 6; ++v)
        acc[i][v] = _mm256_fmadd_ps(w[v], xv, acc[i][v]);
    }
  }
  for (int i = 0; i < 4; ++i)
    for (int v = 0; v < 6; ++v)
      _mm256_storeu_ps(out + (size_t)(m + i) * N + n0 + v * 8, acc[i][v]);
}

static void tile_8x3z(int m, int n0) {
  const uint16_t *group = groups + (size_t)(n0 / kGroupRows) * K * kGroupRows;
  size_t groupElements = (size_t)K * kGroupRows;
  __m512 acc[8][3];
  for (int i = 0; i < 8; ++i)
    for (int v = 0; v < 3; ++v)
      acc[i][v] = _mm512_setzero_ps();
  for (int k = 0; k < K; ++k) {
    __m512 w[3];
    for (int v = 0; v < 3; ++v)
      w[v] = _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(group + v * groupElements + (size_t)k * kGroupRows)));
    for (int i = 0; i < 8; ++i) {
      __m512 xv = _mm512_set1_ps(x[(size_t)(m + i) * K + k]);
      for (int v = 0; v < 3; ++v)
        acc[i][v] = _mm512_fmadd_ps(w[v], xv, acc[i][v]);
    }
  }
  for (int i = 0; i < 8; ++i)
    for (int v = 0; v < 3; ++v)
      _mm512_storeu_ps(out + (size_t)(m + i) * N + n0 + v * 16, acc[i][v]);
}

static void gemm(int kernel) {
  for (int n0 = 0; n0 < N; n0 += kPanelRows) {
    if (kernel == 2) {
      for (int m = 0; m < M; m += 8)
        tile_8x3z(m, n0);
      continue;
    }
    if (kernel == 0)
      pack_rows(n0);
    else
      widen_groups(n0);
    for (int m = 0; m < M; m += 4)
      tile_4x6y(m, n0);
  }
}

int main(int argc, char **argv) {
  N = argc > 1 ? atoi(argv[1]) : 2016;
  K = argc > 2 ? atoi(argv[2]) : 2048;
  int rounds = argc > 3 ? atoi(argv[3]) : 5;
  if (N <= 0 || N % kPanelRows || K <= 0 || K % 8 || rounds < 1) {
    fprintf(stderr, "f16_panels: error: N must be a positive multiple of 48, K of 8, rounds positive\n");
    return 2;
  }
  size_t elements = (size_t)N * K;
  rows = aligned_alloc(64, elements * 2);
  groups = aligned_alloc(64, elements * 2);
  x = aligned_alloc(64, (size_t)M * K * 4);
  out = aligned_alloc(64, (size_t)M * N * 4);
  panel = aligned_alloc(64, (size_t)K * kPanelRows * 4);
  float *reference = malloc((size_t)M * N * 4);
  for (size_t i = 0; i < elements; ++i)
    rows[i] = (uint16_t)(0x3800 ^ (i * 2654435761u >> 22 & 0x3ff));
  for (int g = 0; g < N / kGroupRows; ++g)
    for (int k = 0; k < K; ++k)
      for (int r = 0; r < kGroupRows; ++r)
        groups[((size_t)g * K + k) * kGroupRows + r] = rows[(size_t)(g * kGroupRows + r) * K + k];
  for (size_t i = 0; i < (size_t)M * K; ++i)
    x[i] = (float)((int)(i % 61) - 30) / 64.0f;
  static const char *names[] = {"rows-pack-4x6y", "groups-widen-4x6y", "groups-8x3z"};
  gemm(0);
  memcpy(reference, out, (size_t)M * N * 4);
  for (int kernel = 1; kernel < 3; ++kernel) {
    memset(out, 0, (size_t)M * N * 4);
    gemm(kernel);
    if (memcmp(out, reference, (size_t)M * N * 4)) {
      fprintf(stderr, "f16_panels: error: %s differs from rows-pack-4x6y\n", names[kernel]);
      return 1;
    }
  }
  double best[3] = {0};
  for (int round = 0; round < rounds; ++round)
    for (int i = 0; i < 3; ++i) {
      int kernel = (i + round) % 3;
      double start = now();
      gemm(kernel);
      double rate = 2.0 * M * N * K / (now() - start) / 1e9;
      if (rate > best[kernel])
        best[kernel] = rate;
    }
  printf("f16 GEMM, M = %d, N = %d, K = %d, 1 thread, GFLOP/s (best of %d)\n", M, N, K, rounds);
  for (int kernel = 0; kernel < 3; ++kernel)
    printf("  %-18s %6.1f\n", names[kernel], best[kernel]);
  free(rows), free(groups), free(x), free(out), free(panel), free(reference);
  return 0;
}
