// One decoding sequence over a compiled model: input checks and position around a backend executor.
#ifndef LLMC_RUNTIME_SESSION_H
#define LLMC_RUNTIME_SESSION_H

#include "executor.h"
#include "model.h"
#include "sampler.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llmc::rt {

/// Checks every input before the executor calls compiled code, since that
/// code does no bounds checks: an out-of-vocabulary token would read past
/// the embedding table and a position past the context would write past the
/// cache. The executor (CPU or CUDA, from the manifest's target kind) owns
/// the weights as bound, the cache and the logits.
class Session {
public:
  Session(std::shared_ptr<const Model> model, WeightSet &weights);

  /// Runs tokens at positions [position(), position() + n); returns the
  /// logits, row-major [n, vocab] for LogitRows::All, the last row for
  /// Last, possibly nullptr for None (then they may stay on the GPU).
  /// Throws before running anything when an id or the context length is
  /// out of range.
  const float *prefill(const int32_t *tokens, size_t n, LogitRows rows);
  /// One token through the decode entry point; returns its logits (with
  /// `host_logits`; else possibly nullptr).
  const float *decode(int32_t token, bool host_logits);
  /// The next token drawn by `sampler` from the last row of logits of the
  /// previous prefill/decode: on the GPU when the executor has sampling
  /// kernels and plan_device_sampling() finds an exact one, else on the
  /// host (copying the row back if it stayed on the GPU).
  int32_t sample(Sampler &sampler, const int32_t *history, size_t n_history);
  /// decode(token) then sample(), as one GPU step when sampling on it.
  int32_t decode_sample(int32_t token, Sampler &sampler,
                        const int32_t *history, size_t n_history);
  void reset();
  /// Moves the next position back to `position` (<= position()), keeping
  /// the cache below it: entries at and above it are stale but never read,
  /// since attention only reads keys at positions up to its query's, and
  /// the next prefill overwrites them before any query can see them.
  /// Throws LLMC_ERR_OUT_OF_RANGE for a position outside [0, position()].
  void rewind(int32_t position);
  int32_t position() const { return position_; }
  const Model &model() const { return *model_; }
  const std::string &backend() const { return executor_->description(); }
  /// CPU threads per call: `threads` >= 1, or 0 for CpuThreads::default_count().
  /// Throws LLMC_ERR_INVALID_ARGUMENT outside [0, kMaxThreads].
  void set_threads(int threads);
  static constexpr int kMaxThreads = 1024;
  int threads() const { return executor_->threads(); }
  CpuWaitStats cpu_wait_stats() const { return executor_->cpu_wait_stats(); }

private:
  void check_tokens(const int32_t *tokens, size_t n) const;
  /// The sampler's vocabulary and, when the penalty reads it, the history.
  void check_sampler(const Sampler &sampler, const char *function,
                     const int32_t *history, size_t n_history) const;
  /// The device plan for `sampler`, or None when this executor cannot.
  DeviceSampling device_plan(const Sampler &sampler) const;

  std::shared_ptr<const Model> model_;
  std::unique_ptr<Executor> executor_;
  std::vector<int32_t> positions_;
  int32_t position_ = 0;
  // Whether the last prefill/decode call left logits to sample (false for
  // a new or reset session and after a step that failed while running).
  bool has_logits_ = false;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_SESSION_H
