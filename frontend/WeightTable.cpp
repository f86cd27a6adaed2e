// The weight table of a decoder, read off its block description and its family's tensor names.
#include "WeightTable.h"

#include "Architectures.h"
#include "ModelConfig.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace llmc;

ParameterGroup llmc::getParameterGroup(WeightRole role) {
  switch (role) {
  case WeightRole::Embedding:
    return ParameterGroup::Embedding;
  case WeightRole::QProj:
  case WeightRole::KProj:
  case WeightRole::VProj:
  case WeightRole::OProj:
    return ParameterGroup::Attention;
  case WeightRole::GateProj:
  case WeightRole::UpProj:
  case WeightRole::DownProj:
    return ParameterGroup::MLP;
  case WeightRole::AttnNorm:
  case WeightRole::AttnPostNorm:
  case WeightRole::QNorm:
  case WeightRole::KNorm:
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
  // A weight of `role` and, when `withBias`, its bias (the first dimension).
  auto add = [&](WeightRole role, std::vector<int64_t> shape,
                 bool withBias = false) {
    std::string path = (prefix + names.get(role)).str();
    table.push_back({path + ".weight", role, false, layer, shape});
    if (withBias)
      table.push_back({path + ".bias", role, true, layer, {shape.front()}});
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

  add(WeightRole::Embedding, {config.vocabSize, d});
  for (layer = 0; layer < numLayers; ++layer) {
    prefix = (names.layers + "." + llvm::Twine(layer) + ".").str();
    if (preNorms)
      addNorm(WeightRole::AttnNorm, d);
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
    if (postNorms)
      addNorm(WeightRole::AttnPostNorm, d);
    if (preNorms && !sharesNorm)
      addNorm(WeightRole::FFNNorm, d);
    if (block.fusedGateUp) {
      addPart(WeightRole::GateProj, names.gateUpProj, "gate", {0, ffn}, d,
              config.mlpBias);
      addPart(WeightRole::UpProj, names.gateUpProj, "up", {ffn, ffn}, d,
              config.mlpBias);
    } else {
      if (block.feedForward == FeedForwardKind::Gated)
        add(WeightRole::GateProj, {ffn, d}, config.mlpBias);
      add(WeightRole::UpProj, {ffn, d}, config.mlpBias);
    }
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
