// Builds the `llm` dialect module (prefill and decode functions) of a ModelConfig.
#ifndef LLMC_GRAPH_MODELBUILDER_H
#define LLMC_GRAPH_MODELBUILDER_H

#include "dialect/LLMTypes.h"
#include "frontend/KVCacheFormat.h"
#include "frontend/ModelConfig.h"
#include "graph/WeightFormatChoice.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace llmc {

/// Choices made at compile time that the model description leaves open.
struct ModelBuildOptions {
  /// Sequences decoded together (the KV cache's batch).
  int64_t batch = 1;
  /// KV-cache capacity in positions; 0 means max_position_embeddings.
  int64_t contextLength = 0;
  /// The format of each weight, by name (chooseWeightFormats); a weight
  /// missing from it is in the config's dtype.
  WeightFormatMap weightFormats;
  /// How the KV cache stores keys and values; activations are always f32.
  KVCacheFormat kvType = KVCacheFormat::F32;
  /// Store the cache in pages of `kvPageSize` positions behind a page table
  /// instead of one block per sequence.
  bool pagedKVCache = false;
  int64_t kvPageSize = mlir::llm::kDefaultKVPageSize;
};

/// Positions the KV cache holds: `options.contextLength`, or the model's
/// max_position_embeddings when that is 0.
int64_t getKVCacheCapacity(const ModelConfig &config,
                           const ModelBuildOptions &options);

/// Builds a module with private `func.func @prefill` (T new tokens) and
/// `func.func @decode` (one token), each calling a private layer function
/// (`@prefill_layer`, `@decode_layer`) once per layer with the layer index;
/// layers whose weights differ in format (a Q4_K_M file's Q6_K layers) get
/// a layer function per distinct set of formats (`@decode_layer_1`, ...).
/// A prefill layer also takes output_rows (after the layer index): it
/// computes its attention's queries and everything after them for its last
/// output_rows tokens only, all of them in every layer but the last, which
/// gets logit_rows.
/// Both take (tokens, positions, kv_cache[, kv_page_table], weights...) and
/// return (logits, updated kv_cache); weights follow getWeightTable's order
/// and carry their names as `llm.weight` argument attributes. The prefill
/// also takes `logit_rows: index` last (`llm.input = "logit_rows"`): its
/// logits are those of its last logit_rows tokens. The caller loads the
/// needed dialects into `context`.
mlir::OwningOpRef<mlir::ModuleOp>
buildModelModule(mlir::MLIRContext &context, const ModelConfig &config,
                 const ModelBuildOptions &options);

} // namespace llmc

#endif // LLMC_GRAPH_MODELBUILDER_H
