// One decoding sequence over a compiled model: input checks and position around a backend executor.
#ifndef LLMC_RUNTIME_SESSION_H
#define LLMC_RUNTIME_SESSION_H

#include "executor.h"
#include "model.h"

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
  /// logits, row-major [n, vocab] when `all_rows`, else the last row alone.
  /// Throws before running anything when an id or the context length is
  /// out of range.
  const float *prefill(const int32_t *tokens, size_t n, bool all_rows);
  /// One token through the decode entry point; returns its logits.
  const float *decode(int32_t token);
  void reset();
  int32_t position() const { return position_; }
  const Model &model() const { return *model_; }
  const std::string &backend() const { return executor_->description(); }

private:
  void check_tokens(const int32_t *tokens, size_t n) const;

  std::shared_ptr<const Model> model_;
  std::unique_ptr<Executor> executor_;
  std::vector<int32_t> positions_;
  int32_t position_ = 0;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_SESSION_H
