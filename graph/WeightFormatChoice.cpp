// The format each weight of a model is compiled for: the file's own, or what --weight-type asks.
#include "graph/WeightFormatChoice.h"
#include "graph/WeightTable.h"

using namespace llvm;

namespace llmc {

namespace {

/// The file's format of `spec` when the target can compute on it as stored.
std::optional<WeightFormat> getComputableFileFormat(const ModelConfig &config,
                                                    const WeightSpec &spec,
                                                    bool computesBlocks) {
  auto stored = config.weightFormats.find(spec.name);
  if (stored == config.weightFormats.end())
    return std::nullopt;
  std::optional<WeightFormat> format = parseWeightFormat(stored->second);
  if (!format || !isBlockFormat(*format))
    return format;
  bool wholeBlocks = spec.shape.size() == 2 &&
                     spec.shape[1] % getBlockElements(*format) == 0;
  if (computesBlocks && wholeBlocks)
    return format;
  return std::nullopt;
}

} // namespace

Expected<WeightFormatMap> chooseWeightFormats(const ModelConfig &config,
                                              std::optional<WeightFormat> requested,
                                              bool computesBlocks) {
  if (requested && isBlockFormat(*requested))
    return createStringError(
        "--weight-type=" + toString(*requested) +
        ": llmc does not quantize weights at load; compile a GGUF file "
        "quantized to " + toString(*requested) +
        " (its formats are kept), or choose f32, f16 or bf16");
  WeightFormatMap formats;
  for (const WeightSpec &spec : getWeightTable(config)) {
    WeightFormat format = requested.value_or(
        getComputableFileFormat(config, spec, computesBlocks)
            .value_or(toWeightFormat(config.dtype)));
    formats[spec.name] = format;
  }
  return formats;
}

} // namespace llmc
