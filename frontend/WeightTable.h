//===- WeightTable.h - The tensors a model needs, in argument order --------===//
//
// Derived from the model's decoder block (DecoderBlock.h) and its family's
// tensor names (Architectures.h): the graph builder's weight arguments, the
// artifact manifest (through the module) and `llmc info`'s parameter counts
// all come from this one list.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_WEIGHTTABLE_H
#define LLMC_FRONTEND_WEIGHTTABLE_H

#include <cstdint>
#include <string>
#include <vector>

namespace llmc {

struct ModelConfig;

/// What a tensor does in a decoder layer (or around the layers). A
/// projection's or LayerNorm's bias has its weight's role (WeightSpec::bias).
enum class WeightRole {
  Embedding,
  AttnNorm,
  AttnPostNorm,
  QProj,
  KProj,
  VProj,
  QNorm,
  KNorm,
  OProj,
  // Multi-head latent attention (DecoderBlock::attention == Latent): QProj
  // is then the queries' part without RoPE, QRopeProj the part with it;
  // KVAProj makes the latent, KRopeProj the shared rotated key; KUpProj and
  // VUpProj are kv_b_proj's key and value rows per head.
  QAProj,
  QANorm,
  QRopeProj,
  KVAProj,
  KRopeProj,
  KVANorm,
  KUpProj,
  VUpProj,
  FFNNorm,
  FFNPostNorm,
  // A mixture-of-experts MLP (ModelConfig::moe): the router, the routed
  // experts' stacked matrices, the shared experts' gate/up/down.
  MoERouter,
  MoEExperts,
  MoESharedExperts,
  GateProj,
  UpProj,
  DownProj,
  FinalNorm,
  LMHead
};

/// Which parameter group `llmc info` counts a role in.
enum class ParameterGroup { Embedding, Attention, MLP, Norms, LMHead };
ParameterGroup getParameterGroup(WeightRole role);

/// Rows of a fused tensor that make one weight: for g in [0, groups), rows
/// [start + g·stride, start + g·stride + count).
struct RowSelection {
  int64_t start = 0, count = 0, stride = 0, groups = 1;
};

/// One tensor of the weight table, named as the family's Hugging Face
/// checkpoints name it (the runtime maps GGUF and llama2.c names onto
/// these); shapes are output-major.
struct WeightSpec {
  std::string name;
  WeightRole role;
  /// The bias of the role's projection or LayerNorm (else its weight).
  bool bias;
  int64_t layer; // -1 for tensors outside the layers
  std::vector<int64_t> shape;
  /// For a part of a fused tensor (phi3's qkv_proj, gpt_neox's
  /// query_key_value): the tensor in the checkpoint and the rows of it this
  /// weight is, copied out at load. Empty for a tensor stored as is.
  std::string source;
  RowSelection rows;

  /// The checkpoint tensor this weight is read from.
  const std::string &getSourceName() const {
    return source.empty() ? name : source;
  }

  /// The product of the shape, saturating at INT64_MAX.
  int64_t numElements() const;
};

/// Every tensor `config` needs, in argument order: the embedding, then per
/// layer its attention part and its FFN part, then the final norm and, when
/// the embedding is not tied, the LM head.
std::vector<WeightSpec> getWeightTable(const ModelConfig &config);

/// The same table with only the first `numLayers` layers (llmc info counts
/// layer 0 and multiplies: every layer has the same shapes).
std::vector<WeightSpec> getWeightTable(const ModelConfig &config,
                                       int64_t numLayers);

} // namespace llmc

#endif // LLMC_FRONTEND_WEIGHTTABLE_H
