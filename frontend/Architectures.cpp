// The architecture registry: each family's decoder block and tensor names.
#include "Architectures.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace llmc {

StringRef TensorNames::get(WeightRole role) const {
  switch (role) {
  case WeightRole::Embedding:
    return embedding;
  case WeightRole::AttnNorm:
    return attnNorm;
  case WeightRole::AttnPostNorm:
    return attnPostNorm;
  case WeightRole::QProj:
    return qProj;
  case WeightRole::KProj:
    return kProj;
  case WeightRole::VProj:
    return vProj;
  case WeightRole::QNorm:
    return qNorm;
  case WeightRole::KNorm:
    return kNorm;
  case WeightRole::OProj:
    return oProj;
  case WeightRole::QAProj:
    return qAProj;
  case WeightRole::QANorm:
    return qANorm;
  case WeightRole::KVANorm:
    return kvANorm;
  // Parts of fused tensors: the weight table names them after their tensor.
  case WeightRole::QRopeProj:
    return qBProj;
  case WeightRole::KVAProj:
  case WeightRole::KRopeProj:
    return kvAProj;
  case WeightRole::KUpProj:
  case WeightRole::VUpProj:
    return kvBProj;
  case WeightRole::FFNNorm:
    return ffnNorm;
  case WeightRole::FFNPostNorm:
    return ffnPostNorm;
  case WeightRole::GateProj:
    return gateProj;
  case WeightRole::UpProj:
    return upProj;
  case WeightRole::DownProj:
    return downProj;
  // Named by the weight table (transformers' module paths under mlp.).
  case WeightRole::MoERouter:
    return "mlp.gate";
  case WeightRole::MoEExperts:
    return "mlp.experts";
  case WeightRole::MoESharedExperts:
    return "mlp.shared_experts";
  case WeightRole::FinalNorm:
    return finalNorm;
  case WeightRole::LMHead:
    return lmHead;
  }
  llvm_unreachable("unknown weight role");
}

