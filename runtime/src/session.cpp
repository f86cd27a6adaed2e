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

void Session::check_sampler(const Sampler &sampler, const char *function,
                            const int32_t *history, size_t n_history) const {
  int32_t vocab = model_->manifest().vocab_size;
  if (sampler.vocab_size() != vocab)
    fail(LLMC_ERR_INVALID_ARGUMENT, function, ": the sampler was created for ",
         sampler.vocab_size(), " tokens but the model's vocabulary has ", vocab);
  sampler.check_history(history, n_history);
}

DeviceSampling Session::device_plan(const Sampler &sampler) const {
  if (!executor_->samples_on_device())
    return DeviceSampling{};
  return plan_device_sampling(sampler.config(), model_->manifest().vocab_size);
}

const float *Session::prefill(const int32_t *tokens, size_t n, LogitRows rows) {
  check_tokens(tokens, n);
  positions_.resize(n);
  for (size_t i = 0; i < n; ++i)
    positions_[i] = position_ + static_cast<int32_t>(i);
  has_logits_ = false;
  const float *logits = executor_->prefill(tokens, positions_.data(), n, rows);
  position_ += static_cast<int32_t>(n);
  has_logits_ = true;
  return logits;
}

const float *Session::decode(int32_t token, bool host_logits) {
  check_tokens(&token, 1);
  has_logits_ = false;
  const float *logits = executor_->decode(token, position_, host_logits);
  position_ += 1;
  has_logits_ = true;
  return logits;
}

int32_t Session::sample(Sampler &sampler, const int32_t *history,
                        size_t n_history) {
  check_sampler(sampler, "llmc_session_sample", history, n_history);
  if (!has_logits_)
    fail(LLMC_ERR_INVALID_ARGUMENT,
         "llmc_session_sample: no logits to sample: the session is new or "
         "reset, or its last step failed; run llmc_session_prefill or "
         "llmc_session_decode first");
  DeviceSampling plan = device_plan(sampler);
  if (plan.kernel != DeviceKernel::None)
    return executor_->sample(plan, sampler);
  return sampler.sample(executor_->last_logits(), history, n_history);
}

int32_t Session::decode_sample(int32_t token, Sampler &sampler,
                               const int32_t *history, size_t n_history) {
  check_tokens(&token, 1);
  check_sampler(sampler, "llmc_session_decode_sample", history, n_history);
  DeviceSampling plan = device_plan(sampler);
  if (plan.kernel == DeviceKernel::None)
    return sampler.sample(decode(token, true), history, n_history);
  has_logits_ = false;
  int32_t next = executor_->decode_sample(token, position_, plan, sampler);
  position_ += 1;
  has_logits_ = true;
  return next;
}

void Session::reset() {
  has_logits_ = false;
  executor_->reset();
  position_ = 0;
}

void Session::set_threads(int threads) {
  if (threads < 0 || threads > kMaxThreads)
    fail(LLMC_ERR_INVALID_ARGUMENT, "llmc_session_set_threads: ", threads,
         " threads is outside [0, ", kMaxThreads,
         "] (0: OMP_NUM_THREADS, else the CPUs the process may run on)");
  executor_->set_threads(threads > 0 ? threads : CpuThreads::default_count());
}

void Session::rewind(int32_t position) {
  if (position < 0 || position > position_)
    fail(LLMC_ERR_OUT_OF_RANGE, "llmc_session_rewind: position ", position,
         " is outside [0, ", position_, "] (the tokens in the cache)");
  if (position == position_)
    return;
  // The logits of the last step belong to a token that is no longer the
  // last one in the cache.
  has_logits_ = false;
  position_ = position;
}

} // namespace llmc::rt
