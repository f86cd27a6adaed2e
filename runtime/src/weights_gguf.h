// GGUF v2/v3 loader: header, metadata KV, tensor infos and the aligned data section.
#ifndef LLMC_RUNTIME_WEIGHTS_GGUF_H
#define LLMC_RUNTIME_WEIGHTS_GGUF_H

#include "weight_set.h"

#include <string>

namespace llmc::rt {

/// Parses a GGUF file into `set` (tensors renamed to canonical names, all
/// KV pairs kept as metadata). Every count, length and offset is checked
/// against the file before use; any inconsistency throws one Error.
void load_gguf(const std::string &path, WeightSet &set);

/// True if the file starts with the GGUF magic (used for format detection).
bool has_gguf_magic(const uint8_t *data, uint64_t size);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_WEIGHTS_GGUF_H
