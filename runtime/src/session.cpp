// Session: input checks and the position, around the backend's prefill/decode calls.
#include "session.h"

#include "error.h"

namespace llmc::rt {

Session::Session(std::shared_ptr<const Model> model, WeightSet &weights)
    : model_(model), executor_(make_executor(std::move(model), weights)) {}

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

const float *Session::prefill(const int32_t *tokens, size_t n, bool all_rows) {
  check_tokens(tokens, n);
  positions_.resize(n);
  for (size_t i = 0; i < n; ++i)
    positions_[i] = position_ + static_cast<int32_t>(i);
  const float *logits = executor_->prefill(tokens, positions_.data(), n, all_rows);
  position_ += static_cast<int32_t>(n);
  return logits;
}

const float *Session::decode(int32_t token) {
  check_tokens(&token, 1);
  const float *logits = executor_->decode(token, position_);
  position_ += 1;
  return logits;
}

void Session::reset() {
  executor_->reset();
  position_ = 0;
}

} // namespace llmc::rt
