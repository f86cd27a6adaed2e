// The weight tensors a model needs, in the order the compiled functions take them.
#ifndef LLMC_GRAPH_WEIGHTTABLE_H
#define LLMC_GRAPH_WEIGHTTABLE_H

#include "frontend/ModelConfig.h"

#include <string>
#include <vector>

namespace llmc {

/// What a weight does in a decoder layer (or around the layers).
enum class WeightRole {
  Embedding, AttnNorm, QProj, QBias, KProj, KBias, VProj, VBias, OProj, OBias,
  FFNNorm, GateProj, GateBias, UpProj, UpBias, DownProj, DownBias, FinalNorm,
  LMHead
};

/// One tensor of the weight table. Names are Hugging Face's, which the
/// runtime maps GGUF and llama2.c names onto; shapes are output-major.
struct WeightSpec {
  std::string name;
  WeightRole role;
  int64_t layer; // -1 for tensors outside the layers
  std::vector<int64_t> shape;
};

/// Every weight `config` needs, in argument order: the embedding, then per
/// layer the attention block and the FFN, then the final norm and, when the
/// embedding is not tied, the LM head.
std::vector<WeightSpec> getWeightTable(const ModelConfig &config);

} // namespace llmc

#endif // LLMC_GRAPH_WEIGHTTABLE_H
