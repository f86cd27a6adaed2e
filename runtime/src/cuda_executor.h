// Runs a CUDA artifact's entry points: device weights, KV cache and buffers, the host API table, decode graphs.
#ifndef LLMC_RUNTIME_CUDA_EXECUTOR_H
#define LLMC_RUNTIME_CUDA_EXECUTOR_H

#include "executor.h"

#include <memory>

namespace llmc::rt {

/// Creates the CUDA executor of one session: acquires the GPU and the model's
/// module first (so a machine without CUDA fails before any weight is
/// touched), then uploads the weights, zeroes a device KV cache and creates
/// the session's stream. Environment: LLMC_CUDA_GRAPHS=0 runs every decode
/// step through the host code instead of replaying a CUDA graph (as the
/// session does by itself, after a one-line warning on stderr, when the
/// capture of the graph fails).
std::unique_ptr<Executor> make_cuda_executor(std::shared_ptr<const Model> model,
                                             WeightSet &weights);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_EXECUTOR_H
