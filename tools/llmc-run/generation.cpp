// generate(): the sampling/decode loop shared by a prompt run and every chat turn.
#include "generation.h"

#include "cli.h"

#include <algorithm>
#include <chrono>

namespace llmc_run {

namespace {
/// Most end-of-generation ids a tokenizer lists (eos and end-of-turn
/// tokens: a handful in every family).
constexpr size_t kMaxTokenizerStopIds = 64;
} // namespace

GenerationResult generate(llmc_session *session, llmc_sampler *sampler,
                          const float *prefill_logits, int32_t context_length,
                          const GenerationSettings &settings,
                          std::vector<int32_t> &history, TokenPrinter &out) {
  GenerationResult result;
  if (settings.max_tokens <= 0)
    return result;
  // The next token: from the prefill's last logits first, then from each
  // decode step (a step = the decode and the sampling of the next token).
  int32_t next = 0;
  if (settings.host_sampling)
    check(llmc_sampler_sample(sampler, prefill_logits, history.data(), history.size(), &next),
          "sampling");
  else
    check(llmc_session_sample(session, sampler, history.data(), history.size(), &next),
          "sampling");
  const std::vector<int32_t> &stop = settings.stop_ids;
  for (long i = 0; i < settings.max_tokens; ++i) {
    if (std::find(stop.begin(), stop.end(), next) != stop.end()) {
      result.stop = "EOS";
      break;
    }
    out.emit(next);
    history.push_back(next);
    result.tokens.push_back(next);
    if (i + 1 == settings.max_tokens)
      break; // the last token's logits are never needed
    if (llmc_session_position(session) >= context_length) {
      result.stop = "context full";
      break;
    }
    auto t0 = std::chrono::steady_clock::now();
    if (settings.host_sampling) {
      const float *logits = nullptr;
      check(llmc_session_decode(session, next, &logits));
      check(llmc_sampler_sample(sampler, logits, history.data(), history.size(), &next),
            "sampling");
    } else {
      check(llmc_session_decode_sample(session, next, sampler, history.data(),
                                       history.size(), &next));
    }
    result.step_seconds.push_back(seconds_since(t0));
  }
  out.finish();
  return result;
}

double GenerationResult::decode_seconds() const {
  double total = 0;
  for (double s : step_seconds)
    total += s;
  return total;
}

double GenerationResult::decode_rate() const {
  return step_seconds.empty() ? 0.0 : step_seconds.size() / decode_seconds();
}

std::vector<int32_t> end_of_generation_ids(const llmc_model_info &info,
                                           const llmc_tokenizer *tokenizer,
                                           const llmc_generation_config &generation) {
  std::vector<int32_t> ids;
  auto add = [&](int32_t id) {
    if (id >= 0 && id < info.vocab_size && std::find(ids.begin(), ids.end(), id) == ids.end())
      ids.push_back(id);
  };
  add(info.eos_token_id);
  if (tokenizer) {
    int32_t listed[kMaxTokenizerStopIds];
    size_t n = llmc_tokenizer_end_of_generation(tokenizer, listed, kMaxTokenizerStopIds);
    for (size_t i = 0; i < std::min(n, kMaxTokenizerStopIds); ++i)
      add(listed[i]);
  }
  for (int32_t i = 0; i < generation.n_eos_ids; ++i)
    add(generation.eos_ids[i]);
  return ids;
}

} // namespace llmc_run
