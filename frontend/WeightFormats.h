//===- WeightFormats.h - The storage format of every tensor of a weights file ---===//
//
// What a GGUF or safetensors file holds per tensor (F32, BF16, Q4_1, Q6_K, ...),
// read from the file's header through the llmc runtime's own reader, so that
// the compiler and the runtime agree on names and formats by construction.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_WEIGHTFORMATS_H
#define LLMC_FRONTEND_WEIGHTFORMATS_H

#include "ModelConfig.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llmc {

/// A format a compiled weight can have: a float type, or one of the GGUF
/// block formats the CPU kernels compute on.
enum class WeightFormat { F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K };

/// Lower case, as manifests and `--weight-type` spell them ("q4_k", "bf16").
llvm::StringRef toString(WeightFormat format);
std::optional<WeightFormat> parseWeightFormat(llvm::StringRef name);
/// Every name parseWeightFormat takes, comma-separated.
std::string getWeightFormatNames();

/// The float format of `dtype`.
WeightFormat toWeightFormat(DType dtype);

bool isBlockFormat(WeightFormat format);
/// Elements per block: 1 for the float types, 32, or 256 for the K-quants.
int64_t getBlockElements(WeightFormat format);

/// Canonical (Hugging Face) tensor name -> the format the file stores it in,
/// lower case as the manifest writes dtypes ("q4_1", "bf16").
using WeightFormats = llvm::StringMap<std::string>;

/// The formats of the weights that belong to `modelPath`: the GGUF file
/// itself, or the safetensors (single or sharded) of a model directory /
/// of the directory of a config.json. Empty when there are no weights
/// beside a config (a bundled config is compiled without any). Only
/// headers are read. A file the runtime cannot load (an unknown or
/// unsupported tensor type, a damaged header) is an error with the
/// runtime's message.
llvm::Expected<WeightFormats> readWeightFormats(llvm::StringRef modelPath);

} // namespace llmc

#endif // LLMC_FRONTEND_WEIGHTFORMATS_H
