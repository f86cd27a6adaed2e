//===- ModelConfig.h - Typed, validated description of a LLaMA-family model ===//
//
// The one structure every later phase reads: the `llm` module builder, the
// artifact manifest and `llmc info`. Parsers (Hugging Face config.json, GGUF
// metadata) fill it and then call validateModelConfig, so code downstream may
// assume every invariant listed on the fields below.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_MODELCONFIG_H
#define LLMC_FRONTEND_MODELCONFIG_H

#include "DecoderBlock.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmc {

/// Upper bound on num_hidden_layers / block_count. Per-layer tables (which
/// layers slide, the IR's calls) are as long as the layer count, so a corrupt
/// count must be refused before anything loops over it. Published decoders
/// stay far below (Llama-3.1-405B has 126 layers).
constexpr int64_t kMaxLayers = 65536;

/// Upper bound on each latent attention width and mixture-of-experts count:
/// they multiply the head count and one another in weight shapes, so an
/// absurd value must stop at parsing; published models use 512
/// (kv_lora_rank), 1536 (q_lora_rank) and 256 experts.
constexpr int64_t kMaxLatentWidth = int64_t(1) << 20;

/// Which elements RoPE rotates together. The weight source decides it, not
/// the architecture: Hugging Face safetensors checkpoints rotate halves
/// (rotate_half); llama.cpp's GGUF converter permutes the Q/K rows of llama
/// models so that adjacent pairs must be rotated (llama2.c does the same).
enum class RopeStyle { Half, Interleaved };

/// RoPE frequency scaling, following transformers' modeling_rope_utils.py.
/// NTK is static NTK-aware base scaling (not an HF rope_type; accepted as
/// "ntk"); Dynamic is HF's "dynamic" (dynamic NTK). Dynamic and Longrope
/// choose their frequencies per call from the sequence length so far.
enum class RopeScalingKind { None, Linear, NTK, Dynamic, Yarn, Llama3, Longrope };

struct RopeScaling {
  RopeScalingKind kind = RopeScalingKind::None;
  /// Context extension factor; >= 1 for every kind but None.
  double factor = 1.0;
  /// Pre-training context length that the scaled frequencies refer to.
  /// HF: rope_scaling.original_max_position_embeddings for yarn, llama3 and
  /// longrope (falling back to max_position_embeddings); dynamic always uses
  /// max_position_embeddings, as transformers does. 0 when kind is None or
  /// Linear (unused there).
  int64_t originalMaxPositionEmbeddings = 0;
  /// llama3 only: wavelength band edges (high > low).
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;
  /// yarn only: correction range in rotations (fast > slow).
  double betaFast = 32.0, betaSlow = 1.0;
  /// yarn only: whether the correction range is rounded outwards to whole
  /// dimensions (HF "truncate", default true; false keeps it fractional).
  bool truncate = true;
  /// yarn and longrope: the factor cos and sin are multiplied by (HF
  /// "attention_factor"; for GGUF yarn, llama.cpp's rope.scaling.attn_factor
  /// times 0.1·ln(factor) + 1). Absent means the kind's default, computed by
  /// the lowering: yarn 0.1·ln(factor) + 1, longrope
  /// sqrt(1 + ln(factor) / ln(original_max_position_embeddings)).
  std::optional<double> attentionFactor;
  /// longrope only: per-pair divisors of the inverse frequencies (rotaryDim/2
  /// each), `longFactor` when the sequence so far is longer than
  /// originalMaxPositionEmbeddings, else `shortFactor`.
  std::vector<double> shortFactor, longFactor;
};

/// hidden_act: silu/swish, gelu, gelu_pytorch_tanh/gelu_new, relu.
enum class Activation { SiLU, GELU, GELUTanh, ReLU };

/// Storage type of the weights (HF torch_dtype / dtype; GGUF tensor type).
enum class DType { F32, F16, BF16 };

/// Where a ModelConfig came from; only used to name fields in error
/// messages the way the user wrote them.
enum class ConfigSyntax { HuggingFace, GGUF };

/// The widths of multi-head latent attention (DecoderBlock::attention ==
/// Latent), named as DeepSeek's configs name them; all positive,
/// qkRopeHeadDim even.
struct LatentAttentionShape {
  /// Queries through a low-rank q_a_proj / q_a_layernorm / q_b_proj of this
  /// rank; absent: one q_proj (DeepSeek-V2-Lite).
  std::optional<int64_t> qLoraRank;
  int64_t kvLoraRank = 0;
  /// Per head: the query/key width without and with RoPE, the value width.
  int64_t qkNopeHeadDim = 0, qkRopeHeadDim = 0, vHeadDim = 0;
};

/// DeepSeek's mixture-of-experts MLP of the layers from firstLayer on
/// (first_k_dense_replace): described so that `llmc info` counts every
/// parameter as transformers does. llmc compiles dense layers only and
/// refuses a model that has such layers (checkCompilable).
struct MixtureOfExperts {
  int64_t firstLayer = 0;
  int64_t routedExperts = 0, sharedExperts = 0, expertIntermediateSize = 0;
  /// Routed experts each token runs through (num_experts_per_tok).
  int64_t expertsPerToken = 0;
};

struct ModelConfig {
  /// Artifact name: the file stem, or the directory name for
  /// `<dir>/config.json`.
  std::string name;
  /// A family of the architecture registry (Architectures.h): the Hugging
  /// Face model_type.
  std::string architecture;
  /// What the config was read from: messages after parsing
  /// (checkCompilable) name fields as that file spells them.
  ConfigSyntax syntax = ConfigSyntax::HuggingFace;
  /// The layers' block: the family's, with what the config adds (softcaps,
  /// scales; Gemma GGUF files bake the norm offset into the weights).
  DecoderBlock block;

