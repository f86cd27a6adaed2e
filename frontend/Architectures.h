//===- Architectures.h - The model families llmc compiles -------------------===//
//
// One row per family (Hugging Face model_type): the decoder block its layers
// share and the names its checkpoints give each tensor. Config parsers fill
// a ModelConfig's block from its family's row and then add what the config
// file says (softcaps, scales); the weight table names tensors from it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_ARCHITECTURES_H
#define LLMC_FRONTEND_ARCHITECTURES_H

#include "DecoderBlock.h"
#include "ModelConfig.h"
#include "WeightTable.h"

#include <string>

namespace llmc {

/// Tensor module paths as transformers' state dicts spell them: global ones
/// in full, per-layer ones relative to "<layers>.<i>.". Roles a family's
/// block does not use keep the default and are never read.
struct TensorNames {
  llvm::StringRef embedding = "model.embed_tokens";
  llvm::StringRef layers = "model.layers";
  llvm::StringRef finalNorm = "model.norm";
  llvm::StringRef lmHead = "lm_head";

  llvm::StringRef attnNorm = "input_layernorm";
  /// Norm of the attention output (post and sandwich placement).
  llvm::StringRef attnPostNorm = "post_attention_layernorm";
  /// Norm of the FFN input (pre and sandwich placement; parallel blocks).
  llvm::StringRef ffnNorm = "post_attention_layernorm";
  /// Norm of the FFN output (post and sandwich placement).
  llvm::StringRef ffnPostNorm = "post_feedforward_layernorm";
  llvm::StringRef qProj = "self_attn.q_proj";
  llvm::StringRef kProj = "self_attn.k_proj";
  llvm::StringRef vProj = "self_attn.v_proj";
  llvm::StringRef oProj = "self_attn.o_proj";
  llvm::StringRef qNorm = "self_attn.q_norm";
  llvm::StringRef kNorm = "self_attn.k_norm";
  /// The fused q/k/v tensor (QKVLayout other than Separate).
  llvm::StringRef qkvProj = "self_attn.qkv_proj";
  /// The fused gate/up tensor (DecoderBlock::fusedGateUp).
  llvm::StringRef gateUpProj = "mlp.gate_up_proj";
  llvm::StringRef gateProj = "mlp.gate_proj";
  llvm::StringRef upProj = "mlp.up_proj";
  llvm::StringRef downProj = "mlp.down_proj";
  /// Multi-head latent attention's tensors (q_proj above when there is no
  /// query LoRA).
  llvm::StringRef qAProj = "self_attn.q_a_proj";
  llvm::StringRef qANorm = "self_attn.q_a_layernorm";
  llvm::StringRef qBProj = "self_attn.q_b_proj";
  llvm::StringRef kvAProj = "self_attn.kv_a_proj_with_mqa";
  llvm::StringRef kvANorm = "self_attn.kv_a_layernorm";
  llvm::StringRef kvBProj = "self_attn.kv_b_proj";
  /// kv_b_proj split per head as llama.cpp's GGUF files store it
  /// (LatentUpProjectionLayout::Split): the names its converter gives the
  /// parts before they become blk.N.attn_k_b / attn_v_b.
  llvm::StringRef kBProj = "self_attn.k_b_proj";
  llvm::StringRef vBProj = "self_attn.v_b_proj";