namespace {

/// LLaMA's block: pre-RMSNorm, sequential residual, gated FFN.
constexpr DecoderBlock kLlamaBlock{};

DecoderBlock withQKNorm(DecoderBlock block, QKNormKind kind) {
  block.qkNorm = kind;
  return block;
}

/// Phi-3: LLaMA's block with fused qkv_proj and gate_up_proj tensors.
DecoderBlock fusedProjectionBlock() {
  DecoderBlock block;
  block.qkvLayout = QKVLayout::Concatenated;
  block.fusedGateUp = true;
  return block;
}

/// GPT-NeoX: LayerNorm with bias, attention and a plain GELU MLP in
/// parallel, q/k/v fused per head.
DecoderBlock neoxBlock() {
  DecoderBlock block;
  block.norm = NormKind::LayerNorm;
  block.residual = ResidualTopology::Parallel;
  block.feedForward = FeedForwardKind::Plain;
  block.qkvLayout = QKVLayout::PerHead;
  return block;
}

/// Gemma: (1 + w) RMSNorms, embeddings scaled by sqrt(hidden_size).
DecoderBlock gemmaBlock() {
  DecoderBlock block;
  block.normWeightOffset = 1.0;
  block.scaleEmbeddings = true;
  return block;
}

/// Gemma 2: Gemma's block with norms on both sides of each sublayer (the
/// softcaps and the attention scale come from the config).
DecoderBlock gemma2Block() {
  DecoderBlock block = gemmaBlock();
  block.normPlacement = NormPlacement::Sandwich;
  return block;
}

HFConfigDefaults gemmaDefaults() {
  HFConfigDefaults d;
  d.maxPositionEmbeddings = 8192;
  d.tieWordEmbeddings = true;
  d.activationDefault = "gelu_pytorch_tanh";
  d.geluMeansTanh = true;
  d.readsAttentionBias = true;
  return d;
}

HFConfigDefaults gemma2Defaults() {
  HFConfigDefaults d = gemmaDefaults();
  d.geluMeansTanh = false;
  d.activationKey = "hidden_activation";
  d.slidingWindow = 4096;
  d.windowRule = HFWindowRule::AlternatingLayers;
  d.readsGemma2Attention = true;
  return d;
}

/// Gemma 3: Gemma 2's block with per-head (1 + w) q/k norms.
DecoderBlock gemma3Block() {
  DecoderBlock block = gemma2Block();
  block.qkNorm = QKNormKind::PerHead;
  return block;
}

HFConfigDefaults gemma3Defaults() {
  HFConfigDefaults d = gemma2Defaults();
  d.maxPositionEmbeddings = 131072;
  d.slidingWindowPattern = 6;
  d.ropeTheta = 1e6;
  d.slidingRopeTheta = 10000.0;
  d.attentionSoftcapDefault = d.finalLogitSoftcapDefault = std::nullopt;
  return d;
}

TensorNames gemma2Names() {
  TensorNames n;
  n.ffnNorm = "pre_feedforward_layernorm";
  return n;
}

HFConfigDefaults llamaDefaults() {
  HFConfigDefaults d;
  d.readsAttentionBias = d.readsMLPBias = true;
  return d;
}

HFConfigDefaults mistralDefaults() {
  HFConfigDefaults d;
  d.maxPositionEmbeddings = 4096 * 32;
  d.slidingWindow = 4096;
  d.windowRule = HFWindowRule::EveryLayer;
  return d;
}

HFConfigDefaults qwenDefaults(bool qkvBiasAlways) {
  HFConfigDefaults d;
  d.maxPositionEmbeddings = 32768;
  d.slidingWindow = 4096;
  d.windowRule = HFWindowRule::UseSlidingWindowLayers;
  d.qkvBiasAlways = qkvBiasAlways;
  d.readsAttentionBias = !qkvBiasAlways;
  return d;
}

HFConfigDefaults olmo2Defaults() {
  HFConfigDefaults d;
  d.normEps = 1e-5;
  d.readsAttentionBias = true;
  return d;
}

HFConfigDefaults phi3Defaults() {
  HFConfigDefaults d;
  d.maxPositionEmbeddings = 4096;
  d.windowRule = HFWindowRule::EveryLayer;
  d.normEps = 1e-5;
  d.appliesPartialRotary = true;
  d.topLevelOriginalMaxPositions = 4096;
  return d;
}

HFConfigDefaults neoxDefaults() {
  HFConfigDefaults d;
  d.normEps = 1e-5;
  d.normEpsKey = "layer_norm_eps";
  d.ropeThetaKey = "rotary_emb_base";
  d.appliesPartialRotary = true;
  d.partialRotaryKey = "rotary_pct";
  d.partialRotaryDefault = 0.25;
  d.readsAttentionBias = true;
  d.attentionBiasDefault = true;
  d.mlpBiasAlways = true;
  d.readsParallelResidual = true;
  return d;
}

TensorNames neoxNames() {
  TensorNames n;
  n.embedding = "gpt_neox.embed_in";
  n.layers = "gpt_neox.layers";
  n.finalNorm = "gpt_neox.final_layer_norm";
  n.lmHead = "embed_out";
  n.qkvProj = "attention.query_key_value";
  n.oProj = "attention.dense";
  n.upProj = "mlp.dense_h_to_4h";
  n.downProj = "mlp.dense_4h_to_h";
  return n;
}

/// GPT-J: GPT-NeoX's parallel block with one LayerNorm read by both
/// branches, separate q/k/v.
DecoderBlock gptjBlock() {
  DecoderBlock block = neoxBlock();
  block.qkvLayout = QKVLayout::Separate;
  block.parallelSharesNorm = true;
  return block;
}

HFConfigDefaults gptjDefaults() {
  HFConfigDefaults d;
  d.keys.hiddenSize = "n_embd";
  d.keys.intermediateSize = "n_inner";
  d.keys.numLayers = "n_layer";
  d.keys.numHeads = "n_head";
  d.keys.maxPositions = "n_positions";
  d.intermediateHiddenMultiple = 4;
  d.normEps = 1e-5;
  d.normEpsKey = "layer_norm_epsilon";
  d.readsRope = false;
  d.rotatesInterleavedPairs = true;
  d.appliesPartialRotary = true;
  d.rotaryDimKey = "rotary_dim";
  d.rotaryDimDefault = 64;
  d.activationKey = "activation_function";
  d.activationDefault = "gelu_new";
  d.mlpBiasAlways = true;
  d.lmHeadBiasAlways = true;
  return d;
}

TensorNames gptjNames() {
  TensorNames n;
  n.embedding = "transformer.wte";
  n.layers = "transformer.h";
  n.finalNorm = "transformer.ln_f";
  n.attnNorm = "ln_1";
  n.qProj = "attn.q_proj";
  n.kProj = "attn.k_proj";
  n.vProj = "attn.v_proj";
  n.oProj = "attn.out_proj";
  n.upProj = "mlp.fc_in";
  n.downProj = "mlp.fc_out";
  return n;
}

DecoderBlock postNormBlock() {
  DecoderBlock block;
  block.normPlacement = NormPlacement::Post;
  block.qkNorm = QKNormKind::Projection;
  return block;
}

/// DeepSeek-V2/V3 with dense MLPs: LLaMA's block with multi-head latent
/// attention.
DecoderBlock latentAttentionBlock() {
  DecoderBlock block;
  block.attention = AttentionKind::Latent;
  return block;
}

HFConfigDefaults deepseekDefaults(int64_t maxPositions, bool ropeInterleave) {
  HFConfigDefaults d;
  d.maxPositionEmbeddings = maxPositions;
  d.readsAttentionBias = true;
  d.readsLatentAttention = true;
  d.readsRopeInterleave = ropeInterleave;
  return d;
}

/// In name order (listArchitectures prints it). The defaults are those of
/// transformers 5's LlamaConfig, MistralConfig, ...
const Architecture kArchitectures[] = {
    {"deepseek_v2", latentAttentionBlock(),
     deepseekDefaults(2048, /*ropeInterleave=*/false), {}},
    {"deepseek_v3", latentAttentionBlock(),
     deepseekDefaults(4096, /*ropeInterleave=*/true), {}},
    {"gemma", gemmaBlock(), gemmaDefaults(), {}},
    {"gemma2", gemma2Block(), gemma2Defaults(), gemma2Names()},
    {"gemma3_text", gemma3Block(), gemma3Defaults(), gemma2Names()},
    {"gpt_neox", neoxBlock(), neoxDefaults(), neoxNames()},
    {"gptj", gptjBlock(), gptjDefaults(), gptjNames()},
    {"llama", kLlamaBlock, llamaDefaults(), {}},
    {"mistral", kLlamaBlock, mistralDefaults(), {}},
    // OLMo 2: norms on the sublayer outputs, q/k RMSNorm over the whole
    // projection (Olmo2Attention).
    {"olmo2", postNormBlock(), olmo2Defaults(), {}},
    {"phi3", fusedProjectionBlock(), phi3Defaults(), {}},
    {"qwen2", kLlamaBlock, qwenDefaults(/*qkvBiasAlways=*/true), {}},
    // Qwen3: Qwen2's block with per-head q/k RMSNorm and no q/k/v bias.
    {"qwen3", withQKNorm(kLlamaBlock, QKNormKind::PerHead),
     qwenDefaults(/*qkvBiasAlways=*/false), {}},
};

} // namespace

