// The format each weight of a model is compiled for: the file's own, or what --weight-type asks.
#ifndef LLMC_GRAPH_WEIGHTFORMATCHOICE_H
#define LLMC_GRAPH_WEIGHTFORMATCHOICE_H

#include "frontend/ModelConfig.h"
#include "frontend/WeightFormats.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace llmc {

/// Weight name (getWeightTable's) -> the format the compiled code reads it in.
using WeightFormatMap = llvm::StringMap<WeightFormat>;

/// Chooses a format for every weight of `config`'s weight table.
///
/// With `requested` (--weight-type) a float type: every weight in it, the
/// runtime converting or dequantizing at load. A requested block format is
/// refused: llmc does not quantize at load yet.
///
/// Without: each weight keeps the format of the weights file
/// (`config.weightFormats`) when the target computes it — a float type, or
/// with `computesBlocks` a block format on a matrix whose rows are whole
/// blocks; any other weight (formats the kernels lack, blocks on a target
/// without block kernels, no weights file) is computed in `config.dtype`.
llvm::Expected<WeightFormatMap>
chooseWeightFormats(const ModelConfig &config,
                    std::optional<WeightFormat> requested, bool computesBlocks);

} // namespace llmc

#endif // LLMC_GRAPH_WEIGHTFORMATCHOICE_H
