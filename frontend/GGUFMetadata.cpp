//===- GGUFMetadata.cpp - Read GGUF metadata and map it to ModelConfig ----===//

#include "GGUFMetadata.h"
#include "Architectures.h"
#include "GGUFFamilyMetadata.h"
#include "GGUFMetadataReader.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace llvm;

namespace llmc {

/// llama.cpp's defaults when a file omits the key.
static constexpr double kDefaultFreqBase = 10000.0;
static constexpr int64_t kDefaultBosTokenId = 1, kDefaultEosTokenId = 2;

/// `<arch>.rope.scaling.*` (and the legacy scale_linear): none, linear or
/// yarn, with the magnitudes llama.cpp derives.
static Error readRopeScaling(const MetadataReader &reader, StringRef arch,
                             ModelConfig &config) {
  std::string prefix = (arch + ".rope.").str();
  RopeScaling &scaling = config.ropeScaling;
  // Pre-2024 files spell linear scaling as a single key.
  auto legacyLinear = reader.getFloat(prefix + "scale_linear");
  if (!legacyLinear)
    return legacyLinear.takeError();
  if (*legacyLinear && **legacyLinear != 1.0) {
    scaling.kind = RopeScalingKind::Linear;
    scaling.factor = **legacyLinear;
  }

  std::string typeKey = prefix + "scaling.type";
  auto type = reader.getString(typeKey);
  if (!type)
    return type.takeError();
  if (!*type)
    return Error::success();
  std::optional<RopeScalingKind> kind =
      StringSwitch<std::optional<RopeScalingKind>>(**type)
          .Case("none", RopeScalingKind::None)
          .Case("linear", RopeScalingKind::Linear)
          .Case("yarn", RopeScalingKind::Yarn)
          .Default(std::nullopt);
  if (!kind)
    return reader.fail("metadata key '" + typeKey + "' has unsupported value '" +
                       **type + "' (expected none, linear or yarn)");
  scaling = RopeScaling();
  scaling.kind = *kind;
  // llama.cpp's own cos/sin multiplier (hparams.rope_attn_factor, 1 when
  // absent), applied for every scaling type.
  std::string attnKey = prefix + "scaling.attn_factor";
  auto attention = reader.getFloat(attnKey);
  if (!attention)
    return attention.takeError();
  if (scaling.kind != RopeScalingKind::Yarn && *attention &&
      **attention != 1.0)
    return reader.fail("metadata key '" + attnKey + "' (" +
                       formatDouble(**attention) + ") with rope scaling '" +
                       **type + "' is not supported (only with yarn)");
  if (scaling.kind == RopeScalingKind::None)
    return Error::success();
  auto factor = reader.requireFloat(prefix + "scaling.factor");
  if (!factor)
    return factor.takeError();
  scaling.factor = *factor;
  if (scaling.kind != RopeScalingKind::Yarn)
    return Error::success();
  // llama.cpp falls back to the training context for yarn.
  scaling.originalMaxPositionEmbeddings = config.maxPositionEmbeddings;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "scaling.original_context_length"),
          scaling.originalMaxPositionEmbeddings))
    return err;
  if (Error err = MetadataReader::assign(
          reader.getFloat(prefix + "scaling.yarn_beta_fast"),
          scaling.betaFast))
    return err;
  if (Error err = MetadataReader::assign(
          reader.getFloat(prefix + "scaling.yarn_beta_slow"),
          scaling.betaSlow))
    return err;
  // The cos/sin magnitude. llama.cpp (llama-context.cpp and ggml's
  // rope_yarn) multiplies YaRN's 0.1·ln(factor) + 1 by attn_factor; HF's
  // attention_factor, which convert_hf_to_gguf.py writes as yarn_attn_factor,
  // replaces that default in transformers (llama.cpp drops it for llama and
  // qwen2; llmc keeps the model's own semantics, as for the yarn betas).
  auto yarnAttention = reader.getFloat(prefix + "scaling.yarn_attn_factor");
  if (!yarnAttention)
    return yarnAttention.takeError();
  double base = yarnAttention->value_or(
      scaling.factor > 1.0 ? 0.1 * std::log(scaling.factor) + 1.0 : 1.0);
  if (*attention || *yarnAttention)
    scaling.attentionFactor = base * attention->value_or(1.0);
  return Error::success();
}

/// The compute type a tensor's storage maps to by default: its own for F32,
/// F16 and BF16; none for block-quantized formats, which are dequantized at
/// load (the runtime checks that it can read each format).
static std::optional<DType> floatTypeOf(uint32_t ggmlType) {
  switch (static_cast<GGMLType>(ggmlType)) {
  case GGMLType::F32:
    return DType::F32;
  case GGMLType::F16:
    return DType::F16;
  case GGMLType::BF16:
    return DType::BF16;
  }
  return std::nullopt;
}

