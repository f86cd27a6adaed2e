// extern "C" llmc_session_* entry points over Session.
#include "api_guard.h"
#include "handles.h"

#include <memory>

using namespace llmc::rt;

extern "C" {

llmc_status llmc_session_create(const llmc_model *model, llmc_weights *weights,
                                llmc_session **out) {
  return guarded([&] {
    require(model, "llmc_session_create", "model");
    require(weights, "llmc_session_create", "weights");
    require(out, "llmc_session_create", "out");
    *out = new llmc_session{Session(model->model, weights->set)};
  });
}

void llmc_session_destroy(llmc_session *session) { delete session; }

llmc_status llmc_session_prefill(llmc_session *session, const int32_t *tokens,
                                 size_t n_tokens, const float **last_logits,
                                 const float **all_logits) {
  return guarded([&] {
    require(session, "llmc_session_prefill", "session");
    require(tokens, "llmc_session_prefill", "tokens");
    LogitRows rows = all_logits    ? LogitRows::All
                     : last_logits ? LogitRows::Last
                                   : LogitRows::None;
    const float *logits = session->session.prefill(tokens, n_tokens, rows);
    size_t vocab = static_cast<size_t>(session->session.model().manifest().vocab_size);
    if (all_logits)
      *all_logits = logits;
    if (last_logits)
      *last_logits = all_logits ? logits + (n_tokens - 1) * vocab : logits;
  });
}

llmc_status llmc_session_decode(llmc_session *session, int32_t token,
                                const float **logits) {
  return guarded([&] {
    require(session, "llmc_session_decode", "session");
    const float *l = session->session.decode(token, logits != nullptr);
    if (logits)
      *logits = l;
  });
}

llmc_status llmc_session_sample(llmc_session *session, llmc_sampler *sampler,
                                const int32_t *history, size_t n_history,
                                int32_t *token) {
  return guarded([&] {
    require(session, "llmc_session_sample", "session");
    require(sampler, "llmc_session_sample", "sampler");
    require(token, "llmc_session_sample", "token");
    if (n_history > 0)
      require(history, "llmc_session_sample", "history");
    *token = session->session.sample(sampler->s, history, n_history);
  });
}

llmc_status llmc_session_decode_sample(llmc_session *session, int32_t token,
                                       llmc_sampler *sampler,
                                       const int32_t *history, size_t n_history,
                                       int32_t *next_token) {
  return guarded([&] {
    require(session, "llmc_session_decode_sample", "session");
    require(sampler, "llmc_session_decode_sample", "sampler");
    require(next_token, "llmc_session_decode_sample", "next_token");
    if (n_history > 0)
      require(history, "llmc_session_decode_sample", "history");
    *next_token =
        session->session.decode_sample(token, sampler->s, history, n_history);
  });
}

void llmc_session_reset(llmc_session *session) {
  if (session)
    session->session.reset();
}

llmc_status llmc_session_rewind(llmc_session *session, int32_t position) {
  return guarded([&] {
    require(session, "llmc_session_rewind", "session");
    session->session.rewind(position);
  });
}

llmc_status llmc_session_set_threads(llmc_session *session, int threads) {
  return guarded([&] {
    require(session, "llmc_session_set_threads", "session");
    session->session.set_threads(threads);
  });
}

int llmc_session_threads(const llmc_session *session) {
  return session ? session->session.threads() : 0;
}

llmc_status llmc_session_cpu_wait_stats(const llmc_session *session,
                                        llmc_cpu_wait_stats *stats) {
  return guarded([&] {
    require(session, "llmc_session_cpu_wait_stats", "session");
    require(stats, "llmc_session_cpu_wait_stats", "stats");
    llmc::rt::CpuWaitStats s = session->session.cpu_wait_stats();
    stats->adaptive = s.adaptive ? 1 : 0;
    stats->calls = s.calls;
    stats->sleeping_calls = s.sleeping_calls;
  });
}

int32_t llmc_session_position(const llmc_session *session) {
  return session ? session->session.position() : 0;
}

const char *llmc_session_backend(const llmc_session *session) {
  return session ? session->session.backend().c_str() : "";
}

} // extern "C"
