// CpuWaitPolicy: libomp's blocktime per call, from the run-queue wait measured.
#include "cpu_wait_policy.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fcntl.h>
#include <unistd.h>

namespace llmc::rt {

namespace {

/// libomp's default blocktime (ms): what the spinning mode restores.
constexpr int kSpinBlocktimeMs = 200;

int64_t now_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The calling thread's total run-queue wait in ns: the second field of
/// /proc/thread-self/schedstat ("<on cpu> <run delay> <time slices>"), or
/// -1 where the kernel does not provide it.
int64_t run_queue_wait_nanos() {
  int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char text[96];
  ssize_t size = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (size <= 0)
    return -1;
  text[size] = '\0';
  unsigned long long on_cpu = 0, waited = 0;
  if (std::sscanf(text, "%llu %llu", &on_cpu, &waited) != 2)
    return -1;
  return static_cast<int64_t>(waited);
}

} // namespace

void ContentionDetector::add_call(int64_t wall_nanos, int64_t waited_nanos) {
  window_nanos_ += wall_nanos > 0 ? wall_nanos : 0;
  window_waited_nanos_ += waited_nanos > 0 ? waited_nanos : 0;
  if (window_nanos_ < kWindowNanos)
    return;
  bool shared = window_waited_nanos_ * 100 > kSharedWaitPercent * window_nanos_;
  contrary_nanos_ = shared != sleeping_ ? contrary_nanos_ + window_nanos_ : 0;
  window_nanos_ = 0;
  window_waited_nanos_ = 0;
  if (contrary_nanos_ >= kSwitchNanos) {
    sleeping_ = shared;
    contrary_nanos_ = 0;
  }
}

CpuWaitPolicy::CpuWaitPolicy(SetBlocktime set_blocktime) {
  // The user's own choice of how libomp waits stands.
  if (std::getenv("KMP_BLOCKTIME") || std::getenv("OMP_WAIT_POLICY"))
    return;
  if (run_queue_wait_nanos() < 0)
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
  start_waited_nanos_ = run_queue_wait_nanos();
  start_nanos_ = now_nanos();
}

void CpuWaitPolicy::after_call() {
  if (!adaptive())
    return;
  int64_t wall = now_nanos() - start_nanos_;
  int64_t waited = run_queue_wait_nanos();
  detector_.add_call(wall, waited >= 0 && start_waited_nanos_ >= 0
                               ? waited - start_waited_nanos_
                               : 0);
}

} // namespace llmc::rt
