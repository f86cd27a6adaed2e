// Session: input checks, KV cache and logits buffers around the compiled prefill/decode calls.
#include "session.h"

#include "error.h"

namespace llmc::rt {

Session::Session(std::shared_ptr<const Model> model, WeightSet &weights)
    : model_(std::move(model)),
      weights_(bind_weights(model_->manifest(), weights)),
      kv_cache_(static_cast<size_t>(model_->manifest().kv_cache_bytes),
                "the KV cache") {}

void Session::check_tokens(const int32_t *tokens, size_t n) const {
  const Manifest &m = model_->manifest();
  if (n == 0)
    fail(LLMC_ERR_INVALID_ARGUMENT, "no tokens to run");
  for (size_t i = 0; i < n; ++i)
    if (tokens[i] < 0 || tokens[i] >= m.vocab_size)
      fail(LLMC_ERR_OUT_OF_RANGE, "token id ", tokens[i], " (input index ", i,
           ") is outside the vocabulary [0, ", m.vocab_size, ")");
  if (n > static_cast<size_t>(m.context_length - position_))
    fail(LLMC_ERR_OUT_OF_RANGE, "context full: ", n, " token(s) at position ",
         position_, " exceed the context length ", m.context_length,
         " of the artifact");
}

void Session::check_status(int32_t status, const char *entry) const {
  if (status != 0)
    fail(LLMC_ERR_INTERNAL, "the compiled ", entry, " entry point of '",
         model_->manifest().name, "' returned ", status);
}

float *Session::logits_for(size_t n) {
  size_t bytes = n * static_cast<size_t>(model_->manifest().vocab_size) * sizeof(float);
  if (logits_.size() < bytes)
    logits_ = AlignedBuffer(bytes, "logits");
  return logits_.f32();
}

const float *Session::prefill(const int32_t *tokens, size_t n) {
  check_tokens(tokens, n);
  float *logits = logits_for(n);
  positions_.resize(n);
  for (size_t i = 0; i < n; ++i)
    positions_[i] = position_ + static_cast<int32_t>(i);
  check_status(model_->prefill()(tokens, positions_.data(), static_cast<int64_t>(n),
                                 kv_cache_.data(), weights_.pointers.data(), logits),
               "prefill");
  position_ += static_cast<int32_t>(n);
  return logits;
}

const float *Session::decode(int32_t token) {
  check_tokens(&token, 1);
  float *logits = logits_for(1);
  int32_t pos = position_;
  check_status(model_->decode()(&token, &pos, kv_cache_.data(),
                                weights_.pointers.data(), logits),
               "decode");
  position_ += 1;
  return logits;
}

void Session::reset() {
  kv_cache_.clear();
  position_ = 0;
}

} // namespace llmc::rt
