/* huge_alloc(): 2 MiB-aligned memory advised into huge pages, for the benchmark's measuring programs
 * (stream.c, f16_rows.c), so that their reads stream without a TLB miss per 4 KiB page; free() releases
 * it. On failure it prints "<program>: cannot allocate N bytes" and exits 1. */
#ifndef LLMC_BENCH_HUGE_ALLOC_H
#define LLMC_BENCH_HUGE_ALLOC_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static void *huge_alloc(const char *program, size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 2u << 20, bytes) != 0) {
    fprintf(stderr, "%s: cannot allocate %zu bytes\n", program, bytes);
    exit(1);
  }
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

#endif /* LLMC_BENCH_HUGE_ALLOC_H */
