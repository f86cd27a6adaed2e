// Binds a weight set to an artifact's weight table: names, shapes, dtype, RoPE row order, tying.
#ifndef LLMC_RUNTIME_WEIGHT_BINDING_H
#define LLMC_RUNTIME_WEIGHT_BINDING_H

#include "aligned_buffer.h"
#include "artifact_manifest.h"
#include "weight_set.h"

#include <vector>

namespace llmc::rt {

/// The `weights` argument of the entry points: one pointer per manifest
/// weight, in manifest order. Pointers either point into the WeightSet's
/// resident weights (tensors as stored, their f32 conversions, interleaved
/// groups: one copy for every session, in huge pages) or into `owned`
/// (tensors whose rows had to be reordered or converted), so the set must
/// outlive this.
struct BoundWeights {
  std::vector<const void *> pointers;
  std::vector<AlignedBuffer> owned;
};

/// Throws Error naming the first tensor that is missing (LLMC_ERR_NOT_FOUND)
/// or has the wrong shape (LLMC_ERR_FORMAT). Not thread-safe on `set` only
/// for its f32 cache, which locks itself.
BoundWeights bind_weights(const Manifest &manifest, WeightSet &set);

/// Binds manifest weight `index` alone: its data in the manifest dtype
/// (weight_bytes(w) bytes), pointing into `set` (a tensor stored in that
/// dtype, unless its q/k rows are reordered) or into a buffer appended to
/// `owned`. For backends that copy each weight elsewhere (the CUDA upload)
/// and can drop `owned` after each one, so the host never holds a second
/// copy of the whole model: they pass cache_in_set = false, and a tensor that
/// needs converting goes through f32 in `owned` instead of the set's f32
/// cache, and a matrix read in interleaved groups is repacked into `owned`
/// instead of the set's shared copy (the set's caches keep what they hold
/// until it is destroyed). Throws like bind_weights.
const void *bind_weight(const Manifest &manifest, WeightSet &set, size_t index,
                        std::vector<AlignedBuffer> &owned, bool cache_in_set);

/// Bytes of one weight in its manifest dtype.
uint64_t weight_bytes(const ManifestWeight &w);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_WEIGHT_BINDING_H
