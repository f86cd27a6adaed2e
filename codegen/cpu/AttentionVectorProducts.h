// The two products of a CPU attention key tile in vector registers: Q·Kᵀ eight
// keys at a time, P·V with a query row's accumulator held across the tile's
// keys.
#ifndef LLMC_CODEGEN_CPU_ATTENTIONVECTORPRODUCTS_H
#define LLMC_CODEGEN_CPU_ATTENTIONVECTORPRODUCTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <utility>

namespace llmc {

/// Whether the kernels below take a head dimension of this size: static and
/// a multiple of their 8 f32 lanes (every LLaMA-family head; otherwise the
/// tile's products stay linalg.generic loops).
bool isVectorAttentionDepth(int64_t headDim);

/// The keys [begin, end) of a key tile that query row (b, t, h) sees.
using VisibleKeys = llvm::function_ref<std::pair<mlir::Value, mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange row)>;

/// What turns a tile's dot products into the softmax's scores: × scale,
/// softcapped (before the mask, as Hugging Face's Gemma-2 does), and
/// `maskedScore` for the keys a row does not see (none without
/// `visibleKeys`).
struct AttentionScoreRule {
  mlir::Value scale;
  std::optional<double> softcap;
  VisibleKeys visibleKeys;
  double maskedScore;
};

/// Where a decode step's products prefetch the rows they read next: per key
/// of the tile, the same key `distance` rows further in `buffer` (the next
/// tile's), which the thread reads once this tile is done. A decode step
/// reads each key once and keys are far apart in the cache (a row of every
/// KV head per position), so without it the products wait on memory: see
/// bench/HISTORY.md, "Decode attention over a long context".
struct KeyPrefetch {
  /// The whole keys (or values) the tile was sliced from: a memref (B, S,
  /// KVH, ≥ D).
  mlir::Value buffer;
  /// Row (dimension 1) of `buffer` of the tile's key 0.
  mlir::Value tileStart;
  /// The last row a prefetch may name.
  mlir::Value lastKey;
  /// The KV head of `buffer` that the tile's KV head 0 is, when the tile
  /// holds one KV head; null when the tile holds them all.
  mlir::Value kvHead;
  int64_t distance;
};

/// The scores of a key tile and their row maxima: scores[b, t, h, s] = the
/// rule applied to Σ_d q[b, t, h, d] · keys[b, s, h floordiv group, d] (f32,
/// into `scoresInit`, (B, T, H, S)), max[b, t, h] = max(maskedScore, max_s
/// scores[b, t, h, s]) (into `maxInit`, (B, T, H)). q and keys are float
/// tensors (B, T, H, D) and (B, S, KVH, D), D a vector attention depth. Per
/// query row eight keys at a time: eight dot vectors over D, each q vector
/// loaded once for the eight, reduced together into one vector of eight
/// scores (packLaneSums); the keys past the last eight one at a time. With
/// `prefetch`, each group of eight prefetches its keys' rows ahead.
std::pair<mlir::Value, mlir::Value>
createAttentionScores(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value q, mlir::Value keys, int64_t group,
                      const AttentionScoreRule &rule, mlir::Value scoresInit,
                      mlir::Value maxInit,
                      const std::optional<KeyPrefetch> &prefetch);

/// acc[b, t, h, :] · rescale[b, t, h] + Σ_s probs[b, t, h, s] ·
/// values[b, s, h floordiv group, :], in place of `acc` (f32, (B, T, H,
/// Dv), Dv a vector attention depth; values (B, S, KVH, ≥ Dv), read from
/// column 0). A query row's accumulator stays in registers (up to 64
/// elements at a time) across the tile's keys, one FMA per key and vector.
/// With `visibleKeys`, a row sums over the keys it sees only: a masked key's
/// probability is 0, but its value may be NaN or Inf (a cache slot never
/// written), and 0 · NaN is NaN. Without it, over every key of the tile.
/// With `prefetch`, each key prefetches the value row ahead.
mlir::Value createAttentionValueSums(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::Value probs,
    mlir::Value values, mlir::Value rescale, mlir::Value acc, int64_t group,
    VisibleKeys visibleKeys, const std::optional<KeyPrefetch> &prefetch);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_ATTENTIONVECTORPRODUCTS_H