  // Shapes. All positive; numHeads % numKVHeads == 0; headDim even (except
  // for latent attention, whose cache head need not be; see `latent`).
  // hiddenSize == numHeads * headDim is NOT required (q_proj maps
  // hiddenSize -> numHeads*headDim and o_proj maps it back).
  int64_t hiddenSize = 0;
  int64_t intermediateSize = 0;
  int64_t numLayers = 0; // At most kMaxLayers.
  int64_t numHeads = 0;
  int64_t numKVHeads = 0;
  int64_t headDim = 0;
  int64_t vocabSize = 0;
  int64_t maxPositionEmbeddings = 0;
  /// With latent attention the cache holds one "KV head" per token and
  /// layer, the latent and the rotated key: numKVHeads is 1, headDim is
  /// kvLoraRank + qkRopeHeadDim and rotaryDim qkRopeHeadDim; the per-head
  /// query, key and value widths are here.
  LatentAttentionShape latent;
  /// The mixture-of-experts layers, when there are any.
  std::optional<MixtureOfExperts> moe;

  double rmsNormEps = 1e-6;
  double ropeTheta = 10000.0;
  /// Leading elements of each head that RoPE rotates: even, <= headDim.
  /// HF: int(head_dim * partial_rotary_factor); GGUF: rope.dimension_count.
  int64_t rotaryDim = 0;
  RopeStyle ropeStyle = RopeStyle::Half;
  RopeScaling ropeScaling;

  /// True when the LM head reuses the token embedding matrix.
  bool tieWordEmbeddings = false;
  /// Attention window in tokens (> 0); std::nullopt = full causal attention.
  std::optional<int64_t> slidingWindow;
  /// The layers the window applies to (one flag per layer), when only some
  /// do (Gemma-2's alternating layers, Qwen2's max_window_layers); empty
  /// means every layer. Use getLayerWindow.
  std::vector<bool> slidingLayers;
  /// The RoPE base of the windowed layers when it differs from ropeTheta
  /// (gemma3's rope_local_base_freq): they use default RoPE with it, and
  /// ropeScaling applies to the other layers only.
  std::optional<double> slidingRopeTheta;
  /// Bias on q/k/v projections (llama attention_bias; always for qwen2).
  bool qkvBias = false;
  /// Bias on o_proj (llama attention_bias sets both qkv and output bias).
  bool outputBias = false;
  /// Bias on gate/up/down projections (llama mlp_bias).
  bool mlpBias = false;
  /// Bias on the LM head (gptj's lm_head; a tied head keeps it).
  bool lmHeadBias = false;
  Activation hiddenAct = Activation::SiLU;
  /// Defaults to F32 when the config does not say: that is what
  /// transformers' from_pretrained loads without an explicit dtype.
  DType dtype = DType::F32;

  /// In [0, vocabSize). When HF gives a list (Llama 3.1 eos), the first.
  int64_t bosTokenId = 1, eosTokenId = 2;

  /// Canonical weight name -> the format the weights file stores it in
  /// ("q4_1", "q8_0", "bf16", ...), recorded in the manifest. Filled in by
  /// `llmc compile` and `llmc info` (readWeightFormats, WeightFormats.h);
  /// empty for the phases and for a config without weights beside it.
  llvm::StringMap<std::string> weightFormats;
};

/// The attention window of layer `layer`: slidingWindow where it applies.
std::optional<int64_t> getLayerWindow(const ModelConfig &config, int64_t layer);

/// Parses a Hugging Face config.json. `sourceName` prefixes every error
/// message and gives the model name (file stem or parent directory).
llvm::Expected<ModelConfig> parseHFConfig(llvm::StringRef jsonText,
                                          llvm::StringRef sourceName);

/// Reads a GGUF file's header, metadata and tensor names (GGUFMetadata.cpp).
llvm::Expected<ModelConfig> parseGGUFMetadata(llvm::StringRef path);

/// Loads `path`: a directory holding config.json, a GGUF file (recognised by
/// its magic, not its extension) or else a JSON config file.
llvm::Expected<ModelConfig> loadModelConfig(llvm::StringRef path);

/// Checks every invariant documented on ModelConfig. Messages name fields
/// as `syntax` spells them and carry no file name (parsers prefix it).
llvm::Error validateModelConfig(const ModelConfig &config,
                                ConfigSyntax syntax = ConfigSyntax::HuggingFace);

/// Whether llmc can compile `config` (not only describe it): refuses
/// mixture-of-experts layers.
llvm::Error checkCompilable(const ModelConfig &config);

/// Stable `key: value` dump, one per line (the `--compile-to=config` output).
void printModelConfig(const ModelConfig &config, llvm::raw_ostream &os);

/// Lowercase names, shared with the IR attributes.
llvm::StringRef toString(RopeStyle style);
llvm::StringRef toString(RopeScalingKind kind);
llvm::StringRef toString(Activation act);
llvm::StringRef toString(DType dtype);

/// Bytes per element of `dtype`.
int64_t getDTypeSize(DType dtype);

/// YaRN's magnitude scale for `scale` with multiplier `mscale` (transformers'
/// get_mscale, llama.cpp's the same): 0.1·mscale·ln(scale) + 1, 1 for
/// scale <= 1.
double getYarnMscale(double scale, double mscale);

/// Formats a double the same way everywhere (config dump, stats): integral
/// values as integers, others with the fewest digits that round-trip.
std::string formatDouble(double value);

} // namespace llmc

#endif // LLMC_FRONTEND_MODELCONFIG_H
