//===- ModelConfig.cpp - Enum names, validation and loading of ModelConfig ===//

#include "ModelConfig.h"
#include "Architectures.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace llvm;

namespace llmc {

/// Upper bound on every size field. Larger values are certainly corrupt and
/// would let products such as vocab * hidden overflow int64 in the stats.
static constexpr int64_t kMaxDimension = (int64_t(1) << 31) - 1;

/// Longest %g precision that can be needed for a double to round-trip.
static constexpr int kMaxDoubleDigits = 17;

/// Integral doubles below this magnitude print as plain integers.
static constexpr double kMaxPlainInteger = 1e15;

StringRef toString(RopeStyle style) {
  switch (style) {
  case RopeStyle::Half:
    return "half";
  case RopeStyle::Interleaved:
    return "interleaved";
  }
  llvm_unreachable("unknown RopeStyle");
}

StringRef toString(RopeScalingKind kind) {
  switch (kind) {
  case RopeScalingKind::None:
    return "none";
  case RopeScalingKind::Linear:
    return "linear";
  case RopeScalingKind::NTK:
    return "ntk";
  case RopeScalingKind::Dynamic:
    return "dynamic";
  case RopeScalingKind::Yarn:
    return "yarn";
  case RopeScalingKind::Llama3:
    return "llama3";
  case RopeScalingKind::Longrope:
    return "longrope";
  }
  llvm_unreachable("unknown RopeScalingKind");
}

StringRef toString(Activation act) {
  switch (act) {
  case Activation::SiLU:
    return "silu";
  case Activation::GELU:
    return "gelu";
  case Activation::GELUTanh:
    return "gelu_tanh";
  case Activation::ReLU:
    return "relu";
  }
  llvm_unreachable("unknown Activation");
}

StringRef toString(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  }
  llvm_unreachable("unknown DType");
}

int64_t getDTypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  }
  llvm_unreachable("unknown DType");
}

double getYarnMscale(double scale, double mscale) {
  return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
}

