// CpuWaitPolicy: whether libomp's idle threads spin or sleep, chosen per call from the contention measured.
#ifndef LLMC_RUNTIME_CPU_WAIT_POLICY_H
#define LLMC_RUNTIME_CPU_WAIT_POLICY_H

#include <cstdint>

namespace llmc::rt {

/// Decides from how long the calls so far waited for a core whether the
/// next call's threads sleep or spin when they run out of work. Pure
/// bookkeeping (no clock, no system call), so its rule is tested on its own.
///
/// Why: the compiled kernels end every parallel loop at a barrier. A thread
/// that arrives first spins there (libomp's default, KMP_BLOCKTIME=200 ms),
/// which is the fastest way to wait when every thread has a core, but when
/// other processes compete for the cores the spinning thread burns the time
/// slice its partner needs: on 2 cores beside 2 busy loops a Q4_0
/// SmolLM2-135M-shaped decode fell to 1.5-4 tokens/s spinning and ran at
/// 23-30 sleeping (KMP_BLOCKTIME=0), prefill 38-45 against 122-149, while
/// on a quiet machine sleeping costs every region a futex wake-up (F16
/// SmolLM2-135M-shaped decode on a 2-core Zen 4: 80-83 tokens/s sleeping,
/// 104-109 spinning).
///
/// The signal: the time the calling thread spent runnable but off its core,
/// on the scheduler's run queue (the kernel's schedstat run delay). On free
/// cores it is about 1% of the call time, spinning or sleeping alike; beside
/// other busy work it is tens of percent, again spinning or sleeping alike
/// (measured on 2 cores: 0.5-1.5% quiet, 40-60% beside one or two busy
/// loops), so one rule judges both states and no spinning probe is needed.
/// Involuntary context switches, the earlier signal, were not: a quiet VM
/// showed 100-150 per second, as many as some shared runs. Niced background
/// work barely delays llmc's threads, and the rule leaves them spinning.
///
/// Calls are judged in windows of at least kWindowNanos of call time, so
/// that a decode of a few ms is not judged alone; the threads switch between
/// spinning and sleeping once windows judged the other way cover
/// kSwitchNanos of calls in a row, so that a short burst of other work (a
/// few ms of a daemon) does not switch them but one long call (a prefill)
/// does.
class ContentionDetector {
public:
  /// Call time per judgement: long enough to hold a few time slices.
  static constexpr int64_t kWindowNanos = 50'000'000;
  /// A window is shared when its run-queue wait exceeds this percentage of
  /// its call time.
  static constexpr int64_t kSharedWaitPercent = 10;
  /// Call time in windows in a row that flips spinning to sleeping or back.
  static constexpr int64_t kSwitchNanos = 2 * kWindowNanos;

  /// Adds one call: its wall time and the time the calling thread waited on
  /// the run queue during it.
  void add_call(int64_t wall_nanos, int64_t waited_nanos);
  /// Whether the next call's threads should sleep at once.
  bool sleeping() const { return sleeping_; }

private:
  int64_t window_nanos_ = 0;
  int64_t window_waited_nanos_ = 0;
  bool sleeping_ = false;
  /// Call time of the windows in a row judged against the current state.
  int64_t contrary_nanos_ = 0;
};

/// How the threads of one CPU session wait, applied by the thread that
/// calls an entry point right before the call (libomp keeps blocktime per
/// calling thread, like the thread count): they spin while the cores are
/// free and sleep at once (blocktime 0) while ContentionDetector sees other
/// work on them. Left to libomp when the environment sets KMP_BLOCKTIME or
/// OMP_WAIT_POLICY, when the code has no libomp, or when the kernel keeps
/// no run-queue statistics (/proc/thread-self/schedstat).
class CpuWaitPolicy {
public:
  using SetBlocktime = void (*)(int);
  /// `set_blocktime`: libomp's kmp_set_blocktime, or null.
  explicit CpuWaitPolicy(SetBlocktime set_blocktime);

  /// Whether the policy chooses (false: libomp's own settings rule).
  bool adaptive() const { return set_blocktime_ != nullptr; }

  /// Brackets one call of the compiled code.
  void before_call();
  void after_call();

  /// Calls made, and of them those made with sleeping threads.
  uint64_t calls() const { return calls_; }
  uint64_t sleeping_calls() const { return sleeping_calls_; }

private:
  SetBlocktime set_blocktime_ = nullptr;
  ContentionDetector detector_;
  int64_t start_nanos_ = 0;
  int64_t start_waited_nanos_ = 0;
  uint64_t calls_ = 0;
  uint64_t sleeping_calls_ = 0;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CPU_WAIT_POLICY_H
