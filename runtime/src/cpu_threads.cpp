// CpuThreads: libomp's thread count for the compiled CPU code.
#include "cpu_threads.h"

#include <cstdlib>

#include <sched.h>

namespace llmc::rt {

CpuThreads::CpuThreads(const SharedLibrary &code) {
  set_num_threads_ =
      reinterpret_cast<SetInt>(code.find("omp_set_num_threads"));
  set_blocktime_ = reinterpret_cast<SetInt>(code.find("kmp_set_blocktime"));
}

int CpuThreads::default_count() {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    char *end = nullptr;
    long n = std::strtol(env, &end, 10);
    // "4,2" (nested levels) counts its first level.
    if (end != env && n > 0 && n <= 1 << 16)
      return static_cast<int>(n);
  }
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0)
    return CPU_COUNT(&cpus);
  return 1;
}

void CpuThreads::apply(int threads) const {
  if (set_num_threads_)
    set_num_threads_(threads);
}

} // namespace llmc::rt