std::string formatDouble(double value) {
  if (std::isfinite(value) && value == std::trunc(value) &&
      std::fabs(value) < kMaxPlainInteger)
    return std::to_string(static_cast<int64_t>(value));
  char buffer[64];
  for (int digits = 1; digits <= kMaxDoubleDigits; ++digits) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

namespace {
/// The fields validation talks about, so that one check can name the field
/// as config.json or as a GGUF file spells it.
enum class Field {
  HiddenSize,
  IntermediateSize,
  NumLayers,
  NumHeads,
  NumKVHeads,
  HeadDim,
  VocabSize,
  MaxPositions,
  RmsNormEps,
  RopeTheta,
  RotaryDim,
  SlidingWindow,
  BosTokenId,
  EosTokenId,
  ScalingFactor,
  ScalingOriginalMax,
  ScalingLowFreq,
  ScalingHighFreq,
  ScalingBetaFast,
  ScalingBetaSlow,
  ScalingAttentionFactor,
  ScalingShortFactor,
  ScalingLongFactor,
  AttentionSoftcap,
  FinalLogitSoftcap,
  SlidingRopeTheta,
  DenseLayers,
};
} // namespace

/// `field`'s config.json key as `family`'s config class reads it (the
/// keys of LlamaConfig where it does not say otherwise).
static StringRef hfName(Field field, const Architecture *family) {
  if (family) {
    const HFConfigDefaults &d = family->hfDefaults;
    switch (field) {
    case Field::HiddenSize:
      return d.keys.hiddenSize;
    case Field::IntermediateSize:
      return d.keys.intermediateSize;
    case Field::NumLayers:
      return d.keys.numLayers;
    case Field::NumHeads:
      return d.keys.numHeads;
    case Field::MaxPositions:
      return d.keys.maxPositions;
    case Field::RmsNormEps:
      return d.normEpsKey;
    case Field::RopeTheta:
      return d.ropeThetaKey;
    case Field::RotaryDim:
      return d.rotaryDimKey.empty() ? d.partialRotaryKey : d.rotaryDimKey;
    default:
      break;
    }
  }
  switch (field) {
  case Field::HiddenSize:
    return "hidden_size";
  case Field::IntermediateSize:
    return "intermediate_size";
  case Field::NumLayers:
    return "num_hidden_layers";
  case Field::NumHeads:
    return "num_attention_heads";
  case Field::NumKVHeads:
    return "num_key_value_heads";
  case Field::HeadDim:
    return "head_dim";
  case Field::VocabSize:
    return "vocab_size";
  case Field::MaxPositions:
    return "max_position_embeddings";
  case Field::RmsNormEps:
    return "rms_norm_eps";
  case Field::RopeTheta:
    return "rope_theta";
  case Field::RotaryDim:
    return "partial_rotary_factor";
  case Field::SlidingWindow:
    return "sliding_window";
  case Field::BosTokenId:
    return "bos_token_id";
  case Field::EosTokenId:
    return "eos_token_id";
  case Field::ScalingFactor:
    return "rope_scaling.factor";
  case Field::ScalingOriginalMax:
    return "rope_scaling.original_max_position_embeddings";
  case Field::ScalingLowFreq:
    return "rope_scaling.low_freq_factor";
  case Field::ScalingHighFreq:
    return "rope_scaling.high_freq_factor";
  case Field::ScalingBetaFast:
    return "rope_scaling.beta_fast";
  case Field::ScalingBetaSlow:
    return "rope_scaling.beta_slow";
  case Field::ScalingAttentionFactor:
    return "rope_scaling.attention_factor";
  case Field::ScalingShortFactor:
    return "rope_scaling.short_factor";
  case Field::ScalingLongFactor:
    return "rope_scaling.long_factor";
  case Field::AttentionSoftcap:
    return "attn_logit_softcapping";
  case Field::FinalLogitSoftcap:
    return "final_logit_softcapping";
  case Field::SlidingRopeTheta:
    return "rope_local_base_freq";
  case Field::DenseLayers:
    return "first_k_dense_replace";
  }
  llvm_unreachable("unknown Field");
}

/// GGUF key without the "<arch>." prefix.
static StringRef ggufSuffix(Field field) {
  switch (field) {
  case Field::HiddenSize:
    return "embedding_length";
  case Field::IntermediateSize:
    return "feed_forward_length";
  case Field::NumLayers:
    return "block_count";
  case Field::NumHeads:
    return "attention.head_count";
  case Field::NumKVHeads:
    return "attention.head_count_kv";
  case Field::HeadDim:
    return "attention.key_length";
  case Field::VocabSize:
    return "vocab_size";
  case Field::MaxPositions:
    return "context_length";
  case Field::RmsNormEps:
    return "attention.layer_norm_rms_epsilon";
  case Field::RopeTheta:
    return "rope.freq_base";
  case Field::RotaryDim:
    return "rope.dimension_count";
  case Field::SlidingWindow:
    return "attention.sliding_window";
  case Field::BosTokenId:
    return "";
  case Field::EosTokenId:
    return "";
  case Field::ScalingFactor:
    return "rope.scaling.factor";
  case Field::ScalingOriginalMax:
    return "rope.scaling.original_context_length";
  case Field::ScalingLowFreq:
    return "rope.scaling.low_freq_factor";
  case Field::ScalingHighFreq:
    return "rope.scaling.high_freq_factor";
  case Field::ScalingBetaFast:
    return "rope.scaling.yarn_beta_fast";
  case Field::ScalingBetaSlow:
    return "rope.scaling.yarn_beta_slow";
  case Field::ScalingAttentionFactor:
    return "rope.scaling.attn_factor";
  // GGUF longrope stores its factors as tensors (Namer names them whole).
  case Field::ScalingShortFactor:
    return "rope_factors_short.weight";
  case Field::ScalingLongFactor:
    return "rope_factors_long.weight";
  case Field::AttentionSoftcap:
    return "attn_logit_softcapping";
  case Field::FinalLogitSoftcap:
    return "final_logit_softcapping";
  case Field::SlidingRopeTheta:
    return "rope.freq_base_swa";
  case Field::DenseLayers:
    return "leading_dense_block_count";
  }
  llvm_unreachable("unknown Field");
}

namespace {
/// Builds messages that name fields in the user's spelling.
struct Namer {
  const ModelConfig &config;
  ConfigSyntax syntax;

  std::string operator()(Field field) const {
    if (syntax == ConfigSyntax::HuggingFace)
      return hfName(field, findArchitecture(config.architecture)).str();
    if (field == Field::BosTokenId)
      return "tokenizer.ggml.bos_token_id";
    if (field == Field::EosTokenId)
      return "tokenizer.ggml.eos_token_id";
    if (field == Field::ScalingShortFactor || field == Field::ScalingLongFactor)
      return ggufSuffix(field).str();
    if (field == Field::RmsNormEps && config.block.norm == NormKind::LayerNorm)
      return (getGGUFArchitecture(config.architecture) +
              ".attention.layer_norm_epsilon")
          .str();
    return (getGGUFArchitecture(config.architecture) + "." + ggufSuffix(field))
        .str();
  }
};
} // namespace

static Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

static Error checkSize(const Namer &name, Field field, int64_t value) {
  if (value <= 0)
    return fail("field '" + name(field) + "' (" + Twine(value) +
                ") must be positive");
  if (value > kMaxDimension)
    return fail("field '" + name(field) + "' (" + Twine(value) +
                ") is too large (maximum " + Twine(kMaxDimension) + ")");
  return Error::success();
}

static Error checkPositiveReal(const Namer &name, Field field, double value) {
  if (!(value > 0.0) || !std::isfinite(value))
    return fail("field '" + name(field) + "' (" + formatDouble(value) +
                ") must be a positive finite number");
  return Error::success();
}

static Error checkTokenId(const Namer &name, Field field, int64_t id,
                          int64_t vocabSize) {
  if (id < 0 || id >= vocabSize)
    return fail("field '" + name(field) + "' (" + Twine(id) +
                ") must be in [0, " + name(Field::VocabSize) + " = " +
                Twine(vocabSize) + ")");
  return Error::success();
}

static Error validateRopeScaling(const ModelConfig &config,
                                 const Namer &name) {
  const RopeScaling &s = config.ropeScaling;
  if (s.kind == RopeScalingKind::None)
    return Error::success();
  if (!(s.factor >= 1.0) || !std::isfinite(s.factor))
    return fail("field '" + name(Field::ScalingFactor) + "' (" +
                formatDouble(s.factor) + ") must be >= 1 for rope scaling '" +
                toString(s.kind) + "'");
  bool needsOriginal = s.kind == RopeScalingKind::Yarn ||
                       s.kind == RopeScalingKind::Llama3 ||
                       s.kind == RopeScalingKind::Dynamic ||
                       s.kind == RopeScalingKind::Longrope;
  if (needsOriginal)
    if (Error err = checkSize(name, Field::ScalingOriginalMax,
                              s.originalMaxPositionEmbeddings))
      return err;
  if (s.kind == RopeScalingKind::Llama3) {
    if (Error err = checkPositiveReal(name, Field::ScalingLowFreq,
                                      s.lowFreqFactor))
      return err;
    if (!(s.highFreqFactor > s.lowFreqFactor))
      return fail("field '" + name(Field::ScalingHighFreq) + "' (" +
                  formatDouble(s.highFreqFactor) + ") must be greater than '" +
                  name(Field::ScalingLowFreq) + "' (" +
                  formatDouble(s.lowFreqFactor) + ")");
  }
  if (s.kind == RopeScalingKind::Yarn) {
    if (!(s.betaFast > s.betaSlow))
      return fail("field '" + name(Field::ScalingBetaFast) + "' (" +
                  formatDouble(s.betaFast) + ") must be greater than '" +
                  name(Field::ScalingBetaSlow) + "' (" +
                  formatDouble(s.betaSlow) + ")");
  }
  if (s.attentionFactor)
    if (Error err = checkPositiveReal(name, Field::ScalingAttentionFactor,
                                      *s.attentionFactor))
      return err;
  if (s.kind == RopeScalingKind::Longrope) {
    for (auto [field, factors] :
         {std::pair{Field::ScalingShortFactor, &s.shortFactor},
          std::pair{Field::ScalingLongFactor, &s.longFactor}}) {
      if (int64_t(factors->size()) != config.rotaryDim / 2)
        return fail("field '" + name(field) + "' has " +
                    Twine(factors->size()) + " entries, expected " +
                    Twine(config.rotaryDim / 2) + " (one per rotated pair)");
      for (double f : *factors)
        if (Error err = checkPositiveReal(name, field, f))
          return err;
    }
  }
  return Error::success();
}

Error validateModelConfig(const ModelConfig &config, ConfigSyntax syntax) {
  Namer name{config, syntax};
  if (!findArchitecture(config.architecture))
    return fail("unsupported architecture '" + config.architecture +
                "' (expected " + listArchitectures() + ")");

  const std::pair<Field, int64_t> sizes[] = {
      {Field::HiddenSize, config.hiddenSize},
      {Field::IntermediateSize, config.intermediateSize},
      {Field::NumLayers, config.numLayers},
      {Field::NumHeads, config.numHeads},
      {Field::NumKVHeads, config.numKVHeads},
      {Field::HeadDim, config.headDim},
      {Field::VocabSize, config.vocabSize},
      {Field::MaxPositions, config.maxPositionEmbeddings},
  };
  for (auto [field, value] : sizes)
    if (Error err = checkSize(name, field, value))
      return err;
  if (config.numLayers > kMaxLayers)
    return fail("field '" + name(Field::NumLayers) + "' (" +
                Twine(config.numLayers) + ") is too large (maximum " +
                Twine(kMaxLayers) + ")");

  // Grouped-query attention: query head i reads KV head i / (H / Hkv).
  if (config.numHeads % config.numKVHeads != 0)
    return fail("field '" + name(Field::NumHeads) + "' (" +
                Twine(config.numHeads) + ") is not divisible by '" +
                name(Field::NumKVHeads) + "' (" + Twine(config.numKVHeads) +
                ")");
  // The q/o projections are [numHeads*headDim, hidden] and its transpose.
  if (config.numHeads * config.headDim > kMaxDimension)
    return fail("'" + name(Field::NumHeads) + "' * '" + name(Field::HeadDim) +
                "' (" + Twine(config.numHeads) + " * " +
                Twine(config.headDim) + ") is too large (maximum " +
                Twine(kMaxDimension) + ")");
  // A per-head fused q/k/v tensor holds q, k and v for every head.
  if (config.block.qkvLayout == QKVLayout::PerHead &&
      config.numKVHeads != config.numHeads)
    return fail("'" + name(Field::NumKVHeads) + "' (" +
                Twine(config.numKVHeads) + ") must equal '" +
                name(Field::NumHeads) + "' (" + Twine(config.numHeads) +
                "): " + config.architecture +
                " stores q, k and v per head in one tensor");
  // RoPE rotates pairs of elements (a latent cache head is the latent and
  // the rotated key, of any width).
  if (config.block.attention != AttentionKind::Latent &&
      config.headDim % 2 != 0)
    return fail("field '" + name(Field::HeadDim) + "' (" +
                Twine(config.headDim) + ") must be even");
  if (config.rotaryDim <= 0 || config.rotaryDim % 2 != 0 ||
      config.rotaryDim > config.headDim)
    return fail("rotary dimension " + Twine(config.rotaryDim) + " (from '" +
                name(Field::RotaryDim) + "') must be even and in [2, " +
                name(Field::HeadDim) + " = " + Twine(config.headDim) + "]");

  if (Error err = checkPositiveReal(name, Field::RmsNormEps, config.rmsNormEps))
    return err;
  if (Error err = checkPositiveReal(name, Field::RopeTheta, config.ropeTheta))
    return err;
  if (Error err = validateRopeScaling(config, name))
    return err;
  if (config.slidingWindow)
    if (Error err = checkSize(name, Field::SlidingWindow, *config.slidingWindow))
      return err;
  if (config.slidingRopeTheta)
    if (Error err = checkPositiveReal(name, Field::SlidingRopeTheta,
                                      *config.slidingRopeTheta))
      return err;
  if (!config.slidingLayers.empty() &&
      int64_t(config.slidingLayers.size()) != config.numLayers)
    return fail("the per-layer window pattern has " +
                Twine(config.slidingLayers.size()) + " entries for " +
                Twine(config.numLayers) + " layers ('" +
                name(Field::NumLayers) + "')");
  const std::pair<Field, std::optional<double>> blockScalars[] = {
      {Field::AttentionSoftcap, config.block.attentionSoftcap},
      {Field::FinalLogitSoftcap, config.block.finalLogitSoftcap},
  };
  for (auto [field, value] : blockScalars)
    if (value)
      if (Error err = checkPositiveReal(name, field, *value))
        return err;
  if (Error err = checkTokenId(name, Field::BosTokenId, config.bosTokenId,
                               config.vocabSize))
    return err;
  if (Error err = checkTokenId(name, Field::EosTokenId, config.eosTokenId,
                               config.vocabSize))
    return err;
  return Error::success();
}

std::optional<int64_t> getLayerWindow(const ModelConfig &config,
                                      int64_t layer) {
  if (!config.slidingLayers.empty() && !config.slidingLayers[layer])
    return std::nullopt;
  return config.slidingWindow;
}

/// GGUF files start with these four bytes.
static constexpr StringLiteral kGGUFMagic = "GGUF";

Expected<ModelConfig> loadModelConfig(StringRef path) {
  SmallString<256> file(path);
  if (sys::fs::is_directory(path)) {
    sys::path::append(file, "config.json");
    if (!sys::fs::exists(file))
      return fail(path + ": directory has no config.json");
  }
  // Only the magic is needed to pick the parser; GGUF files can be huge.
  auto buffer = MemoryBuffer::getFileSlice(file, kGGUFMagic.size(), 0,
                                           /*IsVolatile=*/false);
  if (!buffer)
    return fail(file + ": cannot open file: " + buffer.getError().message());
  // A damaged .gguf gets the GGUF reader's message, not a JSON syntax error.
  if ((*buffer)->getBuffer() == kGGUFMagic ||
      sys::path::extension(file) == ".gguf")
    return parseGGUFMetadata(file);

  auto text = MemoryBuffer::getFile(file, /*IsText=*/true);
  if (!text)
    return fail(file + ": cannot read file: " + text.getError().message());
  return parseHFConfig((*text)->getBuffer(), file);
}

Error checkCompilable(const ModelConfig &config) {
  Namer name{config, config.syntax};
  if (config.moe)
    return fail("layers " + Twine(config.moe->firstLayer) + " to " +
                Twine(config.numLayers - 1) + " of this " +
                config.architecture + " model are mixture-of-experts ('" +
                name(Field::DenseLayers) + "' " +
                Twine(config.moe->firstLayer) + " < '" +
                name(Field::NumLayers) + "' " + Twine(config.numLayers) +
                "), which llmc does not compile (dense layers only; `llmc "
                "info` describes the model)");
  return Error::success();
}

} // namespace llmc
