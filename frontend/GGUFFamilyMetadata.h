//===- GGUFFamilyMetadata.h - What one model family's GGUF files add ------===//
//
// The readings of modelConfigFromGGUF that belong to one family: Gemma 2 / 3's
// softcaps and sliding layers, DeepSeek-V2/V3's latent attention, Phi-3's
// longrope factor tensors. Each follows llama.cpp's converter and loader.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_GGUFFAMILYMETADATA_H
#define LLMC_FRONTEND_GGUFFAMILYMETADATA_H

#include "GGUFMetadataReader.h"

namespace llmc {

/// Gemma 2 / Gemma 3 ("gemma2", "gemma3"): softcaps, the attention scale
/// llama.cpp assumes, the sliding layers and their RoPE. Nothing for any
/// other architecture.
llvm::Error readSandwichGemmaMetadata(const MetadataReader &reader,
                                      llvm::StringRef arch,
                                      ModelConfig &config);

/// DeepSeek-V2/V3 ("deepseek2"): the latent attention's shape and
/// magnitudes, and the mixture-of-experts layers. `prefix` is "deepseek2.".
llvm::Error readLatentAttention(const MetadataReader &reader,
                                llvm::StringRef prefix, ModelConfig &config);

/// Phi-3's longrope factor tensors, when the file has them.
llvm::Error readLongropeFactors(const MetadataReader &reader,
                                ModelConfig &config);

} // namespace llmc

#endif // LLMC_FRONTEND_GGUFFAMILYMETADATA_H
