// Sampling pipeline over one logits vector; deterministic for a given seed.
#include "sampler.h"

#include "error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace llmc::rt {

Sampler::Sampler(const llmc_sampler_config &config, int32_t vocab_size)
    : config_(config), vocab_(vocab_size), rng_(config.seed) {
  if (vocab_size <= 0)
    fail(LLMC_ERR_INVALID_ARGUMENT, "sampler: vocab_size must be positive, got ",
         vocab_size);
  if (std::isnan(config.temperature))
    fail(LLMC_ERR_INVALID_ARGUMENT, "sampler: temperature is NaN");
  if (std::isnan(config.top_p))
    fail(LLMC_ERR_INVALID_ARGUMENT, "sampler: top_p is NaN");
  if (!(config.repetition_penalty > 0) || std::isinf(config.repetition_penalty))
    fail(LLMC_ERR_INVALID_ARGUMENT,
         "sampler: repetition_penalty must be positive and finite, got ",
         config.repetition_penalty);
  logits_.resize(vocab_size);
  order_.resize(vocab_size);
  seen_.assign(vocab_size, 0);
}

/// Lowest index among equal maxima, so greedy output is well defined.
int32_t Sampler::argmax() const {
  int32_t best = 0;
  for (int32_t i = 1; i < vocab_; ++i)
    if (logits_[i] > logits_[best])
      best = i;
  return best;
}

void Sampler::check_history(const int32_t *history, size_t n_history) const {
  if (config_.repetition_penalty == 1.0f)
    return;
  for (size_t k = 0; k < n_history; ++k)
    if (history[k] < 0 || history[k] >= vocab_)
      fail(LLMC_ERR_OUT_OF_RANGE, "sampler: history token ", history[k],
           " out of range (vocab size ", vocab_, ")");
}

int32_t Sampler::sample(const float *logits, const int32_t *history,
                        size_t n_history) {
  const float kNegInf = -std::numeric_limits<float>::infinity();
  for (int32_t i = 0; i < vocab_; ++i)
    logits_[i] = std::isnan(logits[i]) ? kNegInf : logits[i];

  if (config_.repetition_penalty != 1.0f && n_history > 0) {
    check_history(history, n_history);
    float p = config_.repetition_penalty;
    for (size_t k = 0; k < n_history; ++k) {
      int32_t t = history[k];
      if (seen_[t])
        continue;
      seen_[t] = 1;
      logits_[t] = logits_[t] > 0 ? logits_[t] / p : logits_[t] * p;
    }
    for (size_t k = 0; k < n_history; ++k)
      seen_[history[k]] = 0;
  }

  if (config_.temperature <= 0 || config_.top_k == 1 || config_.top_p <= 0)
    return argmax();

  int32_t best = argmax();
  float max_logit = logits_[best];
  if (max_logit == kNegInf)
    return best; // nothing has any probability: stay deterministic

  // Unnormalised probabilities at temperature T.
  float inv_t = 1.0f / config_.temperature;
  for (int32_t i = 0; i < vocab_; ++i)
    logits_[i] = std::exp((logits_[i] - max_logit) * inv_t);

  auto higher = [&](int32_t a, int32_t b) {
    return logits_[a] != logits_[b] ? logits_[a] > logits_[b] : a < b;
  };
  int32_t n = vocab_;
  for (int32_t i = 0; i < n; ++i)
    order_[i] = i;
  bool sorted = false;
  if (config_.top_k > 0 && config_.top_k < n) {
    std::partial_sort(order_.begin(), order_.begin() + config_.top_k,
                      order_.begin() + n, higher);
    n = config_.top_k;
    sorted = true;
  }
  double total = 0;
  for (int32_t i = 0; i < n; ++i)
    total += logits_[order_[i]];

  if (config_.top_p < 1.0f) {
    if (!sorted)
      std::sort(order_.begin(), order_.begin() + n, higher);
    double keep = config_.top_p * total, cum = 0;
    int32_t m = 0;
    while (m < n) {
      cum += logits_[order_[m++]];
      if (cum >= keep)
        break;
    }
    n = m;
    total = cum;
  }

  double r = static_cast<double>(draw_unit()) * total, cum = 0;
  for (int32_t i = 0; i < n; ++i) {
    cum += logits_[order_[i]];
    if (r < cum)
      return order_[i];
  }
  return order_[n - 1]; // rounding left r at the very top
}

} // namespace llmc::rt
