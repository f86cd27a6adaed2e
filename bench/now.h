/* now(): monotonic wall-clock seconds, for the benchmark's measuring programs (stream.c, fma_peak.c). */
#ifndef LLMC_BENCH_NOW_H
#define LLMC_BENCH_NOW_H

#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif /* LLMC_BENCH_NOW_H */
