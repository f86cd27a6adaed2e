//===- ModelStats.cpp - Parameter, KV-cache and FLOP counts ----------------===//

#include "ModelStats.h"
#include "WeightTable.h"

#include "llvm/Support/MathExtras.h"

#include <cstdio>
#include <map>
#include <limits>

using namespace llvm;

namespace llmc {

/// One multiply-add = 2 FLOPs.
static constexpr int64_t kFlopsPerMAC = 2;
/// Attention does two matmuls per head and position: QK^T and PV.
static constexpr int64_t kAttentionMatmuls = 2;
/// Products and sums of validated sizes fit int64 for every real model;
/// corrupt but valid-looking configs saturate instead of wrapping (signed
/// overflow is undefined behaviour, and printed a negative count).
static int64_t mul(std::initializer_list<int64_t> factors) {
  int64_t result = 1;
  for (int64_t f : factors)
    if (MulOverflow(result, f, result))
      return std::numeric_limits<int64_t>::max();
  return result;
}
static int64_t add(std::initializer_list<int64_t> terms) {
  int64_t result = 0;
  for (int64_t t : terms)
    if (AddOverflow(result, t, result))
      return std::numeric_limits<int64_t>::max();
  return result;
}

int64_t ParameterCounts::total() const {
  return add({embedding, attention, mlp, norms, lmHead});
}

int64_t ModelStats::flopsPerToken(int64_t position) const {
  int64_t fullLayers = numLayers - windowedLayers;
  int64_t attended =
      add({mul({fullLayers, position}),
           mul({windowedLayers,
                slidingWindow ? std::min(position, *slidingWindow) : position})});
  return add({flopsPerTokenMatmul,
              mul({attentionFlopsPerLayerPosition, attended})});
}

/// Weights a token is multiplied by (the projections and the LM head).
static bool isMatmulWeight(const WeightSpec &spec) {
  switch (spec.role) {
  case WeightRole::QProj:
  case WeightRole::KProj:
  case WeightRole::VProj:
  case WeightRole::OProj:
  case WeightRole::GateProj:
  case WeightRole::UpProj:
  case WeightRole::DownProj:
  case WeightRole::LMHead:
  case WeightRole::QAProj:
  case WeightRole::QRopeProj:
  case WeightRole::KVAProj:
  case WeightRole::KRopeProj:
  case WeightRole::KUpProj:
  case WeightRole::VUpProj:
  case WeightRole::MoERouter:
  case WeightRole::MoESharedExperts:
    return !spec.bias;
  default:
    return false;
  }
}

ModelStats computeModelStats(const ModelConfig &c, KVCacheFormat kvFormat) {
  ModelStats s;
  const int64_t qDim = mul({c.numHeads, c.headDim});

  // Layers alike in shape are counted once and multiplied: the dense
  // layers have layer 0's shapes, the mixture-of-experts layers those of
  // the first of them.
  const int64_t denseLayers =
      c.moe ? std::min(c.moe->firstLayer, c.numLayers) : c.numLayers;
  const int64_t expertLayers = c.numLayers - denseLayers;
  auto layerMultiplier = [&](int64_t layer) -> int64_t {
    if (layer < 0)
      return 1;
    if (layer < denseLayers)
      return layer == 0 ? denseLayers : 0;
    return layer == denseLayers ? expertLayers : 0;
  };
  ParameterCounts &p = s.parameters;
  for (const WeightSpec &spec : getWeightTable(
           c, expertLayers > 0 ? denseLayers + 1 : int64_t(1))) {
    const int64_t multiplier = layerMultiplier(spec.layer);
    if (multiplier == 0)
      continue;
    int64_t count = mul({spec.numElements(), multiplier});
    int64_t *group = nullptr;
    switch (getParameterGroup(spec.role)) {
    case ParameterGroup::Embedding:
      group = &p.embedding;
      break;
    case ParameterGroup::Attention:
      group = &p.attention;
      break;
    case ParameterGroup::MLP:
      group = &p.mlp;
      break;
    case ParameterGroup::Norms:
      group = &p.norms;
      break;
    case ParameterGroup::LMHead:
      group = &p.lmHead;
      break;
    }
    *group = add({*group, count});
    if (isMatmulWeight(spec))
      s.matmulParameters = add({s.matmulParameters, count});
    // A token runs through expertsPerToken of the routed experts.
    if (spec.role == WeightRole::MoEExperts)
      s.matmulParameters =
          add({s.matmulParameters, mul({count / c.moe->routedExperts,
                                        c.moe->expertsPerToken})});
  }
  // A tied LM head multiplies by the embedding matrix.
  if (c.tieWordEmbeddings)
    s.matmulParameters =
        add({s.matmulParameters, mul({c.vocabSize, c.hiddenSize})});

  s.kvFormat = kvFormat;
  // Keys and values, or the keys alone when they are the values.
  s.kvPlanes = cachesValuesAsKeys(c.block.attention) ? 1 : 2;
  s.kvBytesPerToken = mul({s.kvPlanes, c.numLayers, c.numKVHeads,
                           getKVHeadRowBytes(kvFormat, c.headDim)});
  s.kvBytesFullContext = mul({s.kvBytesPerToken, c.maxPositionEmbeddings});
  s.numLayers = c.numLayers;
  s.slidingWindow = c.slidingWindow;
  if (c.slidingWindow)
    for (int64_t layer = 0; layer < c.numLayers; ++layer)
      s.windowedLayers += getLayerWindow(c, layer) ? 1 : 0;
  // The cache holds the whole context unless every layer is windowed.
  if (c.slidingWindow && s.windowedLayers == c.numLayers &&
      *c.slidingWindow < c.maxPositionEmbeddings)
    s.kvBytesWindow = mul({s.kvBytesPerToken, *c.slidingWindow});

  s.flopsPerTokenMatmul = mul({kFlopsPerMAC, s.matmulParameters});
  s.attentionFlopsPerLayerPosition =
      mul({kFlopsPerMAC, kAttentionMatmuls, qDim});
  s.attentionFlopsPerPosition =
      mul({s.attentionFlopsPerLayerPosition, c.numLayers});
  return s;
}

/// "6.74 B" style: decimal units, two decimals, for counts.
static std::string humanCount(int64_t value) {
  struct Unit {
    double scale;
    const char *suffix;
  };
  static constexpr Unit kUnits[] = {
      {1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
  char buffer[64];
  for (const Unit &unit : kUnits)
    if (static_cast<double>(value) >= unit.scale) {
      std::snprintf(buffer, sizeof(buffer), "%.2f %s",
                    static_cast<double>(value) / unit.scale, unit.suffix);
      return buffer;
    }
  return std::to_string(value);
}

/// "2.00 GiB" style: binary units, two decimals, for byte sizes.
static std::string humanBytes(int64_t value) {
  static constexpr const char *kUnits[] = {"TiB", "GiB", "MiB", "KiB"};
  static constexpr int kLargestShift = 40, kShiftStep = 10;
  char buffer[64];
  int shift = kLargestShift;
  for (const char *unit : kUnits) {
    double scale = static_cast<double>(int64_t(1) << shift);
    if (static_cast<double>(value) >= scale) {
      std::snprintf(buffer, sizeof(buffer), "%.2f %s",
                    static_cast<double>(value) / scale, unit);
      return buffer;
    }
    shift -= kShiftStep;
  }
  return std::to_string(value) + " B";
}

void printModelStats(const ModelConfig &c, const ModelStats &s,
                     raw_ostream &os) {
  const ParameterCounts &p = s.parameters;
  auto line = [&](StringRef key, int64_t value, const std::string &human) {
    // A saturated count is not a count: say so instead of printing 2^63-1.
    if (value == std::numeric_limits<int64_t>::max())
      os << key << ": overflow (more than 2^63-1; the config's sizes are implausible)\n";
    else
      os << key << ": " << value << " (" << human << ")\n";
  };
  os << "model: " << c.name << "\n";
  os << "architecture: " << c.architecture << "\n";
  line("parameters", p.total(), humanCount(p.total()));
  line("parameters.embedding", p.embedding, humanCount(p.embedding));
  line("parameters.attention", p.attention, humanCount(p.attention));
  line("parameters.mlp", p.mlp, humanCount(p.mlp));
  line("parameters.norms", p.norms, humanCount(p.norms));
  line("parameters.lm_head", p.lmHead,
       c.tieWordEmbeddings ? std::string("tied to embedding")
                           : humanCount(p.lmHead));

  os << "kv_cache.dtype: " << toString(s.kvFormat) << "\n";
  // "2 * " for keys and values, nothing when the values are the keys.
  std::string planes =
      s.kvPlanes == 1 ? "" : std::to_string(s.kvPlanes) + " * ";
  if (isQuantized(s.kvFormat))
    os << "kv_cache.formula: " << planes
       << "layers * kv_heads * (head_dim * sizeof(code) + sizeof(f32 "
          "scale)) = "
       << planes << c.numLayers << " * " << c.numKVHeads << " * ("
       << c.headDim << " * " << getKVElementBytes(s.kvFormat) << " + "
       << getKVScaleBytes(s.kvFormat) << ")\n";
  else
    os << "kv_cache.formula: " << planes
       << "layers * kv_heads * head_dim * sizeof(dtype) = " << planes
       << c.numLayers << " * " << c.numKVHeads << " * " << c.headDim << " * "
       << getKVElementBytes(s.kvFormat) << "\n";
  line("kv_cache.bytes_per_token", s.kvBytesPerToken,
       humanBytes(s.kvBytesPerToken));
  if (c.block.attention == AttentionKind::Latent) {
    // The latent cache stores its one head (latent and rotated key) once,
    // as the keys, which are also the values; what transformers' expanded
    // keys and values would take.
    const LatentAttentionShape &mla = c.latent;
    os << "kv_cache.latent: one head of kv_lora_rank + qk_rope_head_dim = "
       << mla.kvLoraRank << " + " << mla.qkRopeHeadDim
       << " per layer, stored once: the keys are the values\n";
    int64_t expanded =
        mul({c.numLayers, c.numHeads,
             mla.qkNopeHeadDim + mla.qkRopeHeadDim + mla.vHeadDim,
             getKVElementBytes(s.kvFormat)});
    line("kv_cache.expanded_bytes_per_token", expanded,
         humanBytes(expanded) + ": layers * heads * (qk_nope_head_dim + "
                                "qk_rope_head_dim + v_head_dim) * sizeof(dtype)");
  }
  line("kv_cache.bytes_full_context", s.kvBytesFullContext,
       humanBytes(s.kvBytesFullContext) + " for " +
           std::to_string(c.maxPositionEmbeddings) + " tokens");
  if (s.kvBytesWindow)
    line("kv_cache.bytes_sliding_window", *s.kvBytesWindow,
         humanBytes(*s.kvBytesWindow) + " for " +
             std::to_string(*c.slidingWindow) + " tokens");

  os << "flops_per_token.formula: 2 * matmul_params + 4 * layers * heads * "
        "head_dim * n (n = attended positions";
  if (s.windowedLayers == c.numLayers)
    os << ", at most sliding_window";
  else if (s.windowedLayers > 0)
    os << ", at most sliding_window in the " << s.windowedLayers << " of "
       << c.numLayers << " layers it applies to";
  os << ")\n";
  line("flops_per_token.matmul_params", s.matmulParameters,
       humanCount(s.matmulParameters));
  line("flops_per_token.attention_per_position", s.attentionFlopsPerPosition,
       humanCount(s.attentionFlopsPerPosition));
  int64_t atOne = s.flopsPerToken(1);
  int64_t atMax = s.flopsPerToken(c.maxPositionEmbeddings);
  line("flops_per_token.at_n_1", atOne, humanCount(atOne));
  line(("flops_per_token.at_n_" + Twine(c.maxPositionEmbeddings)).str(), atMax,
       humanCount(atMax));

  for (DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    int64_t bytes = mul({p.total(), getDTypeSize(dtype)});
    line(("weight_bytes." + toString(dtype)).str(), bytes, humanBytes(bytes));
  }
  os << "weight_bytes.dtype: " << toString(c.dtype) << "\n";
  if (!c.weightFormats.empty()) {
    // How many tensors the file stores in each format, in name order so
    // that the line is stable.
    std::map<std::string, int64_t> counts;
    for (const auto &entry : c.weightFormats)
      ++counts[entry.second];
    os << "weights_file.formats:";
    for (const auto &[format, count] : counts)
      os << " " << format << "=" << count;
    os << "\n";
  }
}

} // namespace llmc
