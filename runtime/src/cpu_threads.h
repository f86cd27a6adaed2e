// CpuThreads: how many OpenMP threads the compiled CPU kernels run on, and how they wait and share the work.
#ifndef LLMC_RUNTIME_CPU_THREADS_H
#define LLMC_RUNTIME_CPU_THREADS_H

#include "shared_library.h"

namespace llmc::rt {

/// libomp's settings for the compiled code, applied by the thread that calls
/// an entry point right before the call (libomp keeps them per calling
/// thread, so sessions on different threads keep their own): the thread
/// count, and, unless the environment sets KMP_BLOCKTIME or OMP_WAIT_POLICY,
/// threads that sleep as soon as they run out of work (kBlocktimeMs) instead
/// of libomp's default 200 ms of spinning. Spinning threads take the cores
/// from the threads that have work whenever other processes share them: a
/// SmolLM2-135M-shaped f32 decode went from 35 to 1-5 tok/s beside two busy
/// processes on two cores, and to 10-15 with threads that sleep. The loop
/// schedule stays libomp's (static unless OMP_SCHEDULE says otherwise; the
/// kernels' loops are schedule(runtime)).
/// libomp is found through the library that holds the compiled code (the
/// artifact's dependencies, or the program that links it); a program
/// without it (CUDA artifacts) gets no-ops.
class CpuThreads {
public:
  explicit CpuThreads(const SharedLibrary &code);

  /// The threads a call uses when the caller does not choose:
  /// OMP_NUM_THREADS when set (a positive number), else the CPUs this
  /// process may run on (sched_getaffinity; cgroup CPU quotas are not
  /// read).
  static int default_count();

  /// Sets `threads` (>= 1) and the wait setting above for the calling
  /// thread's next parallel regions.
  void apply(int threads) const;

private:
  using SetInt = void (*)(int);
  SetInt set_num_threads_ = nullptr;
  SetInt set_blocktime_ = nullptr; // null: the environment decides
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CPU_THREADS_H
