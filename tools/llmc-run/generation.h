// The token loop of llmc-run: sample, stop at an end-of-generation id or a limit, decode, repeat.
#ifndef LLMC_RUN_GENERATION_H
#define LLMC_RUN_GENERATION_H

#include "token_printer.h"

#include "llmc/runtime.h"

#include <cstdint>
#include <vector>

namespace llmc_run {

struct GenerationSettings {
  long max_tokens = 0;
  /// Ids that end the generation (not printed, not fed back); empty with
  /// --ignore-eos.
  std::vector<int32_t> stop_ids;
  /// Sample on the host from logits copied back (the reference path).
  bool host_sampling = false;
};

struct GenerationResult {
  /// The tokens generated and printed (no stop id).
  std::vector<int32_t> tokens;
  const char *stop = "token limit"; // "EOS", "token limit" or "context full"
  /// Each decode step's seconds, for the steady-state rate.
  std::vector<double> step_seconds;

  double decode_seconds() const;
  /// Decode steps per second over all steps (0 when there were none).
  double decode_rate() const;
};

/// Generates after a prefill of the session. `prefill_logits`: the
/// prefill's last row when host_sampling (else unused). `history` holds
/// the tokens the repetition penalty sees; generated tokens are appended.
/// Every generated token but the last is decoded into the cache, so the
/// session's position is that of the last printed token.
GenerationResult generate(llmc_session *session, llmc_sampler *sampler,
                          const float *prefill_logits, int32_t context_length,
                          const GenerationSettings &settings,
                          std::vector<int32_t> &history, TokenPrinter &out);

/// The ids that end a generation for this model: its config's eos ids, the
/// tokenizer's end-of-generation ids and a generation_config.json's list.
std::vector<int32_t> end_of_generation_ids(const llmc_model_info &info,
                                           const llmc_tokenizer *tokenizer,
                                           const llmc_generation_config &generation);

} // namespace llmc_run

#endif // LLMC_RUN_GENERATION_H
