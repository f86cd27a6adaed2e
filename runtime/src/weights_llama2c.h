// llama2.c checkpoint (.bin) loader exposing its arrays under Hugging Face tensor names.
#ifndef LLMC_RUNTIME_WEIGHTS_LLAMA2C_H
#define LLMC_RUNTIME_WEIGHTS_LLAMA2C_H

#include "weight_set.h"

#include <string>

namespace llmc::rt {

/// Loads a llama2.c `.bin`: a 7 x int32 config header followed by f32 arrays
/// (layout in shared/models/stories260K/README.md). The file size must equal
/// exactly what the header implies; the header is also exposed as GGUF-style
/// metadata (llama.embedding_length, ...).
void load_llama2c(const std::string &path, WeightSet &set);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_WEIGHTS_LLAMA2C_H
