// Binds a weight set to an artifact's weight table: names, shapes, dtype, RoPE row order, tying.
#ifndef LLMC_RUNTIME_WEIGHT_BINDING_H
#define LLMC_RUNTIME_WEIGHT_BINDING_H

#include "aligned_buffer.h"
#include "artifact_manifest.h"
#include "weight_set.h"

#include <vector>

namespace llmc::rt {

/// The `weights` argument of the entry points: one pointer per manifest
/// weight, in manifest order. Pointers either point into the WeightSet
/// (f32 data used in place, or its cached conversion) or into `owned`
/// (tensors whose rows had to be reordered), so the set must outlive this.
struct BoundWeights {
  std::vector<const void *> pointers;
  std::vector<AlignedBuffer> owned;
};

/// Throws Error naming the first tensor that is missing (LLMC_ERR_NOT_FOUND)
/// or has the wrong shape (LLMC_ERR_FORMAT). Not thread-safe on `set` only
/// for its f32 cache, which locks itself.
BoundWeights bind_weights(const Manifest &manifest, WeightSet &set);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_WEIGHT_BINDING_H
