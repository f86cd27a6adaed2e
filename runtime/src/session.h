// One decoding sequence over a compiled model: bound weights, KV cache, position.
#ifndef LLMC_RUNTIME_SESSION_H
#define LLMC_RUNTIME_SESSION_H

#include "aligned_buffer.h"
#include "model.h"
#include "weight_binding.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace llmc::rt {

/// Owns everything the entry points write (cache, logits) and checks every
/// input before calling them, since compiled code does no bounds checks: an
/// out-of-vocabulary token would read past the embedding table and a
/// position past the context would write past the cache.
class Session {
public:
  Session(std::shared_ptr<const Model> model, WeightSet &weights);

  /// Runs tokens at positions [position(), position() + n); returns the
  /// logits buffer, row-major [n, vocab]. Throws before running anything
  /// when an id or the context length is out of range.
  const float *prefill(const int32_t *tokens, size_t n);
  /// One token through the decode entry point; returns its logits.
  const float *decode(int32_t token);
  void reset();
  int32_t position() const { return position_; }
  const Model &model() const { return *model_; }

private:
  void check_tokens(const int32_t *tokens, size_t n) const;
  void check_status(int32_t status, const char *entry) const;
  float *logits_for(size_t n);

  std::shared_ptr<const Model> model_;
  BoundWeights weights_;
  AlignedBuffer kv_cache_;
  AlignedBuffer logits_;
  std::vector<int32_t> positions_;
  int32_t position_ = 0;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_SESSION_H
