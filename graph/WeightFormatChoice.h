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
/// runtime converting or dequantizing at load. With a block format the
/// runtime quantizes to (isQuantizedAtLoad): every matrix whose rows are whole blocks in it, quantized at load
/// from the file's float weights, the others (and multi-head latent
/// attention's per-head up-projections, which llm.head_linear reads) in f32; a weight the file
/// already stores in another block format is an error naming it.
///
/// Without: each weight keeps the format of the weights file
/// (`config.weightFormats`) when both targets compute it — a float type, or
/// a block format on a matrix whose rows are whole blocks; any other weight
/// (formats the kernels lack, odd rows, no weights file) is computed in
/// `config.dtype`.
llvm::Expected<WeightFormatMap>
chooseWeightFormats(const ModelConfig &config,
                    std::optional<WeightFormat> requested);

/// The block formats the runtime quantizes float weights into at load.
bool isQuantizedAtLoad(WeightFormat format);

} // namespace llmc

#endif // LLMC_GRAPH_WEIGHTFORMATCHOICE_H
