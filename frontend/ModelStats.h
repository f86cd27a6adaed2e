//===- ModelStats.h - Parameter, KV-cache and FLOP counts for `llmc info` ==//
//
// Exact integer counts derived from a ModelConfig alone (no weights), so
// they can be checked against published figures and sized before loading.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_MODELSTATS_H
#define LLMC_FRONTEND_MODELSTATS_H

#include "KVCacheFormat.h"
#include "ModelConfig.h"

namespace llmc {

/// Parameters by group; biases count with the projection they belong to.
struct ParameterCounts {
  int64_t embedding = 0; // token embedding table [V, D]
  int64_t attention = 0; // q/k/v/o weights (+ biases), all layers
  int64_t mlp = 0;       // gate/up/down weights (+ biases), all layers
  int64_t norms = 0;     // every norm's weights (and LayerNorm biases)
  int64_t lmHead = 0;    // [V, D]; 0 when tied to the embedding

  /// The sum, saturating at INT64_MAX like every count here.
  int64_t total() const;
};

struct ModelStats {
  ParameterCounts parameters;

  /// Weights multiplied once per token: every projection plus the LM head,
  /// which is a matmul even when its matrix is shared with the embedding.
  int64_t matmulParameters = 0;

  KVCacheFormat kvFormat = KVCacheFormat::F16;
  /// Planes the cache stores: 2 (K and V), or 1 when the values are the
  /// keys (cachesValuesAsKeys).
  int64_t kvPlanes = 2;
  /// kvPlanes * layers * kv_heads * (head_dim * element bytes + scale
  /// bytes) (getKVHeadRowBytes).
  int64_t kvBytesPerToken = 0;
  /// kvBytesPerToken * max_position_embeddings.
  int64_t kvBytesFullContext = 0;
  /// kvBytesPerToken * sliding_window when a window bounds every layer.
  std::optional<int64_t> kvBytesWindow;

  /// Forward FLOPs for one token attending to n positions:
  ///   2 * matmulParameters  +  4 * layers * heads * head_dim * n
  /// (the first term: one multiply-add per weight; the second: QK^T and PV,
  /// head_dim multiply-adds each per head and attended position; n is capped
  /// by the sliding window). Norms, RoPE, softmax and SwiGLU are omitted:
  /// they are O(hidden) per token, under 0.1% for these models.
  int64_t flopsPerTokenMatmul = 0;
  /// 4 * heads * head_dim: one layer, one attended position.
  int64_t attentionFlopsPerLayerPosition = 0;
  /// The same for all layers.
  int64_t attentionFlopsPerPosition = 0;

  /// At context length `position`: the window caps the attended positions
  /// of the layers it applies to.
  int64_t flopsPerToken(int64_t position) const;

  int64_t numLayers = 0;
  std::optional<int64_t> slidingWindow;
  /// Layers the window applies to (getLayerWindow).
  int64_t windowedLayers = 0;
};

/// Counts for `config` with a KV cache stored as `kvFormat`.
ModelStats computeModelStats(const ModelConfig &config,
                             KVCacheFormat kvFormat);

/// Stable `key: value` lines (exact integers, then a readable form in
/// parentheses) as `llmc info` prints them.
void printModelStats(const ModelConfig &config, const ModelStats &stats,
                     llvm::raw_ostream &os);

} // namespace llmc

#endif // LLMC_FRONTEND_MODELSTATS_H
