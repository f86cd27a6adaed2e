//===- DecoderBlock.h - Declarative description of one decoder layer -------===//
//
// What distinguishes the decoder layers of one model family from another's:
// which norm, where it sits, how attention and the feed-forward network
// join the residual stream, which FFN, which extras around attention. The
// weight table (WeightTable.h), the `llm` graph builder, `llmc info` and
// `--compile-to=config` all read this one description, so a new family is
// a new row of the architecture registry (Architectures.cpp) plus the
// config fields that fill it, not a change in every phase.
//
// The block of every layer (x is the residual stream):
//   Pre       x += attn(norm(x));        x += ffn(norm(x))           llama
//   Post      x += norm(attn(x));        x += norm(ffn(x))           olmo2
//   Sandwich  x += norm(attn(norm(x)));  x += norm(ffn(norm(x)))     gemma2
//   Parallel  x += attn(norm_a(x)) + ffn(norm_f(x))                  gpt_neox
//             x += attn(norm(x)) + ffn(norm(x))   (one shared norm)  gptj
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_DECODERBLOCK_H
#define LLMC_FRONTEND_DECODERBLOCK_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace llmc {

/// RMSNorm (weight only) or LayerNorm (weight and bias).
enum class NormKind { RMSNorm, LayerNorm };

/// Where the norms sit around each sublayer (see the file comment).
enum class NormPlacement { Pre, Post, Sandwich };

/// Sequential: the FFN reads the stream after attention's update.
/// Parallel: attention and FFN both read the layer's input.
enum class ResidualTopology { Sequential, Parallel };

/// Gated: down(act(gate(x)) · up(x)). Plain: down(act(up(x))).
enum class FeedForwardKind { Gated, Plain };

/// How a checkpoint stores the q, k and v projections: three tensors, one
/// tensor [q; k; v] (phi3), or one tensor ordered per head, [H][q, k, v][Dh]
/// (gpt_neox). A fused tensor's rows are split at load (WeightSpec::source).
enum class QKVLayout { Separate, Concatenated, PerHead };

/// RMSNorm of queries and keys before RoPE: none, per head over head_dim
/// (qwen3, gemma3), or over the whole projection (olmo2).
enum class QKNormKind { None, PerHead, Projection };

/// MultiHead: q, k and v projections and a cache of every KV head's keys
/// and values. Latent: DeepSeek's multi-head latent attention (MLA): the
/// cache holds one normalized latent of kv_lora_rank plus one rotated key of
/// qk_rope_head_dim per token, shared by all heads; the key and value
/// up-projections (kv_b_proj) are absorbed into the queries and the output
/// (ModelConfig::latent has the widths).
enum class AttentionKind { MultiHead, Latent };

/// How a checkpoint stores latent attention's key and value up-projections.
/// Fused: one kv_b_proj of [H][qk_nope_head_dim key rows; v_head_dim value
/// rows] over the latent (transformers), split per head at load. Split:
/// llama.cpp's two per-head tensors, k_b_proj with each head's key rows
/// transposed, [H][kv_lora_rank][qk_nope_head_dim], and v_b_proj,
/// [H][v_head_dim][kv_lora_rank].
enum class LatentUpProjectionLayout { Fused, Split };

struct DecoderBlock {
  NormKind norm = NormKind::RMSNorm;
  /// Added to every RMSNorm weight before it scales: 1 for Gemma's
  /// (1 + w) norms in Hugging Face checkpoints (GGUF files bake it in).
  double normWeightOffset = 0.0;
  NormPlacement normPlacement = NormPlacement::Pre;
  ResidualTopology residual = ResidualTopology::Sequential;
  /// A parallel block's FFN reads the attention norm's output instead of
  /// normalizing x on its own (gptj's single ln_1).
  bool parallelSharesNorm = false;
  FeedForwardKind feedForward = FeedForwardKind::Gated;
  QKNormKind qkNorm = QKNormKind::None;
  QKVLayout qkvLayout = QKVLayout::Separate;
  AttentionKind attention = AttentionKind::MultiHead;
  /// Latent attention only: how the up-projections are stored.
  LatentUpProjectionLayout latentUpProjection =
      LatentUpProjectionLayout::Fused;
  /// gate and up are stored as one tensor [gate; up] (phi3).
  bool fusedGateUp = false;
  /// The token embeddings are multiplied by sqrt(hidden_size) (gemma).
  bool scaleEmbeddings = false;
  /// Attention scores become c · tanh(s / c) before the mask (gemma2).
  std::optional<double> attentionSoftcap;
  /// Logits become c · tanh(l / c) (gemma2 final_logit_softcapping).
  std::optional<double> finalLogitSoftcap;
  /// The softmax scale when it is not 1/sqrt(head_dim) (gemma2's
  /// query_pre_attn_scalar^-0.5).
  std::optional<double> attentionScale;
};

/// Whether the cache's values are its keys, stored once: latent attention
/// caches one head [c; k_pe] per token that is both (its absorbed queries
/// read the latent c as the value).
inline bool cachesValuesAsKeys(AttentionKind kind) {
  return kind == AttentionKind::Latent;
}

/// Lowercase names used by `--compile-to=config` and `llmc info`.
llvm::StringRef toString(NormKind kind);
llvm::StringRef toString(NormPlacement placement);
llvm::StringRef toString(ResidualTopology topology);
llvm::StringRef toString(FeedForwardKind kind);
llvm::StringRef toString(QKNormKind kind);
llvm::StringRef toString(QKVLayout layout);
llvm::StringRef toString(AttentionKind kind);
llvm::StringRef toString(LatentUpProjectionLayout layout);

} // namespace llmc

#endif // LLMC_FRONTEND_DECODERBLOCK_H
