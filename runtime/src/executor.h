// The backend a session runs its entry points on: CPU (host buffers) or CUDA (device buffers).
#ifndef LLMC_RUNTIME_EXECUTOR_H
#define LLMC_RUNTIME_EXECUTOR_H

#include "device_sampling.h"
#include "model.h"
#include "sampler.h"
#include "weight_set.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llmc::rt {

/// How a CPU session's threads waited (llmc_cpu_wait_stats).
struct CpuWaitStats {
  bool adaptive = false;
  uint64_t calls = 0;
  uint64_t sleeping_calls = 0;
};

/// Which logits a prefill returns on the host.
enum class LogitRows { None, Last, All };

/// Owns the weights as the entry points take them, the KV cache and the
/// logits, and runs the compiled calls. The Session checks every input
/// before calling in (ids, positions, context, the sampler), so executors
/// trust them.
///
/// The logits of the last prefill/decode call stay where they were computed
/// until someone needs them: on a GPU they come back to the host only when
/// the call asks for them or last_logits() is called, and the sampling
/// calls draw the next token next to them, copying back 4 bytes.
class Executor {
public:
  virtual ~Executor() = default;
  /// Runs tokens[0..n) at positions[0..n) (host arrays); returns host logits,
  /// valid until the next call: all of them, row-major [n, vocab], for
  /// LogitRows::All, the last token's row for Last (a GPU copies back only
  /// that), nullptr or the last row for None (a GPU copies back nothing).
  virtual const float *prefill(const int32_t *tokens, const int32_t *positions,
                               size_t n, LogitRows rows) = 0;
  /// One token through the decode entry point; returns its host logits, or
  /// with `host_logits` false nullptr or them (a GPU copies back nothing).
  virtual const float *decode(int32_t token, int32_t position,
                              bool host_logits) = 0;
  /// The last row of logits of the previous prefill/decode call on the host
  /// (copied back now if it was left on the GPU); valid until the next call.
  virtual const float *last_logits() = 0;

  /// Whether sample() and decode_sample() can run: a GPU whose artifact has
  /// the sampling kernels. Otherwise the Session samples last_logits().
  virtual bool samples_on_device() const { return false; }
  /// The token `plan` (not None) draws from the last row of logits, drawn
  /// where they are; TopKTopP takes its uniform number from `sampler` right
  /// before the launch.
  virtual int32_t sample(const DeviceSampling &plan, Sampler &sampler);
  /// decode() then sample() as one step (one synchronization).
  virtual int32_t decode_sample(int32_t token, int32_t position,
                                const DeviceSampling &plan, Sampler &sampler);
  /// Zeroes the KV cache.
  virtual void reset() = 0;
  /// The CPU threads each call runs on (>= 1); no effect on a GPU.
  virtual void set_threads(int) {}
  /// The CPU threads each call runs on; 0 on a GPU.
  virtual int threads() const { return 0; }
  /// How the CPU threads waited so far; all zero on a GPU.
  virtual CpuWaitStats cpu_wait_stats() const { return {}; }
  /// "cpu", or the GPU and image: "cuda:0 NVIDIA H200 (sm_90), sm_90 cubin".
  virtual const std::string &description() const = 0;
};

/// The executor for the model's target kind. `weights` must outlive the
/// executor where the CPU path uses f32 tensors in place.
std::unique_ptr<Executor> make_executor(std::shared_ptr<const Model> model,
                                        WeightSet &weights);

/// What the KV cache buffer is, for allocation errors: the context length
/// that sized it and what to change when it does not fit.
std::string describe_kv_cache(const Manifest &m);

/// Throws LLMC_ERR_INTERNAL when an entry point returned non-zero.
void check_entry_status(const Manifest &m, int32_t status, const char *entry);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_EXECUTOR_H
