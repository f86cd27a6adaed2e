// Everything `llmc --compile-to=config` and `llmc info` print about a parsed ModelConfig.
#ifndef LLMC_FUZZ_WALK_MODEL_CONFIG_H
#define LLMC_FUZZ_WALK_MODEL_CONFIG_H

#include "ModelConfig.h"

namespace llmc::fuzz {

/// Prints the config and its statistics (parameter, KV-cache and FLOP
/// counts, for every KV dtype) to a null stream: the arithmetic on the
/// file's sizes runs under UBSan.
void walk_model_config(const ModelConfig &config);

/// Loads `path` as `llmc info` does (loadModelConfig: a config.json, or a
/// GGUF by its magic; then the per-tensor formats through the runtime's
/// reader) and walks the result; an error is consumed.
void load_and_walk_model_config(llvm::StringRef path);

} // namespace llmc::fuzz

#endif // LLMC_FUZZ_WALK_MODEL_CONFIG_H
