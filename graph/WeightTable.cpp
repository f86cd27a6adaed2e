// The weight table of a LLaMA-family decoder, named as in Hugging Face checkpoints.
#include "graph/WeightTable.h"

#include "llvm/ADT/Twine.h"

using namespace llmc;

std::vector<WeightSpec> llmc::getWeightTable(const ModelConfig &config) {
  const int64_t d = config.hiddenSize;
  const int64_t qDim = config.numHeads * config.headDim;
  const int64_t kvDim = config.numKVHeads * config.headDim;
  const int64_t ffn = config.intermediateSize;

  std::vector<WeightSpec> table;
  auto add = [&](std::string name, WeightRole role, int64_t layer,
                 std::vector<int64_t> shape) {
    table.push_back({std::move(name), role, layer, std::move(shape)});
  };

  add("model.embed_tokens.weight", WeightRole::Embedding, -1,
      {config.vocabSize, d});
  for (int64_t i = 0; i < config.numLayers; ++i) {
    std::string prefix = ("model.layers." + llvm::Twine(i) + ".").str();
    add(prefix + "input_layernorm.weight", WeightRole::AttnNorm, i, {d});
    add(prefix + "self_attn.q_proj.weight", WeightRole::QProj, i, {qDim, d});
    if (config.qkvBias)
      add(prefix + "self_attn.q_proj.bias", WeightRole::QBias, i, {qDim});
    add(prefix + "self_attn.k_proj.weight", WeightRole::KProj, i, {kvDim, d});
    if (config.qkvBias)
      add(prefix + "self_attn.k_proj.bias", WeightRole::KBias, i, {kvDim});
    add(prefix + "self_attn.v_proj.weight", WeightRole::VProj, i, {kvDim, d});
    if (config.qkvBias)
      add(prefix + "self_attn.v_proj.bias", WeightRole::VBias, i, {kvDim});
    add(prefix + "self_attn.o_proj.weight", WeightRole::OProj, i, {d, qDim});
    if (config.outputBias)
      add(prefix + "self_attn.o_proj.bias", WeightRole::OBias, i, {d});
    add(prefix + "post_attention_layernorm.weight", WeightRole::FFNNorm, i,
        {d});
    add(prefix + "mlp.gate_proj.weight", WeightRole::GateProj, i, {ffn, d});
    if (config.mlpBias)
      add(prefix + "mlp.gate_proj.bias", WeightRole::GateBias, i, {ffn});
    add(prefix + "mlp.up_proj.weight", WeightRole::UpProj, i, {ffn, d});
    if (config.mlpBias)
      add(prefix + "mlp.up_proj.bias", WeightRole::UpBias, i, {ffn});
    add(prefix + "mlp.down_proj.weight", WeightRole::DownProj, i, {d, ffn});
    if (config.mlpBias)
      add(prefix + "mlp.down_proj.bias", WeightRole::DownBias, i, {d});
  }
  add("model.norm.weight", WeightRole::FinalNorm, -1, {d});
  if (!config.tieWordEmbeddings)
    add("lm_head.weight", WeightRole::LMHead, -1, {config.vocabSize, d});
  return table;
}
