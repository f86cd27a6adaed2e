// CpuWaitPolicy: whether libomp's idle threads spin or sleep, chosen per call from the contention measured.
#ifndef LLMC_RUNTIME_CPU_WAIT_POLICY_H
#define LLMC_RUNTIME_CPU_WAIT_POLICY_H

#include <cstdint>

namespace llmc::rt {

/// Decides from the involuntary context switches of the calls so far whether
/// the next call's threads sleep or spin when they run out of work. Pure
/// bookkeeping (no clock, no system call), so its rule is tested on its own.
///
/// Why: the compiled kernels end every parallel loop at a barrier. A thread
/// that arrives first spins there (libomp's default, KMP_BLOCKTIME=200 ms),
/// which is the fastest way to wait when every thread has a core, but when
/// other processes compete for the cores the spinning thread burns the time
/// slice its partner needs: on 2 cores beside 2 busy loops a Q4_0
/// SmolLM2-135M-shaped decode fell to 1.5-4 tokens/s spinning and ran at
/// 23-30 sleeping (KMP_BLOCKTIME=0), prefill 38-45 against 122-149, while
/// on a quiet machine sleeping costs every region a futex wake-up.
///
/// The signal: a thread preempted while it still had work is an involuntary
/// context switch (getrusage's ru_nivcsw). On a quiet machine spinning
/// threads see almost none; beside other busy processes each loses its core
/// about once per scheduler time slice (measured: ~300/s on 2 cores). Calls
/// are judged in windows of at least kWindowNanos of call time, so that a
/// decode of a few ms is not judged alone, and spinning threads start
/// sleeping once shared windows in a row cover kSharedNanos of calls, so
/// that a short burst of other work (a few ms of a daemon) does not switch
/// them but one long shared call (a prefill) does. Sleeping threads hide the signal
/// (they yield before the scheduler preempts them: measured 0-3 switches per
/// window beside the same load), so while sleeping the detector spins again
/// for one probe window after every probe interval of call time: doubling
/// from kFirstProbeNanos to kLastProbeNanos while each probe finds the
/// cores shared (a probe costs one window of spinning under load), back to
/// spinning for good when one finds them free.
class ContentionDetector {
public:
  /// Call time per judgement: long enough to hold a few time slices.
  static constexpr int64_t kWindowNanos = 50'000'000;
  /// Involuntary switches per second of call time above which the cores
  /// count as shared. Quiet: a few per second; shared: hundreds.
  static constexpr int64_t kContendedPerSecond = 100;
  /// Call time in shared windows in a row that makes spinning threads sleep.
  static constexpr int64_t kSharedNanos = 2 * kWindowNanos;
  /// Sleeping call time before the first probe, and the longest interval.
  static constexpr int64_t kFirstProbeNanos = 500'000'000;
  static constexpr int64_t kLastProbeNanos = 8'000'000'000;

  /// Adds one call: its wall time and the process's involuntary context
  /// switches during it.
  void add_call(int64_t wall_nanos, int64_t involuntary_switches);
  /// Whether the next call's threads should sleep at once.
  bool sleeping() const { return contended_ && !probing_; }

private:
  /// Ends a spinning window: whether its switch rate says "shared".
  bool judge_window() const;

  int64_t window_nanos_ = 0;
  int64_t window_switches_ = 0;
  /// The cores were judged shared (by the last spinning window).
  bool contended_ = false;
  /// Call time of the shared windows in a row while spinning.
  int64_t shared_nanos_ = 0;
  /// While contended: the current window spins to test the cores again.
  bool probing_ = false;
  int64_t slept_nanos_ = 0;
  int64_t probe_interval_nanos_ = kFirstProbeNanos;
};

/// How the threads of one CPU session wait, applied by the thread that
/// calls an entry point right before the call (libomp keeps blocktime per
/// calling thread, like the thread count): they spin while the cores are
/// free and sleep at once (blocktime 0) while ContentionDetector sees other
/// work on them. Left to libomp when the environment sets KMP_BLOCKTIME or
/// OMP_WAIT_POLICY, or when the code has no libomp.
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
  int64_t start_switches_ = 0;
  uint64_t calls_ = 0;
  uint64_t sleeping_calls_ = 0;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CPU_WAIT_POLICY_H
