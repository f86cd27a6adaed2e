//===- HFConfig.cpp - Hugging Face config.json to ModelConfig --------------===//
//
// Follows transformers' LlamaConfig / MistralConfig / Qwen2Config: the same
// defaults for absent (or null) fields, the same derived values (head_dim,
// num_key_value_heads, rotary dimension), and both rope_scaling spellings.
// Core sizes have no default here: a config without hidden_size is a
// mistake, not a request for LLaMA-7B's shape.
//
//===----------------------------------------------------------------------===//

#include "ModelConfig.h"
#include "Architectures.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

using namespace llvm;

namespace llmc {

namespace {

/// Qwen2Config's and Qwen3Config's default max_window_layers.
constexpr int64_t kQwenDefaultMaxWindowLayers = 28;

StringRef jsonKindName(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "boolean";
  case json::Value::Number:
    return "number";
  case json::Value::String:
    return "string";
  case json::Value::Array:
    return "array";
  case json::Value::Object:
    return "object";
  }
  llvm_unreachable("unknown json kind");
}

/// Typed, error-reporting access to one JSON object of the config.
/// `prefix` is prepended to field names in messages ("rope_scaling.").
class FieldReader {
public:
  FieldReader(StringRef source, const json::Object &object, StringRef prefix)
      : source(source), object(object), prefix(prefix) {}

  Error fail(const Twine &message) const {
    return createStringError(inconvertibleErrorCode(),
                             source + ": " + message);
  }

  std::string name(StringRef key) const { return (prefix + key).str(); }

  /// The value of `key`, or null when it is absent or JSON null (HF treats
  /// both as "use the default").
  const json::Value *lookup(StringRef key) const {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return nullptr;
    return value;
  }

  Error typeError(StringRef key, StringRef expected,
                  const json::Value &value) const {
    return fail("field '" + name(key) + "' must be " + expected + " (got " +
                jsonKindName(value) + ")");
  }

  Error missing(StringRef key) const {
    return fail("missing required field '" + name(key) + "'");
  }

  Expected<std::optional<int64_t>> getInt(StringRef key) const {
    const json::Value *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (std::optional<int64_t> i = value->getAsInteger())
      return i;
    return typeError(key, "an integer", *value);
  }

  Expected<std::optional<double>> getNumber(StringRef key) const {
    const json::Value *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (std::optional<double> d = value->getAsNumber())
      return d;
    return typeError(key, "a number", *value);
  }

  Expected<std::optional<bool>> getBool(StringRef key) const {
    const json::Value *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (std::optional<bool> b = value->getAsBoolean())
      return b;
    return typeError(key, "a boolean", *value);
  }

  Expected<std::optional<StringRef>> getString(StringRef key) const {
    const json::Value *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (std::optional<StringRef> s = value->getAsString())
      return s;
    return typeError(key, "a string", *value);
  }

  Expected<int64_t> requireInt(StringRef key) const {
    auto value = getInt(key);
    if (!value)
      return value.takeError();
    if (!*value)
      return missing(key);
    return **value;
  }

  Expected<double> requireNumber(StringRef key) const {
    auto value = getNumber(key);
    if (!value)
      return value.takeError();
    if (!*value)
      return missing(key);
    return **value;
  }

  /// A token id: an integer, or a list of them whose first entry is taken
  /// (Llama 3.1 lists several EOS ids; the first is the end-of-text one).
  Error getTokenId(StringRef key, int64_t &out) const {
    const json::Value *value = lookup(key);
    if (!value)
      return Error::success();
    if (const json::Array *array = value->getAsArray()) {
      if (array->empty())
        return Error::success();
      value = &array->front();
    }
    if (std::optional<int64_t> i = value->getAsInteger()) {
      out = *i;
      return Error::success();
    }
    return typeError(key, "an integer or a list of integers", *value);
  }

