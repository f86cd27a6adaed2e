//===- GGUFFamilyMetadata.cpp - What one model family's GGUF files add ----===//

#include "GGUFFamilyMetadata.h"
#include "Architectures.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace llvm;

namespace llmc {

namespace {
/// What llama.cpp's Gemma 2 / Gemma 3 (src/models/gemma2.cpp, gemma3.cpp)
/// read from a GGUF file, and what they assume where convert_hf_to_gguf.py
/// drops the Hugging Face field (query_pre_attn_scalar, layer_types, Gemma
/// 2's rope_theta).
struct SandwichGemmaRules {
  StringRef architecture;
  /// Gemma 2 always softcaps attention scores and logits (50 and 30 when the
  /// keys are absent); Gemma 3 never softcaps attention and caps logits only
  /// when final_logit_softcapping is given and nonzero.
  bool alwaysSoftcaps;
  /// The 27B model, told apart by its layer count, whose attention scale is
  /// (hidden / heads)^-0.5; every other size gets head_dim^-0.5.
  int64_t layersOf27B;
  /// Layer i slides unless i % pattern == pattern - 1 (llama.cpp's
  /// set_swa_pattern) when attention.sliding_window_pattern is absent.
  int64_t slidingWindowPattern;
  /// The window when attention.sliding_window is absent (none for Gemma 3,
  /// which then has no sliding layers; so does a window of 0).
  std::optional<int64_t> defaultWindow;
  /// Gemma 3's sliding layers rotate with rope.freq_base_swa (this default
  /// when absent) and no scaling; Gemma 2's share the other layers' RoPE
  /// (scaled), with rope.freq_base_swa as their base if given.
  std::optional<double> slidingRopeThetaDefault;
};
/// Hugging Face's published values: query_pre_attn_scalar is head_dim
/// (256) for Gemma 2 2B / 9B and Gemma 3 1B-12B, hidden / heads (144, 168)
/// for the 27B models of 46 and 62 layers.
constexpr SandwichGemmaRules kSandwichGemmaRules[] = {
    {"gemma2", /*alwaysSoftcaps=*/true, /*layersOf27B=*/46,
     /*slidingWindowPattern=*/2, /*defaultWindow=*/4096,
     /*slidingRopeThetaDefault=*/std::nullopt},
    {"gemma3", /*alwaysSoftcaps=*/false, /*layersOf27B=*/62,
     /*slidingWindowPattern=*/6, /*defaultWindow=*/std::nullopt,
     /*slidingRopeThetaDefault=*/10000.0},
};
/// llama.cpp's hparams defaults for Gemma 2's softcaps (llama-hparams.h).
constexpr double kGemma2AttentionSoftcap = 50.0, kGemma2FinalSoftcap = 30.0;
} // namespace

/// The softcaps of a Gemma 2 / Gemma 3 file.
static Error readGemmaSoftcaps(const MetadataReader &reader,
                               const SandwichGemmaRules &rules,
                               ModelConfig &config) {
  std::string prefix = (rules.architecture + ".").str();
  auto attention = reader.getFloat(prefix + "attn_logit_softcapping");
  if (!attention)
    return attention.takeError();
  auto finalCap = reader.getFloat(prefix + "final_logit_softcapping");
  if (!finalCap)
    return finalCap.takeError();
  if (rules.alwaysSoftcaps) {
    // validateModelConfig refuses a cap that is not positive, naming the key.
    config.block.attentionSoftcap =
        attention->value_or(kGemma2AttentionSoftcap);
    config.block.finalLogitSoftcap = finalCap->value_or(kGemma2FinalSoftcap);
    return Error::success();
  }
  // Gemma 3: an attention cap in the file is not read (llama.cpp does not;
  // the converter asserts the config has none).
  if (finalCap->value_or(0.0) != 0.0)
    config.block.finalLogitSoftcap = **finalCap;
  return Error::success();
}

/// Which layers of a Gemma 2 / Gemma 3 file slide: llama.cpp's pattern of
/// the architecture, or attention.sliding_window_pattern's period.
static Error readGemmaSlidingLayers(const MetadataReader &reader,
                                    const SandwichGemmaRules &rules,
                                    ModelConfig &config) {
  std::string prefix = (rules.architecture + ".").str();
  if (!reader.lookup(prefix + "attention.sliding_window"))
    config.slidingWindow = rules.defaultWindow;
  if (config.slidingWindow == 0)
    config.slidingWindow = std::nullopt;
  // validateModelConfig refuses such a count; no per-layer table before it.
  if (!config.slidingWindow || config.numLayers <= 0 ||
      config.numLayers > kMaxLayers)
    return Error::success();
  std::string patternKey = prefix + "attention.sliding_window_pattern";
  const GGUFValue *given = reader.lookup(patternKey);
  if (given && given->type == GGUFValueType::Array)
    return reader.fail(Twine("metadata key '") + patternKey +
                       "' is a per-layer array, which llmc does not read (an "
                       "integer period is supported)");
  int64_t pattern = rules.slidingWindowPattern;
  if (Error err = MetadataReader::assign(reader.getInt(patternKey), pattern))
    return err;
  if (pattern < 0)
    return reader.fail(Twine("metadata key '") + patternKey + "' (" +
                       Twine(pattern) +
                       ") must not be negative");
  std::vector<bool> sliding;
  for (int64_t layer = 0; layer < config.numLayers; ++layer)
    sliding.push_back(pattern == 0 || layer % pattern < pattern - 1);
  if (llvm::none_of(sliding, [](bool s) { return s; })) {
    config.slidingWindow = std::nullopt;
    return Error::success();
  }
  if (!llvm::all_of(sliding, [](bool s) { return s; }))
    config.slidingLayers = std::move(sliding);
  return Error::success();
}

/// The RoPE of a Gemma 2 / Gemma 3 file's sliding layers.
static Error readGemmaSlidingRope(const MetadataReader &reader,
                                  const SandwichGemmaRules &rules,
                                  ModelConfig &config) {
  if (!config.slidingWindow)
    return Error::success();
  std::string prefix = (rules.architecture + ".").str();
  std::string baseKey = prefix + "rope.freq_base_swa";
  auto base = reader.getFloat(baseKey);
  if (!base)
    return base.takeError();
  if (rules.slidingRopeThetaDefault) {
    // llmc's sliding layers rotate unscaled, as llama.cpp's Gemma 3 runs
    // them under linear scaling; under YaRN llama.cpp still passes them
    // YaRN's other parameters, which llmc does not follow.
    if (config.ropeScaling.kind == RopeScalingKind::Yarn)
      return reader.fail(Twine("metadata key '") + prefix +
                         "rope.scaling.type' 'yarn' with sliding-window "
                         "layers is not supported (llmc rotates " +
                         rules.architecture +
                         "'s sliding layers without scaling)");
    config.slidingRopeTheta = base->value_or(*rules.slidingRopeThetaDefault);
    return Error::success();
  }
  if (!*base || **base == config.ropeTheta)
    return Error::success();
  // Gemma 2's sliding layers keep the scaling; llmc's own base for them
  // means unscaled RoPE.
  if (config.ropeScaling.kind != RopeScalingKind::None)
    return reader.fail(Twine("metadata key '") + baseKey + "' (" +
                       formatDouble(**base) + ") with rope scaling '" +
                       toString(config.ropeScaling.kind) +
                       "' is not supported (llmc rotates sliding layers with "
                       "their own base unscaled)");
  config.slidingRopeTheta = **base;
  return Error::success();
}

/// Gemma 2 / Gemma 3: softcaps, the attention scale llama.cpp assumes, the
/// sliding layers and their RoPE.
static Error readSandwichGemma(const MetadataReader &reader,
                               const SandwichGemmaRules &rules,
                               ModelConfig &config) {
  if (Error err = readGemmaSoftcaps(reader, rules, config))
    return err;
  // convert_hf_to_gguf.py drops query_pre_attn_scalar; llama.cpp scales
  // queries by head_dim^-0.5, or (hidden / heads)^-0.5 for the 27B layer
  // count, which are the published models' values.
  int64_t scalar = config.headDim;
  if (config.numLayers == rules.layersOf27B && config.numHeads > 0)
    scalar = config.hiddenSize / config.numHeads;
  if (scalar > 0)
    config.block.attentionScale = 1.0 / std::sqrt(double(scalar));
  if (Error err = readGemmaSlidingLayers(reader, rules, config))
    return err;
  return readGemmaSlidingRope(reader, rules, config);
}

Error readSandwichGemmaMetadata(const MetadataReader &reader, StringRef arch,
                                ModelConfig &config) {
  for (const SandwichGemmaRules &rules : kSandwichGemmaRules)
    if (arch == rules.architecture)
      return readSandwichGemma(reader, rules, config);
  return Error::success();
}

/// A positive integer `key` of at most kMaxLatentWidth; `why` ends the
/// message when it is out of range.
static Expected<int64_t> readLatentWidth(const MetadataReader &reader,
                                         StringRef key,
                                         const Twine &why = "") {
  auto value = reader.requireInt(key);
  if (!value)
    return value.takeError();
  if (*value <= 0 || *value > kMaxLatentWidth)
    return reader.fail("metadata key '" + key + "' (" + Twine(*value) +
                       ") must be in [1, " + Twine(kMaxLatentWidth) + "]" +
                       why);
  return *value;
}

/// DeepSeek's mixture-of-experts layers, those from
/// leading_dense_block_count on (llama.cpp's default 0): described for
/// `llmc info`, refused by checkCompilable.
static Error readMixtureOfExperts(const MetadataReader &reader,
                                  StringRef prefix, ModelConfig &config) {
  std::string denseKey = (prefix + "leading_dense_block_count").str();
  MixtureOfExperts moe;
  if (Error err = MetadataReader::assign(reader.getInt(denseKey),
                                         moe.firstLayer))
    return err;
  if (moe.firstLayer >= config.numLayers)
    return Error::success(); // Every layer is dense.
  std::string why = (" for the mixture-of-experts layers from '" + denseKey +
                     "' (" + Twine(moe.firstLayer) + ") on")
                        .str();
  for (auto [suffix, out] :
       {std::pair{"expert_count", &moe.routedExperts},
        std::pair{"expert_shared_count", &moe.sharedExperts},
        std::pair{"expert_feed_forward_length", &moe.expertIntermediateSize},
        std::pair{"expert_used_count", &moe.expertsPerToken}}) {
    auto value = readLatentWidth(reader, (prefix + suffix).str(), why);
    if (!value)
      return value.takeError();
    *out = *value;
  }
  config.moe = moe;
  return Error::success();
}

/// DeepSeek-V2/V3 ("deepseek2") as llama.cpp's convert_hf_to_gguf.py writes
/// it and src/models/deepseek2.cpp reads it. Multi-head latent attention is
/// stored as MQA over one cache head: attention.key_length is kv_lora_rank +
/// rope.dimension_count and value_length kv_lora_rank (llmc's latent cache
/// head), the per-head widths are the _mla keys, a query LoRA is there when
/// q_lora_rank is, and kv_b_proj is split per head into attn_k_b (key rows
/// transposed) and attn_v_b. Files of older converters, with attn_kv_b and
/// without the _mla keys, are refused (the missing key is named).
Error readLatentAttention(const MetadataReader &reader,
                                 StringRef prefix, ModelConfig &config) {
  LatentAttentionShape &mla = config.latent;
  auto key = [&](StringRef suffix) { return (prefix + suffix).str(); };
  for (auto [suffix, out] :
       {std::pair{"attention.kv_lora_rank", &mla.kvLoraRank},
        std::pair{"rope.dimension_count", &mla.qkRopeHeadDim},
        std::pair{"attention.key_length_mla", &mla.qkNopeHeadDim},
        std::pair{"attention.value_length_mla", &mla.vHeadDim}}) {
    auto value = readLatentWidth(reader, key(suffix));
    if (!value)
      return value.takeError();
    *out = *value;
  }
  // key_length_mla is the whole query/key head: its rope part comes off.
  if (mla.qkNopeHeadDim <= mla.qkRopeHeadDim)
    return reader.fail("metadata key '" + key("attention.key_length_mla") +
                       "' (" + Twine(mla.qkNopeHeadDim) + ") must exceed '" +
                       key("rope.dimension_count") + "' (" +
                       Twine(mla.qkRopeHeadDim) + ")");
  const int64_t qkHeadDim = mla.qkNopeHeadDim;
  mla.qkNopeHeadDim -= mla.qkRopeHeadDim;
  mla.qLoraRank.reset();
  auto qLora = reader.getInt(key("attention.q_lora_rank"));
  if (!qLora)
    return qLora.takeError();
  if (qLora->value_or(0) != 0) {
    auto rank = readLatentWidth(reader, key("attention.q_lora_rank"));
    if (!rank)
      return rank.takeError();
    mla.qLoraRank = *rank;
  }
  // The cache's one head, [latent; rotated key], as the file's MQA says.
  const int64_t cacheHead = mla.kvLoraRank + mla.qkRopeHeadDim;
  for (auto [suffix, expected, what] :
       {std::tuple{"attention.key_length", cacheHead,
                   "attention.kv_lora_rank' + 'rope.dimension_count"},
        std::tuple{"attention.value_length", mla.kvLoraRank,
                   "attention.kv_lora_rank"}}) {
    auto given = reader.getInt(key(suffix));
    if (!given)
      return given.takeError();
    if (*given && **given != expected)
      return reader.fail("metadata key '" + key(suffix) + "' (" +
                         Twine(**given) + ") must be '" + prefix + what +
                         "' (" + Twine(expected) +
                         "): the latent cache head of llama.cpp's MLA");
  }
  config.numKVHeads = 1;
  config.headDim = cacheHead;
  config.rotaryDim = mla.qkRopeHeadDim;
  config.block.latentUpProjection = LatentUpProjectionLayout::Split;

  // The magnitudes llama.cpp derives (llama-context.cpp, deepseek2.cpp).
  // The converter writes 0.1 · mscale_all_dim as yarn_log_multiplier and
  // drops mscale; llama.cpp takes mscale = mscale_all_dim, so YaRN's cos/sin
  // factor mscale(f, mscale) / mscale(f, mscale_all_dim) is 1 (times
  // rope.scaling.attn_factor), or mscale(f, 1) without the key; queries and
  // keys are scaled by that factor squared times mscale(f,
  // mscale_all_dim)^2 / sqrt(key_length_mla).
  RopeScaling &scaling = config.ropeScaling;
  double magnitude = 1.0;
  if (scaling.kind == RopeScalingKind::Linear)
    return reader.fail("metadata key '" + key("rope.scaling.type") +
                       "' 'linear' is not supported for deepseek2 (llmc "
                       "reads none or yarn)");
  if (scaling.kind == RopeScalingKind::Yarn) {
    // llama.cpp does not read it; a model that sets attention_factor
    // would run otherwise under transformers.
    if (reader.lookup(key("rope.scaling.yarn_attn_factor")))
      return reader.fail("metadata key '" +
                         key("rope.scaling.yarn_attn_factor") +
                         "' is not supported for deepseek2 (llama.cpp "
                         "ignores it; compile the Hugging Face directory)");
    auto logMultiplier = reader.getFloat(key("rope.scaling.yarn_log_multiplier"));
    if (!logMultiplier)
      return logMultiplier.takeError();
    auto ropeAttention = reader.getFloat(key("rope.scaling.attn_factor"));
    if (!ropeAttention)
      return ropeAttention.takeError();
    const double factor = scaling.factor;
    const double mscaleAllDim = logMultiplier->value_or(0.0) / 0.1;
    const double ropeMagnitude =
        ropeAttention->value_or(1.0) *
        (*logMultiplier ? 1.0 : getYarnMscale(factor, 1.0));
    scaling.attentionFactor = ropeMagnitude;
    magnitude = ropeMagnitude * getYarnMscale(factor, mscaleAllDim);
  }
  config.block.attentionScale =
      magnitude * magnitude / std::sqrt(double(qkHeadDim));
  return readMixtureOfExperts(reader, prefix, config);
}

/// The values of a 1-D F32 tensor, read from the file: only its own bytes
/// (the file is mapped, not read). For the few small tensors that decide the
/// compiled program rather than being weights.
static Expected<std::vector<double>>
readF32Vector(const MetadataReader &reader, const GGUFTensorInfo &tensor) {
  if (tensor.type != static_cast<uint32_t>(GGMLType::F32))
    return reader.fail("tensor '" + tensor.name + "' has ggml type " +
                       Twine(tensor.type) + "; only F32 (type 0) is supported");
  if (tensor.dims.size() != 1)
    return reader.fail("tensor '" + tensor.name + "' has " +
                       Twine(tensor.dims.size()) +
                       " dimensions (expected 1)");
  auto buffer = MemoryBuffer::getFile(reader.path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return reader.fail("cannot open file: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  uint64_t begin = reader.header.dataOffset + tensor.offset;
  uint64_t count = tensor.dims[0];
  if (begin < tensor.offset || begin > bytes.size() ||
      count > (bytes.size() - begin) / sizeof(float))
    return reader.fail("the data of tensor '" + tensor.name + "' (" +
                       Twine(count) + " x f32 at file offset " + Twine(begin) +
                       ") lies past the end of the file (" +
                       Twine(bytes.size()) + " bytes)");
  std::vector<double> values(count);
  for (uint64_t i = 0; i < count; ++i)
    values[i] = support::endian::read<float, llvm::endianness::little>(
        bytes.data() + begin + i * sizeof(float));
  return values;
}

/// Phi-3's longrope (the 128k models), as llama.cpp's converter
/// (Phi3MiniModel) writes it: no rope.scaling.type, the short and long
/// factors as the tensors rope_factors_short / rope_factors_long.weight (f32,
/// rope.dimension_count / 2 each), rope.scaling.original_context_length, and
/// rope.scaling.attn_factor sqrt(1 + ln(s) / ln(original)) with s =
/// context_length / original (transformers' default; the converter writes it
/// even where the config has its own attention_factor). Without the key llmc
/// takes that default too (llama.cpp would multiply by 1). The factor set is
/// chosen per call from the sequence length, as transformers does (llama.cpp
/// chooses once, from the context size it is given: see README).
Error readLongropeFactors(const MetadataReader &reader,
                                 ModelConfig &config) {
  static constexpr StringLiteral kShort = "rope_factors_short.weight",
                                 kLong = "rope_factors_long.weight";
  const GGUFTensorInfo *shortTensor = nullptr, *longTensor = nullptr;
  for (const GGUFTensorInfo &tensor : reader.header.tensors) {
    if (tensor.name == kShort)
      shortTensor = &tensor;
    if (tensor.name == kLong)
      longTensor = &tensor;
  }
  if (!shortTensor && !longTensor)
    return Error::success();
  if (!shortTensor || !longTensor)
    return reader.fail("tensor '" + Twine(shortTensor ? kShort : kLong) +
                       "' (longrope frequency factors) without '" +
                       (shortTensor ? kLong : kShort) + "'");
  std::string prefix = getGGUFArchitecture(config.architecture).str() + ".";
  RopeScaling &scaling = config.ropeScaling;
  if (scaling.kind != RopeScalingKind::None)
    return reader.fail("longrope factor tensors with metadata key '" + prefix +
                       "rope.scaling.type' '" + toString(scaling.kind) +
                       "' are not supported");
  auto shortFactor = readF32Vector(reader, *shortTensor);
  if (!shortFactor)
    return shortFactor.takeError();
  auto longFactor = readF32Vector(reader, *longTensor);
  if (!longFactor)
    return longFactor.takeError();
  scaling.kind = RopeScalingKind::Longrope;
  scaling.shortFactor = std::move(*shortFactor);
  scaling.longFactor = std::move(*longFactor);
  // llama.cpp's n_ctx_orig_yarn: the training context when absent.
  scaling.originalMaxPositionEmbeddings = config.maxPositionEmbeddings;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "rope.scaling.original_context_length"),
          scaling.originalMaxPositionEmbeddings))
    return err;
  // transformers' factor when the config has none; it only enters the
  // default attention factor.
  if (scaling.originalMaxPositionEmbeddings > 0)
    scaling.factor = double(config.maxPositionEmbeddings) /
                     double(scaling.originalMaxPositionEmbeddings);
  auto attention = reader.getFloat(prefix + "rope.scaling.attn_factor");
  if (!attention)
    return attention.takeError();
  scaling.attentionFactor = *attention;
  return Error::success();
}

} // namespace llmc
