// The weight table of a decoder, read off its block description and its family's tensor names.
#include "WeightTable.h"

#include "Architectures.h"
#include "ModelConfig.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <tuple>

using namespace llmc;

ParameterGroup llmc::getParameterGroup(WeightRole role) {
  switch (role) {
  case WeightRole::Embedding:
    return ParameterGroup::Embedding;
  case WeightRole::QProj:
  case WeightRole::KProj:
  case WeightRole::VProj:
  case WeightRole::OProj:
  case WeightRole::QAProj:
  case WeightRole::QRopeProj:
  case WeightRole::KVAProj:
  case WeightRole::KRopeProj:
  case WeightRole::KUpProj:
  case WeightRole::VUpProj:
    return ParameterGroup::Attention;
  case WeightRole::GateProj:
  case WeightRole::UpProj:
  case WeightRole::DownProj:
  case WeightRole::MoERouter:
  case WeightRole::MoEExperts:
  case WeightRole::MoESharedExperts:
    return ParameterGroup::MLP;
  case WeightRole::AttnNorm:
  case WeightRole::AttnPostNorm:
  case WeightRole::QNorm:
  case WeightRole::KNorm:
  case WeightRole::QANorm:
  case WeightRole::KVANorm:
  case WeightRole::FFNNorm:
  case WeightRole::FFNPostNorm:
  case WeightRole::FinalNorm:
    return ParameterGroup::Norms;
  case WeightRole::LMHead:
    return ParameterGroup::LMHead;
  }
  llvm_unreachable("unknown weight role");
}

