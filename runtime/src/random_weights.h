// Synthetic weights for benchmarks: an artifact's weight table filled with deterministic pseudo-random values.
#ifndef LLMC_RUNTIME_RANDOM_WEIGHTS_H
#define LLMC_RUNTIME_RANDOM_WEIGHTS_H

#include "artifact_manifest.h"
#include "weight_set.h"

#include <cstdint>

namespace llmc::rt {

/// Half-width of the uniform distribution of matrices and embeddings:
/// sqrt(3) * 0.02, so the standard deviation is 0.02 (Hugging Face's
/// initializer_range), which keeps activations finite through deep stacks.
constexpr double kRandomWeightBound = 0.034641016151377546;

/// Fills `set` with one tensor per manifest weight: canonical name, the
/// manifest's shape and dtype (f32, bf16, f16, or a block format the runtime
/// quantizes: q8_0, q4_0, q4_1, q5_0, q5_1), and values: 1 for norm
/// weights (names ending in "norm.weight"), 0 for biases (".bias"), anything
/// else uniform in [-kRandomWeightBound, kRandomWeightBound] from a
/// counter-based generator (splitmix64 of a key made of the seed and the
/// tensor's name, plus the element index), rounded to nearest even or
/// quantized as `--weight-type` quantizes at load (quantize_blocks); in
/// 64-byte-aligned memory the set owns; the RoPE layout is the manifest's,
/// so binding never reorders rows. Generated on all hardware threads in
/// fixed chunks: the bytes are the same for any thread count. An artifact's
/// f32 and bf16 variants get the same values up to rounding, and CPU and
/// CUDA artifacts of one config get identical ones.
void make_random_weights(const Manifest &manifest, uint64_t seed, WeightSet &set);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_RANDOM_WEIGHTS_H
