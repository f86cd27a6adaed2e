// Runs a CPU artifact's entry points on host buffers.
#ifndef LLMC_RUNTIME_CPU_EXECUTOR_H
#define LLMC_RUNTIME_CPU_EXECUTOR_H

#include "aligned_buffer.h"
#include "cpu_threads.h"
#include "cpu_wait_policy.h"
#include "executor.h"
#include "weight_binding.h"

#include <vector>

namespace llmc::rt {

/// Weights bound in place (f32) or converted once; a zeroed 64-byte-aligned
/// KV cache (a paged one headed by make_page_table's table); a logits buffer grown to the longest prefill. Its logits are
/// host memory already, so every call returns them and sampling is the
/// Session's (on the host).
class CpuExecutor final : public Executor {
public:
  CpuExecutor(std::shared_ptr<const Model> model, WeightSet &weights);
  const float *prefill(const int32_t *tokens, const int32_t *positions,
                       size_t n, LogitRows rows) override;
  const float *decode(int32_t token, int32_t position, bool host_logits) override;
  const float *last_logits() override { return last_row_; }
  void reset() override;
  void set_threads(int threads) override { threads_ = threads; }
  int threads() const override { return threads_; }
  CpuWaitStats cpu_wait_stats() const override {
    return {wait_policy_.adaptive(), wait_policy_.calls(),
            wait_policy_.sleeping_calls()};
  }
  const std::string &description() const override { return description_; }

private:
  float *logits_for(size_t n);
  /// Runs one entry point (`call()` returns its status): the thread count
  /// and wait policy applied around it, then its status checked. Defined
  /// (and instantiated) in cpu_executor.cpp.
  template <typename Call> void run_entry(const char *entry, Call call);
  /// Copies the page table of a paged cache to the head of kv_cache_.
  void write_page_table();

  std::shared_ptr<const Model> model_;
  BoundWeights weights_;
  AlignedBuffer kv_cache_;
  std::vector<int32_t> page_table_; // empty for a contiguous cache
  CpuWaitPolicy wait_policy_;
  AlignedBuffer logits_;
  const float *last_row_ = nullptr; // in logits_: the last call's last row
  int threads_ = CpuThreads::default_count();
  std::string description_ = "cpu";
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CPU_EXECUTOR_H