  StringRef source;
  const json::Object &object;
  StringRef prefix;
};

/// Assigns the optional's value when present; propagates a type error.
template <typename T, typename U>
Error assignIfPresent(Expected<std::optional<T>> value, U &out) {
  if (!value)
    return value.takeError();
  if (*value)
    out = static_cast<U>(**value);
  return Error::success();
}

Expected<Activation> parseActivation(const FieldReader &reader,
                                     const HFConfigDefaults &defaults) {
  StringRef key = defaults.activationKey;
  auto act = reader.getString(key);
  if (!act)
    return act.takeError();
  std::string name = act->has_value() ? (*act)->str() : defaults.activationDefault.str();
  if (defaults.geluMeansTanh && name == "gelu")
    name = "gelu_pytorch_tanh"; // GemmaConfig's legacy "gelu"
  std::optional<Activation> result =
      StringSwitch<std::optional<Activation>>(name)
          .Cases({"silu", "swish"}, Activation::SiLU)
          .Case("gelu", Activation::GELU)
          .Cases({"gelu_pytorch_tanh", "gelu_new"}, Activation::GELUTanh)
          .Case("relu", Activation::ReLU)
          .Default(std::nullopt);
  if (!result)
    return reader.fail("field '" + key + "' has unsupported value '" + name +
                       "' (expected silu, swish, gelu, gelu_pytorch_tanh, "
                       "gelu_new or relu)");
  return *result;
}

Expected<DType> parseDType(const FieldReader &reader) {
  // transformers >= 4.56 writes "dtype"; older versions "torch_dtype".
  StringRef key = reader.lookup("torch_dtype") ? "torch_dtype" : "dtype";
  auto dtype = reader.getString(key);
  if (!dtype)
    return dtype.takeError();
  if (!*dtype)
    return DType::F32; // from_pretrained's default without a dtype.
  std::optional<DType> result = StringSwitch<std::optional<DType>>(**dtype)
                                    .Cases({"float32", "float"}, DType::F32)
                                    .Cases({"float16", "half"}, DType::F16)
                                    .Case("bfloat16", DType::BF16)
                                    .Default(std::nullopt);
  if (!result)
    return reader.fail("field '" + key + "' has unsupported value '" +
                       **dtype + "' (expected float32, float16 or bfloat16)");
  return *result;
}

/// The keys of a rope_scaling / rope_parameters object that transformers'
/// modeling_rope_utils.py reads for each rope type (besides rope_type /
/// type, rope_theta and partial_rotary_factor, read for every type). "ntk"
/// is llmc's own spelling of static NTK.
ArrayRef<StringRef> getRopeKeysRead(RopeScalingKind kind) {
  static const StringRef factorOnly[] = {"factor"};
  static const StringRef yarn[] = {
      "factor",    "original_max_position_embeddings", "attention_factor",
      "beta_fast", "beta_slow",
      "mscale",    "mscale_all_dim",
      "truncate"};
  static const StringRef longrope[] = {"short_factor", "long_factor",
                                       "original_max_position_embeddings",
                                       "attention_factor", "factor"};
  static const StringRef llama3[] = {"factor", "original_max_position_embeddings",
                                     "low_freq_factor", "high_freq_factor"};
  switch (kind) {
  case RopeScalingKind::None:
    return {};
  case RopeScalingKind::Linear:
  case RopeScalingKind::NTK:
  case RopeScalingKind::Dynamic:
    return factorOnly;
  case RopeScalingKind::Yarn:
    return yarn;
  case RopeScalingKind::Longrope:
    return longrope;
  case RopeScalingKind::Llama3:
    return llama3;
  }
  llvm_unreachable("unknown RopeScalingKind");
}

/// Keys that transformers' llama, mistral and qwen2 ignore but whose
/// presence means the checkpoint was trained with a RoPE llmc cannot
/// express (multimodal RoPE: one position id per section), with why.
std::optional<StringRef> getRefusedRopeKeyReason(StringRef key) {
  if (key == "mrope_section" || key == "mrope_interleaved")
    return StringRef("multimodal RoPE (per-section position ids) is not "
                     "supported");
  return std::nullopt;
}

/// Warns about (or refuses) every key of the rope object that the rope type
/// does not read. transformers only logs "Unrecognized keys" for them.
Error checkRopeKeys(const FieldReader &reader, RopeScalingKind kind,
                    StringRef typeName) {
  ArrayRef<StringRef> read = getRopeKeysRead(kind);
  for (const auto &entry : reader.object) {
    StringRef key = entry.first;
    if (key == "rope_type" || key == "type" || key == "rope_theta" ||
        key == "partial_rotary_factor" || llvm::is_contained(read, key))
      continue;
    if (std::optional<StringRef> reason = getRefusedRopeKeyReason(key))
      return reader.fail("field '" + reader.name(key) + "': " + *reason);
    if (kind == RopeScalingKind::Dynamic &&
        key == "original_max_position_embeddings")
      WithColor::warning(errs(), reader.source)
          << "field '" << reader.name(key)
          << "' is ignored: dynamic scaling uses max_position_embeddings, as "
             "transformers does\n";
    else
      WithColor::warning(errs(), reader.source)
          << "field '" << reader.name(key) << "' is not used by rope type '"
          << typeName << "' (ignored, as transformers does)\n";
  }
  return Error::success();
}

/// A list of positive numbers (longrope's short_factor / long_factor).
Error readFactorList(const FieldReader &reader, StringRef key,
                     std::vector<double> &out) {
  const json::Value *value = reader.lookup(key);
  if (!value)
    return reader.missing(key);
  const json::Array *array = value->getAsArray();
  if (!array)
    return reader.typeError(key, "a list of numbers", *value);
  out.clear();
  for (const json::Value &element : *array) {
    std::optional<double> number = element.getAsNumber();
    if (!number)
      return reader.typeError(key, "a list of numbers", element);
    out.push_back(*number);
  }
  return Error::success();
}

/// Parses `rope_scaling` (or transformers v5's `rope_parameters`, which
/// uses the same keys plus rope_theta and partial_rotary_factor; the latter
/// is returned in `partialRotary` when present).
Error parseRopeScaling(const FieldReader &top, StringRef key,
                       const HFConfigDefaults &defaults, ModelConfig &config,
                       std::optional<double> &partialRotary) {
  const json::Value *value = top.lookup(key);
  if (!value)
    return Error::success();
  const json::Object *object = value->getAsObject();
  if (!object)
    return top.typeError(key, "an object or null", *value);
  std::string prefix = (key + ".").str();
  FieldReader reader(top.source, *object, prefix);

  if (Error err = assignIfPresent(reader.getNumber("rope_theta"),
                                  config.ropeTheta))
    return err;
  auto partial = reader.getNumber("partial_rotary_factor");
  if (!partial)
    return partial.takeError();
  if (*partial)
    partialRotary = **partial;

  // HF standardises the legacy "type" spelling to "rope_type".
  StringRef typeKey = reader.lookup("rope_type") ? "rope_type" : "type";
  auto type = reader.getString(typeKey);
  if (!type)
    return type.takeError();
  if (!*type)
    return reader.fail("field '" + key +
                       "' has neither 'rope_type' nor 'type'");
  std::optional<RopeScalingKind> kind =
      StringSwitch<std::optional<RopeScalingKind>>(**type)
          .Case("default", RopeScalingKind::None)
          .Case("linear", RopeScalingKind::Linear)
          .Case("ntk", RopeScalingKind::NTK)
          .Case("dynamic", RopeScalingKind::Dynamic)
          .Case("yarn", RopeScalingKind::Yarn)
          .Case("llama3", RopeScalingKind::Llama3)
          .Case("longrope", RopeScalingKind::Longrope)
          .Default(std::nullopt);
  // Phi3Config renames "su" and "yarn" to longrope.
  if (defaults.topLevelOriginalMaxPositions &&
      (**type == "su" || **type == "yarn"))
    kind = RopeScalingKind::Longrope;
  if (!kind)
    return reader.fail("field '" + reader.name(typeKey) +
                       "' has unknown value '" + **type +
                       "' (expected default, linear, ntk, dynamic, yarn, "
                       "llama3 or longrope)");
  if (Error err = checkRopeKeys(reader, *kind, **type))
    return err;
  RopeScaling &scaling = config.ropeScaling;
  scaling = RopeScaling();
  scaling.kind = *kind;
  if (scaling.kind == RopeScalingKind::None)
    return Error::success();

  switch (scaling.kind) {
  case RopeScalingKind::Llama3:
  case RopeScalingKind::Yarn:
  case RopeScalingKind::Longrope:
    // HF's standardize_rope_params: max_position_embeddings by default.
    scaling.originalMaxPositionEmbeddings = config.maxPositionEmbeddings;
    if (Error err =
            assignIfPresent(reader.getInt("original_max_position_embeddings"),
                            scaling.originalMaxPositionEmbeddings))
      return err;
    // Phi3Config's own attribute (default 4096) wins (standardize_rope_params).
    if (defaults.topLevelOriginalMaxPositions) {
      scaling.originalMaxPositionEmbeddings =
          *defaults.topLevelOriginalMaxPositions;
      if (Error err = assignIfPresent(
              top.getInt("original_max_position_embeddings"),
              scaling.originalMaxPositionEmbeddings))
        return err;
    }
    break;
  case RopeScalingKind::Dynamic:
    // transformers' dynamic NTK scales relative to max_position_embeddings.
    scaling.originalMaxPositionEmbeddings = config.maxPositionEmbeddings;
    break;
  default:
    break;
  }

  bool implicitFactor = scaling.kind == RopeScalingKind::Yarn ||
                        scaling.kind == RopeScalingKind::Longrope;
  auto factor = reader.getNumber("factor");
  if (!factor)
    return factor.takeError();
  if (*factor) {
    scaling.factor = **factor;
  } else if (implicitFactor && scaling.originalMaxPositionEmbeddings > 0) {
    // yarn and longrope: max_position_embeddings / original when absent.
    scaling.factor = double(config.maxPositionEmbeddings) /
                     double(scaling.originalMaxPositionEmbeddings);
  } else {
    return reader.missing("factor");
  }

  if (scaling.kind == RopeScalingKind::Llama3) {
    // HF's _validate_llama3_parameters requires all four keys.
    auto original = reader.requireInt("original_max_position_embeddings");
    if (!original)
      return original.takeError();
    auto low = reader.requireNumber("low_freq_factor");
    if (!low)
      return low.takeError();
    scaling.lowFreqFactor = *low;
    auto high = reader.requireNumber("high_freq_factor");
    if (!high)
      return high.takeError();
    scaling.highFreqFactor = *high;
  }

  auto attention = reader.getNumber("attention_factor");
  if (!attention)
    return attention.takeError();
  if (scaling.kind == RopeScalingKind::Yarn) {
    // HF: `beta_fast or 32`, `beta_slow or 1` (0 also means the default).
    for (auto [name, out] : {std::pair{"beta_fast", &scaling.betaFast},
                             std::pair{"beta_slow", &scaling.betaSlow}}) {
      auto beta = reader.getNumber(name);
      if (!beta)
        return beta.takeError();
      if (*beta && **beta != 0.0)
        *out = **beta;
    }
    auto truncate = reader.getBool("truncate");
    if (!truncate)
      return truncate.takeError();
    scaling.truncate = truncate->value_or(true);
    scaling.attentionFactor = *attention;
    // DeepSeek-style magnitude: with both mscale and mscale_all_dim set (and
    // non-zero), HF's default attention factor becomes their ratio.
    auto mscale = reader.getNumber("mscale");
    if (!mscale)
      return mscale.takeError();
    auto mscaleAllDim = reader.getNumber("mscale_all_dim");
    if (!mscaleAllDim)
      return mscaleAllDim.takeError();
    if (!scaling.attentionFactor && *mscale && **mscale != 0.0 &&
        *mscaleAllDim && **mscaleAllDim != 0.0)
      scaling.attentionFactor = getYarnMscale(scaling.factor, **mscale) /
                                getYarnMscale(scaling.factor, **mscaleAllDim);
  } else if (scaling.kind == RopeScalingKind::Longrope) {
    scaling.attentionFactor = *attention;
    if (Error err = readFactorList(reader, "short_factor", scaling.shortFactor))
      return err;
    if (Error err = readFactorList(reader, "long_factor", scaling.longFactor))
      return err;
  }
  return Error::success();
}

/// The rotary dimension. transformers' llama-like attention (llama,
/// mistral, qwen2, qwen3, olmo2) rotates
/// whole heads: their default RoPE never reads partial_rotary_factor, and
/// every scaled RoPE type sizes its frequencies by it while the rotation
/// still spans the head, which fails. So a factor below 1 is ignored with a
/// warning for default RoPE and refused with scaling.
Error applyPartialRotary(const FieldReader &reader,
                         const HFConfigDefaults &defaults,
                         std::optional<double> partialRotary,
                         ModelConfig &config) {
  config.rotaryDim = config.headDim;
  if (!partialRotary || *partialRotary == 1.0)
    return Error::success();
  if (!(*partialRotary > 0.0 && *partialRotary <= 1.0))
    return reader.fail("field '" + defaults.partialRotaryKey + "' (" +
                       formatDouble(*partialRotary) + ") must be in (0, 1]");
  // phi3 and gpt_neox rotate int(head_dim * factor) leading elements.
  if (defaults.appliesPartialRotary) {
    config.rotaryDim =
        static_cast<int64_t>(double(config.headDim) * *partialRotary);
    return Error::success();
  }
  if (config.ropeScaling.kind != RopeScalingKind::None)
    return reader.fail(
        "field 'partial_rotary_factor' (" + formatDouble(*partialRotary) +
        ") with rope scaling '" + toString(config.ropeScaling.kind) +
        "': transformers' " + config.architecture +
        " rotates whole heads and cannot run it");
  WithColor::warning(errs(), reader.source)
      << "field 'partial_rotary_factor' (" << formatDouble(*partialRotary)
      << ") is ignored: transformers' " << config.architecture
      << " rotates whole heads with default RoPE\n";
  return Error::success();
}

/// The rotated width given as an element count (GPT-J's rotary_dim).
Error parseRotaryDim(const FieldReader &reader,
                     const HFConfigDefaults &defaults, ModelConfig &config) {
  StringRef key = defaults.rotaryDimKey;
  const json::Value *raw = reader.object.get(key);
  if (raw && raw->kind() == json::Value::Null)
    return reader.fail("field '" + key + "' is null: transformers' " +
                       config.architecture +
                       " then sizes its sinusoids by the hidden size, not "
                       "a head; give the rotated width");
  config.rotaryDim = defaults.rotaryDimDefault;
  return assignIfPresent(reader.getInt(key), config.rotaryDim);
}

/// DeepSeek's mixture-of-experts layers: those from first_k_dense_replace
/// on, with transformers' defaults (deepseek_v2 / deepseek_v3). Described
/// for `llmc info`; compiling refuses them (checkCompilable).
Error parseMixtureOfExperts(const FieldReader &reader, ModelConfig &config) {
  const bool v3 = config.architecture == "deepseek_v3";
  MixtureOfExperts moe;
  moe.firstLayer = v3 ? 3 : 0;
  if (Error err = assignIfPresent(reader.getInt("first_k_dense_replace"),
                                  moe.firstLayer))
    return err;
  if (moe.firstLayer < 0)
    return reader.fail("field 'first_k_dense_replace' (" +
                       Twine(moe.firstLayer) + ") must not be negative");
  if (moe.firstLayer >= config.numLayers)
    return Error::success(); // Every layer is dense.
  moe.routedExperts = v3 ? 256 : 64;
  moe.sharedExperts = v3 ? 1 : 2;
  moe.expertIntermediateSize = v3 ? 2048 : 1407;
  moe.expertsPerToken = v3 ? 8 : 0;
  // DeepseekV2Config's num_experts_per_tok defaults to None, which its
  // router cannot run.
  if (!v3 && !reader.lookup("num_experts_per_tok"))
    return reader.missing("num_experts_per_tok");
  for (auto [key, out] :
       {std::pair{"n_routed_experts", &moe.routedExperts},
        std::pair{"n_shared_experts", &moe.sharedExperts},
        std::pair{"moe_intermediate_size", &moe.expertIntermediateSize},
        std::pair{"num_experts_per_tok", &moe.expertsPerToken}}) {
    if (Error err = assignIfPresent(reader.getInt(key), *out))
      return err;
    if (*out <= 0 || *out > kMaxLatentWidth)
      return reader.fail("field '" + StringRef(key) + "' (" + Twine(*out) +
                         ") must be in [1, " + Twine(kMaxLatentWidth) +
                         "] for the mixture-of-experts layers from "
                         "'first_k_dense_replace' (" +
                         Twine(moe.firstLayer) + ") on");
  }
  config.moe = moe;
  return Error::success();
}

/// Multi-head latent attention (deepseek_v2, deepseek_v3): the widths with
/// transformers' defaults (DeepseekV2Config and DeepseekV3Config agree), the
/// cache's one latent "KV head", the RoPE pairing and the softmax scale.
/// `headDimGiven` is config.json's head_dim, which these configs set to the
/// rope dimension (transformers overrides it with qk_rope_head_dim).
Error parseLatentAttention(const FieldReader &reader, StringRef ropeKey,
                           const HFConfigDefaults &defaults,
                           std::optional<int64_t> headDimGiven,
                           ModelConfig &config) {
  LatentAttentionShape &mla = config.latent;
  mla.kvLoraRank = 512;
  mla.qkNopeHeadDim = 128;
  mla.qkRopeHeadDim = 64;
  mla.vHeadDim = 128;
  // Absent means the default rank 1536; an explicit null means q_proj.
  const json::Value *qLora = reader.object.get("q_lora_rank");
  if (qLora && qLora->kind() == json::Value::Null) {
    mla.qLoraRank.reset();
  } else {
    int64_t rank = 1536;
    if (Error err = assignIfPresent(reader.getInt("q_lora_rank"), rank))
      return err;
    if (rank <= 0)
      return reader.fail("field 'q_lora_rank' must be positive or null, got " +
                         Twine(rank));
    mla.qLoraRank = rank;
  }
  for (auto [key, out] : {std::pair{"kv_lora_rank", &mla.kvLoraRank},
                          std::pair{"qk_nope_head_dim", &mla.qkNopeHeadDim},
                          std::pair{"qk_rope_head_dim", &mla.qkRopeHeadDim},
                          std::pair{"v_head_dim", &mla.vHeadDim}}) {
    if (Error err = assignIfPresent(reader.getInt(key), *out))
      return err;
    if (*out <= 0 || *out > kMaxLatentWidth)
      return reader.fail("field '" + StringRef(key) + "' (" + Twine(*out) +
                         ") must be in [1, " + Twine(kMaxLatentWidth) + "]");
  }
  if (mla.qkRopeHeadDim % 2 != 0)
    return reader.fail("field 'qk_rope_head_dim' (" +
                       Twine(mla.qkRopeHeadDim) +
                       ") must be even: RoPE rotates pairs");
  if (headDimGiven && *headDimGiven != mla.qkRopeHeadDim)
    return reader.fail(
        "field 'head_dim' (" + Twine(*headDimGiven) +
        ") contradicts 'qk_rope_head_dim' (" + Twine(mla.qkRopeHeadDim) +
        "): " + config.architecture +
        " configs name the rope dimension head_dim (transformers replaces it "
        "with qk_rope_head_dim)");
  if (config.qkvBias)
    return reader.fail("field 'attention_bias' is true: llmc's latent "
                       "attention has no biases on q_a_proj, "
                       "kv_a_proj_with_mqa and o_proj");
  if (Error err = parseMixtureOfExperts(reader, config))
    return err;

  // The cache's one "KV head": the latent and the rotated key.
  config.numKVHeads = 1;
  config.headDim = mla.kvLoraRank + mla.qkRopeHeadDim;
  config.rotaryDim = mla.qkRopeHeadDim;
  // deepseek_v2 multiplies complex numbers made of adjacent pairs;
  // deepseek_v3 pairs them too unless rope_interleave is false (its
  // interleaved form writes the rotated pairs as halves, a permutation that
  // the dot products of queries and keys do not see).
  bool interleave = true;
  if (defaults.readsRopeInterleave)
    if (Error err =
            assignIfPresent(reader.getBool("rope_interleave"), interleave))
      return err;
  config.ropeStyle = interleave ? RopeStyle::Interleaved : RopeStyle::Half;
  // yarn_apply_mscale: qk_head_dim^-0.5, times mscale(factor,
  // mscale_all_dim)^2 for any RoPE scaling that sets mscale_all_dim.
  double scale =
      1.0 / std::sqrt(double(mla.qkNopeHeadDim + mla.qkRopeHeadDim));
  if (config.ropeScaling.kind != RopeScalingKind::None) {
    const json::Object *rope = reader.lookup(ropeKey)->getAsObject();
    std::string ropePrefix = (ropeKey + ".").str(); // outlives the reader
    FieldReader ropeReader(reader.source, *rope, ropePrefix);
    auto allDim = ropeReader.getNumber("mscale_all_dim");
    if (!allDim)
      return allDim.takeError();
    if (*allDim && **allDim != 0.0) {
      double mscale = getYarnMscale(config.ropeScaling.factor, **allDim);
      scale *= mscale * mscale;
    }
  }
  config.block.attentionScale = scale;
  return Error::success();
}

/// Reads layer_types (transformers >= 5 writes it): one "sliding_attention"
/// or "full_attention" per layer.
Expected<std::vector<bool>> parseLayerTypes(const FieldReader &reader,
                                            int64_t numLayers) {
  const json::Value *value = reader.lookup("layer_types");
  const json::Array *types = value ? value->getAsArray() : nullptr;
  if (value && !types)
    return reader.typeError("layer_types", "an array", *value);
  if (int64_t(types->size()) != numLayers)
    return reader.fail("field 'layer_types' has " + Twine(types->size()) +
                       " entries for " + Twine(numLayers) +
                       " layers ('num_hidden_layers')");
  std::vector<bool> sliding;
  for (const json::Value &type : *types) {
    std::optional<StringRef> name = type.getAsString();
    if (!name || (*name != "sliding_attention" && *name != "full_attention"))
      return reader.fail("field 'layer_types' entry " +
                         Twine(sliding.size()) +
                         " must be \"sliding_attention\" or \"full_attention\"");
    sliding.push_back(*name == "sliding_attention");
  }
  return sliding;
}

/// The attention window and the layers it applies to, by the family's rule
/// (HFWindowRule): every layer (mistral, phi3); with use_sliding_window,
/// the layers of layer_types or those >= max_window_layers (qwen2, qwen3);
/// the layers of layer_types or all but every sliding_window_pattern-th
/// (gemma2, gemma3).
Error parseSlidingWindow(const FieldReader &reader, const HFConfigDefaults &defaults,
                         ModelConfig &config) {
  if (defaults.windowRule == HFWindowRule::None)
    return Error::success();
  const json::Value *present = reader.object.get("sliding_window");
  std::optional<int64_t> window = defaults.slidingWindow;
  if (present) {
    auto value = reader.getInt("sliding_window");
    if (!value)
      return value.takeError();
    window = *value; // JSON null means no window.
  }
  if (defaults.windowRule == HFWindowRule::EveryLayer) {
    config.slidingWindow = window;
    return Error::success();
  }
  if (defaults.windowRule == HFWindowRule::UseSlidingWindowLayers) {
    auto use = reader.getBool("use_sliding_window");
    if (!use)
      return use.takeError();
    if (!use->value_or(false))
      return Error::success();
  }
  if (!window)
    return Error::success();
  // validateModelConfig refuses such a count; no per-layer table before it.
  if (config.numLayers <= 0 || config.numLayers > kMaxLayers)
    return Error::success();

  // Which layers slide: layer_types, else the family's default rule.
  std::vector<bool> sliding;
  if (reader.lookup("layer_types")) {
    auto types = parseLayerTypes(reader, config.numLayers);
    if (!types)
      return types.takeError();
    sliding = std::move(*types);
  } else if (defaults.windowRule == HFWindowRule::AlternatingLayers) {
    int64_t pattern = defaults.slidingWindowPattern;
    if (Error err = assignIfPresent(reader.getInt("sliding_window_pattern"),
                                    pattern))
      return err;
    if (pattern <= 0)
      return reader.fail("field 'sliding_window_pattern' (" + Twine(pattern) +
                         ") must be positive");
    for (int64_t layer = 0; layer < config.numLayers; ++layer)
      sliding.push_back((layer + 1) % pattern != 0);
  } else {
    int64_t maxWindowLayers = kQwenDefaultMaxWindowLayers;
    if (Error err = assignIfPresent(reader.getInt("max_window_layers"),
                                    maxWindowLayers))
      return err;
    for (int64_t layer = 0; layer < config.numLayers; ++layer)
      sliding.push_back(layer >= maxWindowLayers);
  }
  if (llvm::none_of(sliding, [](bool s) { return s; }))
    return Error::success(); // No layer reaches the window.
  config.slidingWindow = window;
  if (!llvm::all_of(sliding, [](bool s) { return s; }))
    config.slidingLayers = std::move(sliding);
  return Error::success();
}


/// rope_parameters.sliding_attention of gemma3 (transformers >= 5): the
/// windowed layers' RoPE, which llmc runs as default RoPE with its theta.
Error parseSlidingRope(const FieldReader &perLayerType, ModelConfig &config) {
  const json::Value *value = perLayerType.lookup("sliding_attention");
  if (!value)
    return Error::success();
  const json::Object *object = value->getAsObject();
  if (!object)
    return perLayerType.typeError("sliding_attention", "an object", *value);
  std::string prefix = perLayerType.name("sliding_attention.");
  FieldReader sliding(perLayerType.source, *object, prefix);
  auto type = sliding.getString("rope_type");
  if (!type)
    return type.takeError();
  if (*type && **type != "default")
    return sliding.fail("field '" + sliding.name("rope_type") + "' is '" +
                        **type +
                        "': llmc runs the sliding layers with default RoPE");
  return assignIfPresent(sliding.getNumber("rope_theta"),
                         config.slidingRopeTheta);
}

/// gemma2's softcaps (a number, or null for none) and its softmax scale
/// query_pre_attn_scalar^-0.5.
Error parseGemma2Attention(const FieldReader &reader,
                           const HFConfigDefaults &defaults,
                           ModelConfig &config) {
  for (auto [key, fallback, out] :
       {std::tuple{"attn_logit_softcapping", defaults.attentionSoftcapDefault,
                   &config.block.attentionSoftcap},
        std::tuple{"final_logit_softcapping", defaults.finalLogitSoftcapDefault,
                   &config.block.finalLogitSoftcap}}) {
    *out = fallback;
    if (reader.object.get(key)) { // JSON null disables the cap
      auto value = reader.getNumber(key);
      if (!value)
        return value.takeError();
      *out = *value;
    }
  }
  double scalar = defaults.queryPreAttnScalarDefault;
  if (Error err =
          assignIfPresent(reader.getNumber("query_pre_attn_scalar"), scalar))
    return err;
  if (!(scalar > 0.0) || !std::isfinite(scalar))
    return reader.fail("field 'query_pre_attn_scalar' (" +
                       formatDouble(scalar) + ") must be a positive finite number");
  config.block.attentionScale = 1.0 / std::sqrt(scalar);
  return Error::success();
}

/// "dir/config.json" -> "dir"; "path/llama-2-7b.json" -> "llama-2-7b".
std::string modelNameFromPath(StringRef path) {
  StringRef file = sys::path::filename(path);
  if (file == "config.json") {
    StringRef dir = sys::path::filename(sys::path::parent_path(path));
    if (!dir.empty() && dir != "." && dir != "..")
      return dir.str();
  }
  return sys::path::stem(path).str();
}

/// Deepest nesting of a config.json llmc reads: real ones nest 3-4 levels
/// (rope_parameters, quantization_config); llvm::json::parse recurses per
/// level and overflows the stack near 40,000, so deeper text is refused
/// before it is parsed.
constexpr unsigned kMaxJSONNesting = 256;

/// The position of the first bracket past kMaxJSONNesting levels (outside
/// strings), if any.
std::optional<size_t> findExcessiveNesting(StringRef text) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character cannot end the string
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJSONNesting)
        return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

} // namespace