int64_t WeightSpec::numElements() const {
  int64_t n = 1;
  for (int64_t extent : shape)
    if (llvm::MulOverflow(n, extent, n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

std::vector<WeightSpec> llmc::getWeightTable(const ModelConfig &config) {
  return getWeightTable(config, config.numLayers);
}

std::vector<WeightSpec> llmc::getWeightTable(const ModelConfig &config,
                                             int64_t numLayers) {
  const Architecture *arch = findArchitecture(config.architecture);
  assert(arch && "validateModelConfig accepts registered families only");
  const TensorNames &names = arch->tensors;
  const DecoderBlock &block = config.block;
  const int64_t d = config.hiddenSize;
  const int64_t qDim = config.numHeads * config.headDim;
  const int64_t kvDim = config.numKVHeads * config.headDim;
  const int64_t ffn = config.intermediateSize;
  const bool normBias = block.norm == NormKind::LayerNorm;
  const bool preNorms = block.normPlacement != NormPlacement::Post;
  const bool postNorms = block.normPlacement != NormPlacement::Pre;
  const bool sharesNorm = block.residual == ResidualTopology::Parallel &&
                          block.parallelSharesNorm;

  std::vector<WeightSpec> table;
  std::string prefix;
  int64_t layer = -1;
  // A weight of `role` stored as the tensor `module` and, when `withBias`,
  // its bias (the first dimension).
  auto addNamed = [&](WeightRole role, llvm::StringRef module,
                      std::vector<int64_t> shape, bool withBias = false) {
    std::string path = (prefix + module).str();
    table.push_back({path + ".weight", role, false, layer, shape});
    if (withBias)
      table.push_back({path + ".bias", role, true, layer, {shape.front()}});
  };
  // The same, named after the role.
  auto add = [&](WeightRole role, std::vector<int64_t> shape,
                 bool withBias = false) {
    addNamed(role, names.get(role), std::move(shape), withBias);
  };
  // The weight (and bias) of `role` as rows `rows` of the fused tensor
  // `fused`, named "<fused tensor>:<part>".
  auto addPart = [&](WeightRole role, llvm::StringRef fused,
                     llvm::StringRef part, RowSelection rows, int64_t inDim,
                     bool withBias) {
    if (rows.stride == 0)
      rows.stride = rows.count;
    std::string path = (prefix + fused).str();
    for (bool isBias : {false, true}) {
      if (isBias && !withBias)
        continue;
      std::string source = path + (isBias ? ".bias" : ".weight");
      std::vector<int64_t> shape = {rows.count * rows.groups};
      if (!isBias)
        shape.push_back(inDim);
      table.push_back({source + ":" + part.str(), role, isBias, layer,
                       std::move(shape), source, rows});
    }
  };
  auto addNorm = [&](WeightRole role, int64_t size) {
    add(role, {size}, normBias);
  };
  // A mixture-of-experts MLP, named as transformers 5 names its parameters
  // (the routed experts as two stacked 3-D tensors).
  auto addExperts = [&] {
    const MixtureOfExperts &moe = *config.moe;
    const int64_t experts = moe.routedExperts,
                  m = moe.expertIntermediateSize,
                  shared = m * moe.sharedExperts;
    const std::string mlp = prefix + "mlp.";
    table.push_back({mlp + "gate.weight", WeightRole::MoERouter, false, layer,
                     {experts, d}});
    table.push_back({mlp + "experts.gate_up_proj", WeightRole::MoEExperts,
                     false, layer, {experts, 2 * m, d}});
    table.push_back({mlp + "experts.down_proj", WeightRole::MoEExperts, false,
                     layer, {experts, d, m}});
    for (auto [name, rows, columns] :
         {std::tuple{"gate_proj", shared, d}, std::tuple{"up_proj", shared, d},
          std::tuple{"down_proj", d, shared}})
      table.push_back({mlp + "shared_experts." + name + ".weight",
                       WeightRole::MoESharedExperts, false, layer,
                       {rows, columns}});
  };
  // Multi-head latent attention: the fused query tensor (q_proj, or q_b_proj
  // after q_a_proj and q_a_layernorm) split per head into its parts without
  // and with RoPE, kv_a_proj_with_mqa into the latent and the shared rope
  // key, kv_b_proj per head into its key and value rows, or llama.cpp's
  // k_b_proj / v_b_proj (no biases: validation refuses attention_bias).
  auto addLatentAttention = [&] {
    const LatentAttentionShape &mla = config.latent;
    const int64_t heads = config.numHeads, nope = mla.qkNopeHeadDim,
                  rope = mla.qkRopeHeadDim, v = mla.vHeadDim,
                  rank = mla.kvLoraRank;
    int64_t queryInput = d;
    llvm::StringRef querySource = names.qProj;
    if (mla.qLoraRank) {
      add(WeightRole::QAProj, {*mla.qLoraRank, d});
      add(WeightRole::QANorm, {*mla.qLoraRank});
      queryInput = *mla.qLoraRank;
      querySource = names.qBProj;
    }
    addPart(WeightRole::QProj, querySource, "nope",
            {0, nope, nope + rope, heads}, queryInput, false);
    addPart(WeightRole::QRopeProj, querySource, "rope",
            {nope, rope, nope + rope, heads}, queryInput, false);
    addPart(WeightRole::KVAProj, names.kvAProj, "latent", {0, rank}, d, false);
    addPart(WeightRole::KRopeProj, names.kvAProj, "rope", {rank, rope}, d,
            false);
    add(WeightRole::KVANorm, {rank});
    if (block.latentUpProjection == LatentUpProjectionLayout::Split) {
      // llama.cpp's per-head 3-D tensors, read as their rows: the key
      // rows transposed (kv_lora_rank rows of qk_nope_head_dim per head).
      addNamed(WeightRole::KUpProj, names.kBProj, {heads * rank, nope});
      addNamed(WeightRole::VUpProj, names.vBProj, {heads * v, rank});
    } else {
      addPart(WeightRole::KUpProj, names.kvBProj, "k",
              {0, nope, nope + v, heads}, rank, false);
      addPart(WeightRole::VUpProj, names.kvBProj, "v",
              {nope, v, nope + v, heads}, rank, false);
    }
    add(WeightRole::OProj, {d, heads * v});
  };

  add(WeightRole::Embedding, {config.vocabSize, d});
  for (layer = 0; layer < numLayers; ++layer) {
    prefix = (names.layers + "." + llvm::Twine(layer) + ".").str();
    if (preNorms)
      addNorm(WeightRole::AttnNorm, d);
    if (block.attention == AttentionKind::Latent) {
      addLatentAttention();
    } else {
    switch (block.qkvLayout) {
    case QKVLayout::Separate:
      add(WeightRole::QProj, {qDim, d}, config.qkvBias);
      add(WeightRole::KProj, {kvDim, d}, config.qkvBias);
      add(WeightRole::VProj, {kvDim, d}, config.qkvBias);
      break;
    case QKVLayout::Concatenated:
      addPart(WeightRole::QProj, names.qkvProj, "q", {0, qDim}, d,
              config.qkvBias);
      addPart(WeightRole::KProj, names.qkvProj, "k", {qDim, kvDim}, d,
              config.qkvBias);
      addPart(WeightRole::VProj, names.qkvProj, "v", {qDim + kvDim, kvDim}, d,
              config.qkvBias);
      break;
    case QKVLayout::PerHead: {
      // [H][q, k, v][Dh] (validation: as many KV heads as query heads).
      const int64_t dh = config.headDim, heads = config.numHeads;
      addPart(WeightRole::QProj, names.qkvProj, "q", {0, dh, 3 * dh, heads}, d,
              config.qkvBias);
      addPart(WeightRole::KProj, names.qkvProj, "k", {dh, dh, 3 * dh, heads},
              d, config.qkvBias);
      addPart(WeightRole::VProj, names.qkvProj, "v",
              {2 * dh, dh, 3 * dh, heads}, d, config.qkvBias);
      break;
    }
    }
    if (block.qkNorm == QKNormKind::PerHead) {
      add(WeightRole::QNorm, {config.headDim});
      add(WeightRole::KNorm, {config.headDim});
    } else if (block.qkNorm == QKNormKind::Projection) {
      add(WeightRole::QNorm, {qDim});
      add(WeightRole::KNorm, {kvDim});
    }
    add(WeightRole::OProj, {d, qDim}, config.outputBias);
    }
    if (postNorms)
      addNorm(WeightRole::AttnPostNorm, d);
    if (preNorms && !sharesNorm)
      addNorm(WeightRole::FFNNorm, d);
    const bool isExpertLayer = config.moe && layer >= config.moe->firstLayer;
    if (isExpertLayer) {
      addExperts();
    } else if (block.fusedGateUp) {
      addPart(WeightRole::GateProj, names.gateUpProj, "gate", {0, ffn}, d,
              config.mlpBias);
      addPart(WeightRole::UpProj, names.gateUpProj, "up", {ffn, ffn}, d,
              config.mlpBias);
    } else {
      if (block.feedForward == FeedForwardKind::Gated)
        add(WeightRole::GateProj, {ffn, d}, config.mlpBias);
      add(WeightRole::UpProj, {ffn, d}, config.mlpBias);
    }
    if (!isExpertLayer)
      add(WeightRole::DownProj, {d, ffn}, config.mlpBias);
    if (postNorms)
      addNorm(WeightRole::FFNPostNorm, d);
  }
  layer = -1;
  prefix.clear();
  addNorm(WeightRole::FinalNorm, d);
  if (!config.tieWordEmbeddings)
    add(WeightRole::LMHead, {config.vocabSize, d}, config.lmHeadBias);
  else if (config.lmHeadBias) // A tied head keeps its own bias.
    table.push_back({(names.lmHead + ".bias").str(), WeightRole::LMHead,
                     /*bias=*/true, layer, {config.vocabSize}});
  return table;
}
