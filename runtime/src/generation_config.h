// A Hugging Face model directory's generation_config.json: end-of-generation ids and default sampling.
#ifndef LLMC_RUNTIME_GENERATION_CONFIG_H
#define LLMC_RUNTIME_GENERATION_CONFIG_H

#include "llmc/runtime.h"

#include <string>
#include <string_view>

namespace llmc::rt {

/// Parses the text of a generation_config.json (`context` names it in
/// errors). Fields llmc does not use are ignored; the ones it uses must
/// have the types transformers writes, else LLMC_ERR_FORMAT naming the key.
llmc_generation_config parse_generation_config(std::string_view json,
                                               const std::string &context);

/// The generation config that belongs to the weights at `path`: the
/// directory's generation_config.json (a directory, or a file inside one
/// such as model.safetensors or its index); the defaults (no eos ids) for a
/// GGUF or llama2.c file or a directory without one.
llmc_generation_config load_generation_config(const std::string &path);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_GENERATION_CONFIG_H
