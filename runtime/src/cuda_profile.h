// Per-kernel GPU times of a CUDA session (LLMC_CUDA_PROFILE=1): event pairs around launches, a table at the end.
#ifndef LLMC_RUNTIME_CUDA_PROFILE_H
#define LLMC_RUNTIME_CUDA_PROFILE_H

#include "cuda_driver.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace llmc::rt {

/// true when LLMC_CUDA_PROFILE=1 (0, unset or empty: false; anything else
/// is an error, so a typo does not silently measure nothing).
bool cuda_profile_enabled();

/// Brackets every kernel launch of an entry call with a pair of events
/// recorded on the session's stream, and after the call's own final
/// synchronization adds each pair's cuEventElapsedTime to its kernel's
/// total. Nothing synchronizes per launch; events come from a pool that
/// grows to the most launches of one call and is reused by every call.
/// Kernels are told apart by the name pointer the artifact passes (one
/// constant per kernel), like the executor's function cache.
///
/// Not thread-safe: the session calls it from its entry calls only; the
/// context must be current for every call, the destructor included.
class CudaProfiler {
public:
  /// Sample: the device sampling kernels (llmc_session_sample and the
  /// sampling half of llmc_session_decode_sample), apart from the model's.
  enum Phase { Prefill = 0, Decode = 1, Sample = 2 };
  static constexpr int kPhases = 3;

  explicit CudaProfiler(const CudaDriver &cu) : cu_(cu) {}
  ~CudaProfiler();
  CudaProfiler(const CudaProfiler &) = delete;
  CudaProfiler &operator=(const CudaProfiler &) = delete;

  /// Start of an entry call: the previous call's unresolved launches (a
  /// failed call) are dropped.
  void begin_call();
  /// Records the start event of the next launch; false with *error set.
  bool before_launch(CUstream stream, std::string *error);
  /// Records its end event once `name` was launched; false with *error set.
  bool after_launch(const char *name, CUstream stream, std::string *error);
  /// After the stream synchronized: adds the call's kernel times to `phase`.
  /// Throws Error on a driver failure.
  void end_call(Phase phase);
  /// Launches recorded so far in this call (a split point for end_call).
  size_t launches() const { return launches_.size(); }
  /// end_call for a call that ran two phases: its first `split` launches
  /// are one call of `phase`, the rest one call of `tail`.
  void end_call(Phase phase, size_t split, Phase tail);

  /// The table (see runtime/README.md, "Profiling"): per phase with
  /// launches, its kernels sorted by total time. "" when nothing ran.
  std::string report(const std::string &title) const;

private:
  struct KernelStat {
    std::string name;
    uint64_t calls = 0;
    double ms = 0;
  };
  struct PhaseStats {
    uint64_t calls = 0;
    uint64_t launches = 0;
    double ms = 0;
    std::vector<KernelStat> kernels;
    std::unordered_map<const char *, size_t> index; // name pointer -> kernels
  };
  struct Launch {
    const char *name;
    size_t first_event;
  };

  bool event(size_t i, std::string *error);
  /// Adds launches [first, last) as one call of `phase`.
  void add(Phase phase, size_t first, size_t last);

  const CudaDriver &cu_;
  std::vector<CUevent> events_; // the pool; 2 per launch of one call
  size_t next_event_ = 0;
  std::vector<Launch> launches_; // this call's, in launch order
  PhaseStats phases_[kPhases];
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_PROFILE_H
