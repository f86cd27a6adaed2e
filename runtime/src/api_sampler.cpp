// extern "C" llmc_sampler_* entry points over Sampler.
#include "api_guard.h"
#include "handles.h"
#include "sampler.h"

#include <memory>

using namespace llmc::rt;


extern "C" {

void llmc_sampler_config_default(llmc_sampler_config *config) {
  if (!config)
    return;
  config->temperature = 1.0f;
  config->top_k = 0;
  config->top_p = 1.0f;
  config->repetition_penalty = 1.0f;
  config->seed = 0;
}

llmc_status llmc_sampler_create(const llmc_sampler_config *config,
                                int32_t vocab_size, llmc_sampler **out) {
  return guarded([&] {
    require(config, "llmc_sampler_create", "config");
    require(out, "llmc_sampler_create", "out");
    *out = new llmc_sampler{Sampler(*config, vocab_size)};
  });
}

void llmc_sampler_destroy(llmc_sampler *sampler) { delete sampler; }

void llmc_sampler_reseed(llmc_sampler *sampler, uint64_t seed) {
  if (sampler)
    sampler->s.reseed(seed);
}

llmc_status llmc_sampler_sample(llmc_sampler *sampler, const float *logits,
                                const int32_t *history, size_t n_history,
                                int32_t *token) {
  return guarded([&] {
    require(sampler, "llmc_sampler_sample", "sampler");
    require(logits, "llmc_sampler_sample", "logits");
    require(token, "llmc_sampler_sample", "token");
    if (n_history > 0)
      require(history, "llmc_sampler_sample", "history");
    *token = sampler->s.sample(logits, history, n_history);
  });
}

} // extern "C"
