// CpuThreads: how many OpenMP threads the compiled CPU kernels run on.
#ifndef LLMC_RUNTIME_CPU_THREADS_H
#define LLMC_RUNTIME_CPU_THREADS_H

#include "shared_library.h"

namespace llmc::rt {

/// The thread count of the compiled code, applied by the thread that calls
/// an entry point right before the call (libomp keeps it per calling
/// thread, so sessions on different threads keep their own). How idle
/// threads wait is CpuWaitPolicy's (libomp's blocktime, per call). The
/// kernels split their loops themselves (a partition per thread, whose
/// chunks the others take over when it lags: llm-parallel-to-openmp), not
/// through libomp's schedules.
class CpuThreads {
public:
  /// No libomp: apply() does nothing.
  CpuThreads() = default;
  explicit CpuThreads(const SharedLibrary &code);

  /// The threads a call uses when the caller does not choose:
  /// OMP_NUM_THREADS when set (a positive number), else the CPUs this
  /// process may run on (sched_getaffinity; cgroup CPU quotas are not
  /// read).
  static int default_count();

  /// Sets `threads` (>= 1) for the calling thread's next parallel regions.
  void apply(int threads) const;

  using SetInt = void (*)(int);
  /// libomp's kmp_set_blocktime (for CpuWaitPolicy), or null.
  SetInt blocktime_setter() const { return set_blocktime_; }

private:
  SetInt set_num_threads_ = nullptr;
  SetInt set_blocktime_ = nullptr;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CPU_THREADS_H
