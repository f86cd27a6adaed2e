// CpuThreads: how many OpenMP threads the compiled CPU kernels run on.
#ifndef LLMC_RUNTIME_CPU_THREADS_H
#define LLMC_RUNTIME_CPU_THREADS_H

#include "shared_library.h"

namespace llmc::rt {

/// The thread count of the compiled code, applied by the thread that calls
/// an entry point right before the call (libomp keeps it per calling
/// thread, so sessions on different threads keep their own). How idle
/// threads wait stays libomp's (OMP_WAIT_POLICY, KMP_BLOCKTIME): threads
/// that sleep at once (KMP_BLOCKTIME=0) keep a decode going beside other
/// busy processes (SmolLM2-135M-shaped f32: 5-9 tok/s beside two busy
/// loops on two cores, against 0.7 with libomp's 200 ms of spinning and
/// 0.3-0.6 for llama.cpp), but cost about a third of the decode rate on a
/// quiet machine in the one quiet measurement made, so they are not the
/// default. The loop schedule is libomp's too (static unless OMP_SCHEDULE
/// says otherwise; the kernels' loops are schedule(runtime)).
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

private:
  using SetInt = void (*)(int);
  SetInt set_num_threads_ = nullptr;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CPU_THREADS_H
