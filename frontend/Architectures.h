//===- Architectures.h - The model families llmc compiles -------------------===//
//
// One row per family (Hugging Face model_type): the decoder block its layers
// share and the names its checkpoints give each tensor. Config parsers fill
// a ModelConfig's block from its family's row and then add what the config
// file says (softcaps, scales); the weight table names tensors from it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_ARCHITECTURES_H
#define LLMC_FRONTEND_ARCHITECTURES_H

#include "DecoderBlock.h"
#include "WeightTable.h"

#include <string>

namespace llmc {

/// Tensor module paths as transformers' state dicts spell them: global ones
/// in full, per-layer ones relative to "<layers>.<i>.". Roles a family's
/// block does not use keep the default and are never read.
struct TensorNames {
  llvm::StringRef embedding = "model.embed_tokens";
  llvm::StringRef layers = "model.layers";
  llvm::StringRef finalNorm = "model.norm";
  llvm::StringRef lmHead = "lm_head";

  llvm::StringRef attnNorm = "input_layernorm";
  /// Norm of the attention output (post and sandwich placement).
  llvm::StringRef attnPostNorm = "post_attention_layernorm";
  /// Norm of the FFN input (pre and sandwich placement; parallel blocks).
  llvm::StringRef ffnNorm = "post_attention_layernorm";
  /// Norm of the FFN output (post and sandwich placement).
  llvm::StringRef ffnPostNorm = "post_feedforward_layernorm";
  llvm::StringRef qProj = "self_attn.q_proj";
  llvm::StringRef kProj = "self_attn.k_proj";
  llvm::StringRef vProj = "self_attn.v_proj";
  llvm::StringRef oProj = "self_attn.o_proj";
  llvm::StringRef qNorm = "self_attn.q_norm";
  llvm::StringRef kNorm = "self_attn.k_norm";
  llvm::StringRef gateProj = "mlp.gate_proj";
  llvm::StringRef upProj = "mlp.up_proj";
  llvm::StringRef downProj = "mlp.down_proj";

  /// The module path of `role` (per-layer roles without the layer prefix).
  llvm::StringRef get(WeightRole role) const;
};

/// What the family's transformers config class assumes for absent fields.
struct HFConfigDefaults {
  int64_t maxPositionEmbeddings = 2048;
  /// The window when the config enables one without giving its size.
  std::optional<int64_t> slidingWindow;
  double rmsNormEps = 1e-6;
  bool tieWordEmbeddings = false;
};

struct Architecture {
  /// The Hugging Face model_type.
  llvm::StringRef name;
  DecoderBlock block;
  HFConfigDefaults hfDefaults;
  TensorNames tensors;
};

/// The family named `modelType`, or null.
const Architecture *findArchitecture(llvm::StringRef modelType);

/// "gemma, gemma2, ... or qwen3": every family, for error messages.
std::string listArchitectures();

} // namespace llmc

#endif // LLMC_FRONTEND_ARCHITECTURES_H
