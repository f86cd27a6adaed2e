//===- ConfigPrinter.cpp - The `--compile-to=config` dump of a ModelConfig ===//
//
// One `key: value` per line, always the same keys in the same order (rope
// scaling parameters only for the kinds that use them), so lit tests can
// FileCheck it and diffs between models read line by line.
//
//===----------------------------------------------------------------------===//

#include "ModelConfig.h"

using namespace llvm;

namespace llmc {

static StringRef boolName(bool value) { return value ? "true" : "false"; }

static void printRopeScaling(const RopeScaling &scaling, raw_ostream &os) {
  os << "rope_scaling: " << toString(scaling.kind) << "\n";
  if (scaling.kind == RopeScalingKind::None)
    return;
  os << "rope_scaling.factor: " << formatDouble(scaling.factor) << "\n";
  bool hasOriginal = scaling.kind == RopeScalingKind::Dynamic ||
                     scaling.kind == RopeScalingKind::Yarn ||
                     scaling.kind == RopeScalingKind::Llama3 ||
                     scaling.kind == RopeScalingKind::Longrope;
  if (hasOriginal)
    os << "rope_scaling.original_max_position_embeddings: "
       << scaling.originalMaxPositionEmbeddings << "\n";
  if (scaling.kind == RopeScalingKind::Llama3) {
    os << "rope_scaling.low_freq_factor: "
       << formatDouble(scaling.lowFreqFactor) << "\n";
    os << "rope_scaling.high_freq_factor: "
       << formatDouble(scaling.highFreqFactor) << "\n";
  }
  if (scaling.kind == RopeScalingKind::Yarn) {
    os << "rope_scaling.beta_fast: " << formatDouble(scaling.betaFast) << "\n";
    os << "rope_scaling.beta_slow: " << formatDouble(scaling.betaSlow) << "\n";
    os << "rope_scaling.truncate: " << boolName(scaling.truncate) << "\n";
  }
  if (scaling.kind == RopeScalingKind::Longrope) {
    for (auto [key, factors] : {std::pair{"short_factor", &scaling.shortFactor},
                                std::pair{"long_factor", &scaling.longFactor}}) {
      os << "rope_scaling." << key << ":";
      for (double f : *factors)
        os << " " << formatDouble(f);
      os << "\n";
    }
  }
  if (scaling.kind == RopeScalingKind::Yarn ||
      scaling.kind == RopeScalingKind::Longrope)
    os << "rope_scaling.attention_factor: "
       << (scaling.attentionFactor ? formatDouble(*scaling.attentionFactor)
                                   : std::string("default"))
       << "\n";
}

static void printDecoderBlock(const DecoderBlock &block, raw_ostream &os) {
  auto optional = [](std::optional<double> value, const char *absent) {
    return value ? formatDouble(*value) : std::string(absent);
  };
  os << "block.norm: " << toString(block.norm) << "\n";
  os << "block.norm_weight_offset: " << formatDouble(block.normWeightOffset)
     << "\n";
  os << "block.norm_placement: " << toString(block.normPlacement) << "\n";
  os << "block.residual: " << toString(block.residual) << "\n";
  os << "block.feed_forward: " << toString(block.feedForward) << "\n";
  os << "block.qk_norm: " << toString(block.qkNorm) << "\n";
  os << "block.qkv_layout: " << toString(block.qkvLayout) << "\n";
  os << "block.attention: " << toString(block.attention) << "\n";
  os << "block.fused_gate_up: " << boolName(block.fusedGateUp) << "\n";
  os << "block.scale_embeddings: " << boolName(block.scaleEmbeddings) << "\n";
  os << "block.attention_softcap: " << optional(block.attentionSoftcap, "none")
     << "\n";
  os << "block.final_logit_softcap: "
     << optional(block.finalLogitSoftcap, "none") << "\n";
  os << "block.attention_scale: "
     << optional(block.attentionScale, "1/sqrt(head_dim)") << "\n";
  os << "block.parallel_shares_norm: " << boolName(block.parallelSharesNorm)
     << "\n";
  if (block.attention == AttentionKind::Latent)
    os << "block.latent_up_projection: " << toString(block.latentUpProjection)
       << "\n";
}

void printModelConfig(const ModelConfig &config, raw_ostream &os) {
  os << "name: " << config.name << "\n";
  os << "architecture: " << config.architecture << "\n";
  os << "hidden_size: " << config.hiddenSize << "\n";
  os << "intermediate_size: " << config.intermediateSize << "\n";
  os << "num_layers: " << config.numLayers << "\n";
  os << "num_heads: " << config.numHeads << "\n";
  os << "num_kv_heads: " << config.numKVHeads << "\n";
  os << "head_dim: " << config.headDim << "\n";
  if (config.block.attention == AttentionKind::Latent) {
    const LatentAttentionShape &mla = config.latent;
    os << "q_lora_rank: ";
    if (mla.qLoraRank)
      os << *mla.qLoraRank << "\n";
    else
      os << "none\n";
    os << "kv_lora_rank: " << mla.kvLoraRank << "\n";
    os << "qk_nope_head_dim: " << mla.qkNopeHeadDim << "\n";
    os << "qk_rope_head_dim: " << mla.qkRopeHeadDim << "\n";
    os << "v_head_dim: " << mla.vHeadDim << "\n";
  }
  os << "vocab_size: " << config.vocabSize << "\n";
  os << "max_position_embeddings: " << config.maxPositionEmbeddings << "\n";
  os << "rms_norm_eps: " << formatDouble(config.rmsNormEps) << "\n";
  os << "rope_theta: " << formatDouble(config.ropeTheta) << "\n";
  os << "rotary_dim: " << config.rotaryDim << "\n";
  os << "rope_style: " << toString(config.ropeStyle) << "\n";
  printRopeScaling(config.ropeScaling, os);
  os << "tie_word_embeddings: " << boolName(config.tieWordEmbeddings) << "\n";
  os << "sliding_window: ";
  if (config.slidingWindow)
    os << *config.slidingWindow << "\n";
  else
    os << "none\n";
  if (config.slidingRopeTheta)
    os << "sliding_rope_theta: " << formatDouble(*config.slidingRopeTheta)
       << "\n";
  if (!config.slidingLayers.empty()) {
    os << "sliding_layers:";
    for (int64_t layer = 0; layer < config.numLayers; ++layer)
      if (config.slidingLayers[layer])
        os << " " << layer;
    os << "\n";
  }
  os << "qkv_bias: " << boolName(config.qkvBias) << "\n";
  os << "output_bias: " << boolName(config.outputBias) << "\n";
  os << "mlp_bias: " << boolName(config.mlpBias) << "\n";
  os << "lm_head_bias: " << boolName(config.lmHeadBias) << "\n";
  os << "hidden_act: " << toString(config.hiddenAct) << "\n";
  os << "dtype: " << toString(config.dtype) << "\n";
  os << "bos_token_id: " << config.bosTokenId << "\n";
  os << "eos_token_id: " << config.eosTokenId << "\n";
  printDecoderBlock(config.block, os);
}

} // namespace llmc
