// The backend a session runs its entry points on: CPU (host buffers) or CUDA (device buffers).
#ifndef LLMC_RUNTIME_EXECUTOR_H
#define LLMC_RUNTIME_EXECUTOR_H

#include "model.h"
#include "weight_set.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llmc::rt {

/// Owns the weights as the entry points take them, the KV cache and the
/// logits, and runs the compiled calls. The Session checks every input
/// before calling in (ids, positions, context), so executors trust them.
class Executor {
public:
  virtual ~Executor() = default;
  /// Runs tokens[0..n) at positions[0..n) (host arrays); returns host logits,
  /// valid until the next call: all of them, row-major [n, vocab], when
  /// `all_rows`, otherwise the last token's row alone (a GPU copies back
  /// only that).
  virtual const float *prefill(const int32_t *tokens, const int32_t *positions,
                               size_t n, bool all_rows) = 0;
  /// One token through the decode entry point; returns its host logits.
  virtual const float *decode(int32_t token, int32_t position) = 0;
  /// Zeroes the KV cache.
  virtual void reset() = 0;
  /// "cpu", or the GPU and image: "cuda:0 NVIDIA H200 (sm_90), sm_90 cubin".
  virtual const std::string &description() const = 0;
};

/// The executor for the model's target kind. `weights` must outlive the
/// executor where the CPU path uses f32 tensors in place.
std::unique_ptr<Executor> make_executor(std::shared_ptr<const Model> model,
                                        WeightSet &weights);

/// Throws LLMC_ERR_INTERNAL when an entry point returned non-zero.
void check_entry_status(const Manifest &m, int32_t status, const char *entry);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_EXECUTOR_H
