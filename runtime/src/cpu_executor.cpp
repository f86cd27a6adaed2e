// CpuExecutor: the compiled CPU entry points called on host memory.
#include "cpu_executor.h"

#include "error.h"
#include "host_malloc.h"
#include "kv_page_table.h"

#include <cstring>

namespace llmc::rt {

CpuExecutor::CpuExecutor(std::shared_ptr<const Model> model, WeightSet &weights)
    : model_(std::move(model)),
      weights_(bind_weights(model_->manifest(), weights)),
      kv_cache_(static_cast<size_t>(model_->manifest().kv_cache_bytes),
                describe_kv_cache(model_->manifest()).c_str()),
      page_table_(make_page_table(model_->manifest())),
      wait_policy_(model_->cpu_threads().blocktime_setter()) {
  keep_freed_buffers_mapped();
  write_page_table();
}

void CpuExecutor::write_page_table() {
  if (!page_table_.empty())
    std::memcpy(kv_cache_.data(), page_table_.data(),
                page_table_.size() * sizeof(int32_t));
}

float *CpuExecutor::logits_for(size_t n) {
  size_t bytes = n * static_cast<size_t>(model_->manifest().vocab_size) * sizeof(float);
  if (logits_.size() < bytes)
    logits_ = AlignedBuffer(bytes, "logits");
  return logits_.f32();
}

template <typename Call>
void CpuExecutor::run_entry(const char *entry, Call call) {
  model_->cpu_threads().apply(threads_);
  wait_policy_.before_call();
  int32_t status = call();
  wait_policy_.after_call();
  check_entry_status(model_->manifest(), status, entry);
}

const float *CpuExecutor::prefill(const int32_t *tokens,
                                  const int32_t *positions, size_t n,
                                  LogitRows rows) {
  last_row_ = nullptr;
  // The entry point computes the logits of the last logit_rows tokens only.
  size_t logit_rows = rows == LogitRows::All ? n : 1;
  float *logits = logits_for(logit_rows);
  run_entry("prefill", [&] {
    return model_->prefill()(tokens, positions, static_cast<int64_t>(n),
                             static_cast<int64_t>(logit_rows),
                             kv_cache_.data(), weights_.pointers.data(),
                             logits);
  });
  last_row_ = logits + (logit_rows - 1) * static_cast<size_t>(model_->manifest().vocab_size);
  return rows == LogitRows::All ? logits : last_row_;
}

const float *CpuExecutor::decode(int32_t token, int32_t position, bool) {
  last_row_ = nullptr;
  float *logits = logits_for(1);
  run_entry("decode", [&] {
    return model_->decode()(&token, &position, kv_cache_.data(),
                            weights_.pointers.data(), logits);
  });
  last_row_ = logits;
  return logits;
}

void CpuExecutor::reset() {
  kv_cache_.clear();
  write_page_table();
  last_row_ = nullptr;
}

} // namespace llmc::rt
