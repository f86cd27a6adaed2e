// Token sampler: repetition penalty, greedy, temperature, top-k, top-p with a seeded PCG32.
#ifndef LLMC_RUNTIME_SAMPLER_H
#define LLMC_RUNTIME_SAMPLER_H

#include "llmc/runtime.h"
#include "rng.h"

#include <cstdint>
#include <vector>

namespace llmc::rt {

/// Holds the RNG and scratch buffers so sampling allocates nothing per
/// token; the order of operations is documented at llmc_sampler in
/// runtime.h.
class Sampler {
public:
  Sampler(const llmc_sampler_config &config, int32_t vocab_size);

  void reseed(uint64_t seed) { rng_.reseed(seed); }
  int32_t sample(const float *logits, const int32_t *history, size_t n_history);

  const llmc_sampler_config &config() const { return config_; }
  int32_t vocab_size() const { return vocab_; }
  /// The uniform number in [0, 1) that sample() draws for a token it does
  /// not pick greedily (one per such token). A GPU sampling kernel takes its
  /// draw here, so a seeded stream is the same whichever side samples.
  float draw_unit() { return rng_.next_unit_float(); }
  /// Throws LLMC_ERR_OUT_OF_RANGE for a history id outside the vocabulary
  /// when the repetition penalty would read it (sample() does the same);
  /// lets a caller reject bad input before running anything.
  void check_history(const int32_t *history, size_t n_history) const;

private:
  int32_t argmax() const;

  llmc_sampler_config config_;
  int32_t vocab_;
  Pcg32 rng_;
  std::vector<float> logits_;   // (vocab) working copy
  std::vector<int32_t> order_;  // (vocab) candidate ids
  std::vector<uint8_t> seen_;   // (vocab) repetition-penalty dedup marks
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_SAMPLER_H