Expected<ModelConfig> modelConfigFromGGUF(const GGUFHeader &header,
                                          StringRef path) {
  MetadataReader reader(header, path);
  ModelConfig config;
  config.name = sys::path::stem(path).str();

  auto arch = reader.getString("general.architecture");
  if (!arch)
    return arch.takeError();
  if (!*arch)
    return reader.fail("missing required metadata key 'general.architecture'");
  // llama.cpp writes Mistral models as "llama"; the others keep their
  // model_type (gpt_neox as "gptneox", gemma3_text as "gemma3") and the
  // same key layout under "<arch>.".
  static const StringRef kGGUFArchitectures[] = {
      "deepseek2", "gemma", "gemma2", "gemma3", "gptneox",
      "llama",     "olmo2", "phi3",   "qwen2",  "qwen3"};
  if (!llvm::is_contained(kGGUFArchitectures, **arch))
    return reader.fail("unsupported general.architecture '" + **arch +
                       "' (expected deepseek2, gemma, gemma2, gemma3, "
                       "gptneox, llama, olmo2, phi3, qwen2 or qwen3)");
  config.syntax = ConfigSyntax::GGUF;
  config.architecture = getModelTypeOfGGUFArchitecture(**arch).str();
  config.block = findArchitecture(config.architecture)->block;
  // llama.cpp's converter bakes Gemma's + 1 into the norm weights.
  config.block.normWeightOffset = 0.0;
  // llama.cpp permutes llama Q/K rows for adjacent-pair RoPE (LLAMA_ROPE_TYPE
  // NORM); deepseek2 rotates adjacent pairs of unpermuted rows, as DeepSeek's
  // checkpoints do; the others are converted unpermuted and rotated by halves
  // (NEOX).
  config.ropeStyle = **arch == "llama" || **arch == "deepseek2"
                         ? RopeStyle::Interleaved
                         : RopeStyle::Half;
  std::string prefix = **arch + ".";

  struct RequiredInt {
    StringRef suffix;
    int64_t *out;
  };
  for (RequiredInt field :
       {RequiredInt{"block_count", &config.numLayers},
        {"embedding_length", &config.hiddenSize},
        {"feed_forward_length", &config.intermediateSize},
        {"attention.head_count", &config.numHeads},
        {"context_length", &config.maxPositionEmbeddings}}) {
    auto value = reader.requireInt(prefix + field.suffix.str());
    if (!value)
      return value.takeError();
    *field.out = *value;
  }
  auto eps = reader.requireFloat(
      prefix + (config.block.norm == NormKind::LayerNorm
                    ? "attention.layer_norm_epsilon"
                    : "attention.layer_norm_rms_epsilon"));
  if (!eps)
    return eps.takeError();
  config.rmsNormEps = *eps;

  config.numKVHeads = config.numHeads;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "attention.head_count_kv"), config.numKVHeads))
    return err;

  std::string keyLengthKey = prefix + "attention.key_length";
  auto keyLength = reader.getInt(keyLengthKey);
  if (!keyLength)
    return keyLength.takeError();
  if (*keyLength) {
    config.headDim = **keyLength;
  } else if (config.numHeads > 0 && config.hiddenSize > 0) {
    if (config.hiddenSize % config.numHeads != 0)
      return reader.fail("metadata key '" + prefix + "embedding_length' (" +
                         Twine(config.hiddenSize) +
                         ") is not divisible by '" + prefix +
                         "attention.head_count' (" + Twine(config.numHeads) +
                         ") and '" + keyLengthKey + "' is not given");
    config.headDim = config.hiddenSize / config.numHeads;
  }
  std::string valueLengthKey = prefix + "attention.value_length";
  auto valueLength = reader.getInt(valueLengthKey);
  if (!valueLength)
    return valueLength.takeError();
  // deepseek2's value head (the latent) is narrower than its key head:
  // readLatentAttention checks both.
  if (**arch != "deepseek2" && *valueLength && **valueLength != config.headDim)
    return reader.fail("metadata key '" + valueLengthKey + "' (" +
                       Twine(**valueLength) + ") differs from the key head "
                       "size (" + Twine(config.headDim) +
                       "), which is not supported");

  config.ropeTheta = kDefaultFreqBase;
  if (Error err = MetadataReader::assign(
          reader.getFloat(prefix + "rope.freq_base"), config.ropeTheta))
    return err;
  config.rotaryDim = config.headDim;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "rope.dimension_count"), config.rotaryDim))
    return err;
  if (Error err = readRopeScaling(reader, **arch, config))
    return err;
  if (**arch == "deepseek2")
    if (Error err = readLatentAttention(reader, prefix, config))
      return err;

  auto window = reader.getInt(prefix + "attention.sliding_window");
  if (!window)
    return window.takeError();
  config.slidingWindow = *window;
  // llama.cpp's converter writes phi3's window as 0 when the config has
  // none (Phi-4).
  if (**arch == "phi3" && window->value_or(-1) == 0)
    config.slidingWindow = std::nullopt;
  if (Error err = readSandwichGemmaMetadata(reader, **arch, config))
    return err;

  auto vocab = reader.getInt(prefix + "vocab_size");
  if (!vocab)
    return vocab.takeError();
  if (*vocab) {
    config.vocabSize = **vocab;
  } else if (const GGUFValue *tokens = reader.lookup("tokenizer.ggml.tokens");
             tokens && tokens->type == GGUFValueType::Array) {
    config.vocabSize = static_cast<int64_t>(tokens->arrayLength);
  } else {
    return reader.fail("neither metadata key '" + prefix +
                       "vocab_size' nor the array 'tokenizer.ggml.tokens' "
                       "gives the vocabulary size");
  }

  config.bosTokenId = kDefaultBosTokenId;
  config.eosTokenId = kDefaultEosTokenId;
  if (Error err = MetadataReader::assign(
          reader.getInt("tokenizer.ggml.bos_token_id"), config.bosTokenId))
    return err;
  if (Error err = MetadataReader::assign(
          reader.getInt("tokenizer.ggml.eos_token_id"), config.eosTokenId))
    return err;

  // The tensor names decide what metadata does not say.
  StringSet<> names;
  for (const GGUFTensorInfo &tensor : header.tensors)
    names.insert(tensor.name);
  auto embedding = llvm::find_if(header.tensors, [](const auto &t) {
    return t.name == "token_embd.weight";
  });
  if (embedding == header.tensors.end())
    return reader.fail("no 'token_embd.weight' tensor");
  // A quantized file computes in f32 unless --weight-type says otherwise:
  // the exact dequantized values, the numerics reference.
  config.dtype = floatTypeOf(embedding->type).value_or(DType::F32);
  // Llama 3.1 GGUFs bake llama3 rope scaling into a tensor of frequency
  // factors; honouring it would need the tensor data.
  if (names.contains("rope_freqs.weight"))
    return reader.fail("tensor 'rope_freqs.weight' (precomputed RoPE "
                       "frequency factors) is not supported");
  if (Error err = readLongropeFactors(reader, config))
    return err;
  // Phi-3's converter keeps the checkpoint's fused q/k/v and gate/up
  // tensors (blk.N.attn_qkv, blk.N.ffn_up of 2 x feed_forward_length rows);
  // the runtime names them as Hugging Face does.
  if (**arch == "phi3") {
    config.block.qkvLayout = names.contains("blk.0.attn_qkv.weight")
                                 ? QKVLayout::Concatenated
                                 : QKVLayout::Separate;
    config.block.fusedGateUp = !names.contains("blk.0.ffn_gate.weight");
  }
  // GPT-NeoX's converter reorders the per-head query_key_value into
  // [q; k; v] (attn_qkv); its parallel residual is a key.
  if (**arch == "gptneox") {
    config.block.qkvLayout = QKVLayout::Concatenated;
    auto parallel = reader.getBool(prefix + "use_parallel_residual");
    if (!parallel)
      return parallel.takeError();
    config.block.residual = parallel->value_or(true)
                                ? ResidualTopology::Parallel
                                : ResidualTopology::Sequential;
  }
  config.tieWordEmbeddings = !names.contains("output.weight");
  config.qkvBias = names.contains("blk.0.attn_q.bias") ||
                   names.contains("blk.0.attn_qkv.bias");
  config.outputBias = names.contains("blk.0.attn_output.bias");
  config.mlpBias = names.contains("blk.0.ffn_up.bias");
  // SwiGLU; GeGLU with the tanh GELU for the gemmas; GPT-NeoX's plain MLP with
  // transformers' default hidden_act "gelu" (exact erf: GGUF does not record
  // the activation, and ggml runs its tanh form).
  config.hiddenAct = StringRef(**arch).starts_with("gemma")
                         ? Activation::GELUTanh
                     : **arch == "gptneox" ? Activation::GELU
                                           : Activation::SiLU;

  if (Error err = validateModelConfig(config, ConfigSyntax::GGUF))
    return reader.fail(toString(std::move(err)));
  return config;
}

Expected<ModelConfig> parseGGUFMetadata(StringRef path) {
  Expected<GGUFHeader> header = readGGUFHeader(path);
  if (!header)
    return header.takeError();
  return modelConfigFromGGUF(*header, path);
}

} // namespace llmc
