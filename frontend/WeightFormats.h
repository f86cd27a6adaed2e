//===- WeightFormats.h - The storage format of every tensor of a weights file ---===//
//
// What a GGUF or safetensors file holds per tensor (F32, BF16, Q4_1, Q6_K, ...),
// read from the file's header through the llmc runtime's own reader, so that
// the compiler and the runtime agree on names and formats by construction.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_WEIGHTFORMATS_H
#define LLMC_FRONTEND_WEIGHTFORMATS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llmc {

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
