// The architecture registry: each family's decoder block and tensor names.
#include "Architectures.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace llmc {

StringRef TensorNames::get(WeightRole role) const {
  switch (role) {
  case WeightRole::Embedding:
    return embedding;
  case WeightRole::AttnNorm:
    return attnNorm;
  case WeightRole::AttnPostNorm:
    return attnPostNorm;
  case WeightRole::QProj:
    return qProj;
  case WeightRole::KProj:
    return kProj;
  case WeightRole::VProj:
    return vProj;
  case WeightRole::QNorm:
    return qNorm;
  case WeightRole::KNorm:
    return kNorm;
  case WeightRole::OProj:
    return oProj;
  case WeightRole::FFNNorm:
    return ffnNorm;
  case WeightRole::FFNPostNorm:
    return ffnPostNorm;
  case WeightRole::GateProj:
    return gateProj;
  case WeightRole::UpProj:
    return upProj;
  case WeightRole::DownProj:
    return downProj;
  case WeightRole::FinalNorm:
    return finalNorm;
  case WeightRole::LMHead:
    return lmHead;
  }
  llvm_unreachable("unknown weight role");
}

namespace {

/// LLaMA's block: pre-RMSNorm, sequential residual, gated FFN.
constexpr DecoderBlock kLlamaBlock{};

DecoderBlock withQKNorm(DecoderBlock block, QKNormKind kind) {
  block.qkNorm = kind;
  return block;
}

DecoderBlock postNormBlock() {
  DecoderBlock block;
  block.normPlacement = NormPlacement::Post;
  block.qkNorm = QKNormKind::Projection;
  return block;
}

/// In name order (listArchitectures prints it). The defaults are those of
/// transformers 5's LlamaConfig, MistralConfig, ...
const Architecture kArchitectures[] = {
    {"llama", kLlamaBlock, {}, {}},
    {"mistral", kLlamaBlock, {4096 * 32, 4096}, {}},
    // OLMo 2: norms on the sublayer outputs, q/k RMSNorm over the whole
    // projection (Olmo2Attention).
    {"olmo2", postNormBlock(), {2048, std::nullopt, 1e-5}, {}},
    {"qwen2", kLlamaBlock, {32768, 4096}, {}},
    // Qwen3: Qwen2's block with per-head q/k RMSNorm and no q/k/v bias.
    {"qwen3", withQKNorm(kLlamaBlock, QKNormKind::PerHead), {32768, 4096}, {}},
};

} // namespace

const Architecture *findArchitecture(StringRef modelType) {
  auto *found = find_if(kArchitectures, [&](const Architecture &arch) {
    return arch.name == modelType;
  });
  return found == std::end(kArchitectures) ? nullptr : found;
}

std::string listArchitectures() {
  std::string list;
  const size_t count = std::size(kArchitectures);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0)
      list += i + 1 == count ? " or " : ", ";
    list += kArchitectures[i].name.str();
  }
  return list;
}

} // namespace llmc
