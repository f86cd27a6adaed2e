// CpuWaitPolicy: libomp's blocktime per call, from the involuntary context switches measured.
#include "cpu_wait_policy.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <sys/resource.h>

namespace llmc::rt {

namespace {

/// libomp's default blocktime (ms): what the spinning mode restores.
constexpr int kSpinBlocktimeMs = 200;

int64_t now_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t involuntary_switches() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_nivcsw : 0;
}

} // namespace

bool ContentionDetector::judge_window() const {
  // switches / seconds > kContendedPerSecond, in integers.
  return window_switches_ * 1'000'000'000 > kContendedPerSecond * window_nanos_;
}

void ContentionDetector::add_call(int64_t wall_nanos,
                                  int64_t involuntary_switches) {
  wall_nanos = wall_nanos > 0 ? wall_nanos : 0;
  if (sleeping()) {
    // No signal while sleeping: count down to the next probe.
    slept_nanos_ += wall_nanos;
    if (slept_nanos_ >= probe_interval_nanos_) {
      slept_nanos_ = 0;
      probing_ = true;
    }
    return;
  }
  window_nanos_ += wall_nanos;
  window_switches_ += involuntary_switches > 0 ? involuntary_switches : 0;
  if (window_nanos_ < kWindowNanos)
    return;
  bool shared = judge_window();
  int64_t judged_nanos = window_nanos_;
  window_nanos_ = 0;
  window_switches_ = 0;
  if (probing_) {
    // One probe window decides: the cores were shared a moment ago.
    probing_ = false;
    probe_interval_nanos_ =
        shared ? std::min(2 * probe_interval_nanos_, kLastProbeNanos)
               : kFirstProbeNanos;
    contended_ = shared;
    return;
  }
  shared_nanos_ = shared ? shared_nanos_ + judged_nanos : 0;
  contended_ = shared_nanos_ >= kSharedNanos;
}

CpuWaitPolicy::CpuWaitPolicy(SetBlocktime set_blocktime) {
  // The user's own choice of how libomp waits stands.
  if (std::getenv("KMP_BLOCKTIME") || std::getenv("OMP_WAIT_POLICY"))
    return;
  set_blocktime_ = set_blocktime;
}

void CpuWaitPolicy::before_call() {
  ++calls_;
  if (!adaptive())
    return;
  bool sleep = detector_.sleeping();
  sleeping_calls_ += sleep;
  set_blocktime_(sleep ? 0 : kSpinBlocktimeMs);
  start_switches_ = involuntary_switches();
  start_nanos_ = now_nanos();
}

void CpuWaitPolicy::after_call() {
  if (!adaptive())
    return;
  detector_.add_call(now_nanos() - start_nanos_,
                     involuntary_switches() - start_switches_);
}

} // namespace llmc::rt
