// keep_freed_buffers_mapped: once per process, glibc malloc keeps freed buffers for reuse.
#include "host_malloc.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace llmc::rt {

namespace {
/// glibc refuses an mmap threshold above HEAP_MAX_SIZE / 2, 32 MiB on 64-bit targets; larger buffers are still
/// mapped per allocation (their page faults cost little next to the work on them).
constexpr int kMmapThreshold = 32 << 20;
/// Freed memory at the heap top kept for reuse: above the intermediates of a layer of the models llmc runs on
/// the CPU, bounded so that a process does not hold much more than its peak.
constexpr int kTrimThreshold = 256 << 20;
} // namespace

void keep_freed_buffers_mapped() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char *keep = std::getenv("LLMC_KEEP_MALLOC_SETTINGS");
    if (keep && std::strcmp(keep, "1") == 0)
      return;
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
    mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
#endif
  });
}

} // namespace llmc::rt