const Architecture *findArchitecture(StringRef modelType) {
  auto *found = find_if(kArchitectures, [&](const Architecture &arch) {
    return arch.name == modelType;
  });
  return found == std::end(kArchitectures) ? nullptr : found;
}

namespace {
/// The families whose GGUF architecture name differs from the model_type.
struct GGUFName {
  StringRef modelType, gguf;
};
constexpr GGUFName kGGUFNames[] = {{"gemma3_text", "gemma3"},
                                   {"gpt_neox", "gptneox"},
                                   {"deepseek_v2", "deepseek2"},
                                   {"deepseek_v3", "deepseek2"}};
} // namespace

StringRef getGGUFArchitecture(StringRef modelType) {
  for (const GGUFName &n : kGGUFNames)
    if (n.modelType == modelType)
      return n.gguf;
  return modelType;
}

StringRef getModelTypeOfGGUFArchitecture(StringRef ggufArchitecture) {
  for (const GGUFName &n : kGGUFNames)
    if (n.gguf == ggufArchitecture)
      return n.modelType;
  return ggufArchitecture;
}

RopeStyle getCheckpointRopeStyle(StringRef modelType) {
  const Architecture *family = findArchitecture(modelType);
  return family && family->hfDefaults.rotatesInterleavedPairs
             ? RopeStyle::Interleaved
             : RopeStyle::Half;
}

std::string listArchitectures() {
  std::string list;
  const size_t count = std::size(kArchitectures);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0)
      list += i + 1 == count ? " or " : ", ";
    list += kArchitectures[i].name.str();
  }
  return list;
}

} // namespace llmc
