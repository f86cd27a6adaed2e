// Weight-format detection and dispatch to the format loaders.
#ifndef LLMC_RUNTIME_WEIGHTS_OPEN_H
#define LLMC_RUNTIME_WEIGHTS_OPEN_H

#include "weight_set.h"

#include <string>

namespace llmc::rt {

/// Loads `path` into `set`. With LLMC_WEIGHTS_AUTO the format is chosen by,
/// in order: directory contents (model.safetensors.index.json, then
/// model.safetensors); the ".gguf" extension or GGUF magic; a ".json"
/// extension (sharded index); the ".safetensors" extension or a plausible
/// safetensors header; the ".bin" extension (llama2.c, which has no magic).
/// An extension wins over sniffing so a corrupt file gets its own format's
/// error message rather than "unrecognized format".
void open_weights(const std::string &path, llmc_weights_format format,
                  WeightSet &set);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_WEIGHTS_OPEN_H