Expected<ModelConfig> parseHFConfig(StringRef jsonText, StringRef sourceName) {
  auto fail = [&](const Twine &message) -> Error {
    return createStringError(inconvertibleErrorCode(),
                             sourceName + ": " + message);
  };
  if (std::optional<size_t> at = findExcessiveNesting(jsonText))
    return fail("invalid JSON: nested deeper than " + Twine(kMaxJSONNesting) +
                " levels at byte " + Twine(*at));
  Expected<json::Value> root = json::parse(jsonText);
  if (!root)
    return fail("invalid JSON: " + toString(root.takeError()));
  const json::Object *object = root->getAsObject();
  if (!object)
    return fail("expected a JSON object at the top level (got " +
                jsonKindName(*root) + ")");
  FieldReader reader(sourceName, *object, "");

  ModelConfig config;
  config.name = modelNameFromPath(sourceName);

  auto modelType = reader.getString("model_type");
  if (!modelType)
    return modelType.takeError();
  if (!*modelType)
    return reader.missing("model_type");
  const Architecture *family = findArchitecture(**modelType);
  if (!family)
    return fail("unsupported model_type '" + **modelType + "' (expected " +
                listArchitectures() + ")");
  config.architecture = (*modelType)->str();
  config.block = family->block;
  const HFConfigDefaults &defaults = family->hfDefaults;
  const HFSizeKeys &keys = defaults.keys;
  // A Hugging Face directory's q/k rows are in its family's checkpoint order.
  config.ropeStyle = getCheckpointRopeStyle(family->name);

  struct RequiredInt {
    StringRef key;
    int64_t *out;
  };
  for (RequiredInt field : {RequiredInt{keys.hiddenSize, &config.hiddenSize},
                            {keys.numLayers, &config.numLayers},
                            {keys.numHeads, &config.numHeads},
                            {"vocab_size", &config.vocabSize}}) {
    auto value = reader.requireInt(field.key);
    if (!value)
      return value.takeError();
    *field.out = *value;
  }
  if (defaults.intermediateHiddenMultiple) {
    // Saturates: validation then calls the size too large.
    if (MulOverflow(config.hiddenSize, defaults.intermediateHiddenMultiple,
                    config.intermediateSize))
      config.intermediateSize = std::numeric_limits<int64_t>::max();
    if (Error err = assignIfPresent(reader.getInt(keys.intermediateSize),
                                    config.intermediateSize))
      return err;
  } else {
    auto value = reader.requireInt(keys.intermediateSize);
    if (!value)
      return value.takeError();
    config.intermediateSize = *value;
  }

  config.numKVHeads = config.numHeads;
  if (Error err = assignIfPresent(reader.getInt("num_key_value_heads"),
                                  config.numKVHeads))
    return err;

  auto headDim = reader.getInt("head_dim");
  if (!headDim)
    return headDim.takeError();
  if (*headDim && !defaults.readsLatentAttention) {
    config.headDim = **headDim;
  } else if (config.numHeads > 0 && config.hiddenSize > 0) {
    if (config.hiddenSize % config.numHeads != 0)
      return fail("field 'hidden_size' (" + Twine(config.hiddenSize) +
                  ") is not divisible by 'num_attention_heads' (" +
                  Twine(config.numHeads) + ") and 'head_dim' is not given");
    config.headDim = config.hiddenSize / config.numHeads;
  }

  config.maxPositionEmbeddings = defaults.maxPositionEmbeddings;
  if (Error err = assignIfPresent(reader.getInt(keys.maxPositions),
                                  config.maxPositionEmbeddings))
    return err;
  config.rmsNormEps = defaults.normEps;
  if (Error err = assignIfPresent(reader.getNumber(defaults.normEpsKey),
                                  config.rmsNormEps))
    return err;
  config.ropeTheta = defaults.ropeTheta;
  if (defaults.readsRope)
    if (Error err = assignIfPresent(reader.getNumber(defaults.ropeThetaKey),
                                    config.ropeTheta))
      return err;
  if (defaults.slidingRopeTheta) {
    config.slidingRopeTheta = defaults.slidingRopeTheta;
    if (Error err = assignIfPresent(reader.getNumber("rope_local_base_freq"),
                                    config.slidingRopeTheta))
      return err;
  }

  // transformers v5 folds rope_theta, partial_rotary_factor and
  // rope_scaling into rope_parameters (whose own values win); for gemma3 it
  // holds one such object per layer type.
  StringRef ropeKey =
      reader.lookup("rope_parameters") ? "rope_parameters" : "rope_scaling";
  std::optional<FieldReader> perLayerType;
  if (defaults.slidingRopeTheta && ropeKey == "rope_parameters") {
    const json::Object *object = reader.lookup(ropeKey)->getAsObject();
    if (object && (object->get("full_attention") ||
                   object->get("sliding_attention"))) {
      perLayerType.emplace(reader.source, *object, "rope_parameters.");
      if (Error err = parseSlidingRope(*perLayerType, config))
        return err;
    }
  }
  const FieldReader &ropeReader = perLayerType ? *perLayerType : reader;
  if (perLayerType)
    ropeKey = "full_attention";
  if (!defaults.rotaryDimKey.empty()) {
    if (Error err = parseRotaryDim(reader, defaults, config))
      return err;
  } else {
    std::optional<double> partialRotary;
    if (defaults.partialRotaryDefault != 1.0)
      partialRotary = defaults.partialRotaryDefault;
    if (Error err = assignIfPresent(
            reader.getNumber(defaults.partialRotaryKey), partialRotary))
      return err;
    if (defaults.readsRope)
      if (Error err = parseRopeScaling(ropeReader, ropeKey, defaults, config,
                                       partialRotary))
        return err;
    if (Error err =
            applyPartialRotary(reader, defaults, partialRotary, config))
      return err;
  }

  config.tieWordEmbeddings = defaults.tieWordEmbeddings;
  if (Error err = assignIfPresent(reader.getBool("tie_word_embeddings"),
                                  config.tieWordEmbeddings))
    return err;
  if (Error err = parseSlidingWindow(reader, defaults, config))
    return err;

  // Qwen2Attention hard-codes a bias on q/k/v only.
  config.qkvBias = defaults.qkvBiasAlways;
  if (defaults.readsAttentionBias) {
    bool attentionBias = defaults.attentionBiasDefault;
    if (Error err = assignIfPresent(reader.getBool("attention_bias"),
                                    attentionBias))
      return err;
    config.qkvBias = config.outputBias = attentionBias;
  }
  config.mlpBias = defaults.mlpBiasAlways;
  config.lmHeadBias = defaults.lmHeadBiasAlways;
  if (defaults.readsMLPBias)
    if (Error err =
            assignIfPresent(reader.getBool("mlp_bias"), config.mlpBias))
      return err;
  if (defaults.readsGemma2Attention)
    if (Error err = parseGemma2Attention(reader, defaults, config))
      return err;
  if (defaults.readsParallelResidual) {
    bool parallel = true;
    if (Error err = assignIfPresent(reader.getBool("use_parallel_residual"),
                                    parallel))
      return err;
    config.block.residual = parallel ? ResidualTopology::Parallel
                                     : ResidualTopology::Sequential;
  }

  if (defaults.readsLatentAttention)
    if (Error err = parseLatentAttention(reader, ropeKey, defaults, *headDim,
                                         config))
      return err;

  auto act = parseActivation(reader, defaults);
  if (!act)
    return act.takeError();
  config.hiddenAct = *act;
  auto dtype = parseDType(reader);
  if (!dtype)
    return dtype.takeError();
  config.dtype = *dtype;
  if (Error err = reader.getTokenId("bos_token_id", config.bosTokenId))
    return err;
  if (Error err = reader.getTokenId("eos_token_id", config.eosTokenId))
    return err;

  if (Error err = validateModelConfig(config, ConfigSyntax::HuggingFace))
    return fail(toString(std::move(err)));
  return config;
}

} // namespace llmc
