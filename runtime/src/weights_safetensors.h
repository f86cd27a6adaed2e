// safetensors loader: single files and sharded checkpoints (model.safetensors.index.json).
#ifndef LLMC_RUNTIME_WEIGHTS_SAFETENSORS_H
#define LLMC_RUNTIME_WEIGHTS_SAFETENSORS_H

#include "weight_set.h"

#include <string>

namespace llmc::rt {

/// Loads one .safetensors file. Names are already Hugging Face names, so
/// canonical == source. F32/F16/BF16 only; other dtypes are refused by name.
void load_safetensors(const std::string &path, WeightSet &set);

/// Loads every shard named by a model.safetensors.index.json `weight_map`
/// (shard paths are relative to the index's directory) and checks that each
/// mapped tensor really is in the shard the index names.
void load_safetensors_index(const std::string &index_path, WeightSet &set);

/// Header sniffing for format detection: an 8-byte length that fits in the
/// file followed by '{'.
bool looks_like_safetensors(const uint8_t *data, uint64_t size);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_WEIGHTS_SAFETENSORS_H