  /// The module path of `role` (per-layer roles without the layer prefix).
  llvm::StringRef get(WeightRole role) const;
};

/// Which layers a config's sliding_window applies to.
enum class HFWindowRule {
  /// The family has no window (sliding_window is not read).
  None,
  /// Every layer (mistral, phi3).
  EveryLayer,
  /// Only with use_sliding_window, and then the layers of layer_types or
  /// those >= max_window_layers (qwen2, qwen3).
  UseSlidingWindowLayers,
  /// The layers of layer_types, by default every other one from layer 0
  /// (gemma2).
  AlternatingLayers,
};

/// The keys of the model's sizes. A family's config class may spell them
/// otherwise (transformers' attribute_map: GPT-J's n_embd, n_layer, ...).
struct HFSizeKeys {
  llvm::StringRef hiddenSize = "hidden_size";
  llvm::StringRef intermediateSize = "intermediate_size";
  llvm::StringRef numLayers = "num_hidden_layers";
  llvm::StringRef numHeads = "num_attention_heads";
  llvm::StringRef maxPositions = "max_position_embeddings";
};

/// How the family's transformers config class reads config.json: its
/// defaults for absent fields, and the keys and rules that differ between
/// families.
struct HFConfigDefaults {
  HFSizeKeys keys;
  /// When nonzero, an absent or null intermediate size means this many
  /// times hidden_size (GPT-J's n_inner: 4); else it is required.
  int64_t intermediateHiddenMultiple = 0;
  int64_t maxPositionEmbeddings = 2048;
  /// The window when the config enables one without giving its size.
  std::optional<int64_t> slidingWindow;
  HFWindowRule windowRule = HFWindowRule::None;
  /// AlternatingLayers without layer_types: layer i slides unless i + 1 is
  /// a multiple of this (gemma2 2, gemma3 6; gemma3 reads
  /// sliding_window_pattern).
  int64_t slidingWindowPattern = 2;
  double ropeTheta = 10000.0;
  /// gemma3: windowed layers use rope_local_base_freq (this default),
  /// unscaled.
  std::optional<double> slidingRopeTheta;
  double normEps = 1e-6;
  llvm::StringRef normEpsKey = "rms_norm_eps";
  /// Whether the family reads rope_theta (ropeThetaKey) and rope_scaling /
  /// rope_parameters; GPT-J's sinusoids always use base 10000, unscaled.
  bool readsRope = true;
  llvm::StringRef ropeThetaKey = "rope_theta";
  /// Hugging Face checkpoints rotate halves (rotate_half); GPT-J rotates
  /// interleaved pairs (rotate_every_two) of its checkpoints' q/k rows.
  bool rotatesInterleavedPairs = false;
  bool tieWordEmbeddings = false;
  /// The activation's key ("hidden_activation" for gemma2) and default;
  /// GemmaConfig turns a legacy "gelu" into the tanh approximation.
  llvm::StringRef activationKey = "hidden_act";
  llvm::StringRef activationDefault = "silu";
  bool geluMeansTanh = false;
  /// gemma2: attn_logit_softcapping, final_logit_softcapping and
  /// query_pre_attn_scalar, with these defaults (null disables a cap).
  bool readsGemma2Attention = false;
  std::optional<double> attentionSoftcapDefault = 50.0,
                        finalLogitSoftcapDefault = 30.0;
  double queryPreAttnScalarDefault = 256.0;
  /// Whether the attention applies partial_rotary_factor (phi3, gpt_neox);
  /// llama-like attention rotates whole heads whatever the config says.
  bool appliesPartialRotary = false;
  llvm::StringRef partialRotaryKey = "partial_rotary_factor";
  double partialRotaryDefault = 1.0;
  /// GPT-J gives the rotated width as an element count instead of a
  /// factor: this key, with this default (null is refused: transformers
  /// then builds its sinusoids for hidden_size, not head_dim).
  llvm::StringRef rotaryDimKey;
  int64_t rotaryDimDefault = 0;
  /// phi3: a top-level original_max_position_embeddings (default 4096)
  /// overrides the rope object's, and rope types "su" and "yarn" mean
  /// longrope.
  std::optional<int64_t> topLevelOriginalMaxPositions;
  /// Biases: qwen2 has them on q, k and v always; attention_bias (default
  /// below) puts them on q, k, v and o; mlp_bias is read by llama only;
  /// gpt_neox's MLP always has them.
  bool qkvBiasAlways = false;
  bool readsAttentionBias = false;
  bool attentionBiasDefault = false;
  bool readsMLPBias = false;
  bool mlpBiasAlways = false;
  /// gpt_neox: use_parallel_residual (default true) picks the topology.
  bool readsParallelResidual = false;
  /// gptj: lm_head has a bias.
  bool lmHeadBiasAlways = false;
  /// deepseek_v2 / deepseek_v3: the latent attention's widths, with
  /// transformers' defaults, the yarn mscale_all_dim softmax scale and
  /// first_k_dense_replace (layers from it on are mixture-of-experts).
  bool readsLatentAttention = false;
  /// deepseek_v3: rope_interleave (default true) rotates adjacent pairs;
  /// deepseek_v2 always does (complex multiplication of pairs).
  bool readsRopeInterleave = false;
};

struct Architecture {
  /// The Hugging Face model_type.
  llvm::StringRef name;
  DecoderBlock block;
  HFConfigDefaults hfDefaults;
  TensorNames tensors;
};

/// The RoPE row order of `modelType`'s Hugging Face (safetensors)
/// checkpoints: the one its transformers modeling code rotates.
RopeStyle getCheckpointRopeStyle(llvm::StringRef modelType);

/// llama.cpp's general.architecture for `modelType` ("gptneox" for
/// gpt_neox, "gemma3" for gemma3_text, "deepseek2" for deepseek_v2 and
/// deepseek_v3; the model_type itself otherwise), and the reverse
/// ("deepseek2" is read as deepseek_v2: the file does not say which, and
/// both have the same block and tensors).
llvm::StringRef getGGUFArchitecture(llvm::StringRef modelType);
llvm::StringRef getModelTypeOfGGUFArchitecture(llvm::StringRef ggufArchitecture);

/// The family named `modelType`, or null.
const Architecture *findArchitecture(llvm::StringRef modelType);

/// "gemma, gemma2, ... or qwen3": every family, for error messages.
std::string listArchitectures();

} // namespace llmc

#endif // LLMC_FRONTEND_ARCHITECTURES_H
