// The format each weight of a model is compiled for: the file's own, or what --weight-type asks.
#include "graph/WeightFormatChoice.h"
#include "frontend/WeightTable.h"

using namespace llvm;

namespace llmc {

namespace {

/// True for the per-head up-projections of multi-head latent attention
/// (kv_b_proj's key and value rows, or llama.cpp's attn_k_b / attn_v_b),
/// which llm.head_linear reads: it takes float weights only, so quantizing
/// leaves them in f32 and a file's blocks of them are dequantized at load.
bool isPerHeadProjection(const WeightSpec &spec) {
  return spec.role == WeightRole::KUpProj || spec.role == WeightRole::VUpProj;
}

/// The file's format of `spec` when the targets can compute on it as stored.
std::optional<WeightFormat> getComputableFileFormat(const ModelConfig &config,
                                                    const WeightSpec &spec) {
  auto stored = config.weightFormats.find(spec.getSourceName());
  if (stored == config.weightFormats.end())
    return std::nullopt;
  std::optional<WeightFormat> format = parseWeightFormat(stored->second);
  if (!format || !isBlockFormat(*format))
    return format;
  bool wholeBlocks = spec.shape.size() == 2 &&
                     spec.shape[1] % getBlockElements(*format) == 0;
  if (wholeBlocks && !isPerHeadProjection(spec))
    return format;
  return std::nullopt;
}

} // namespace

Expected<WeightFormatMap> chooseWeightFormats(const ModelConfig &config,
                                              std::optional<WeightFormat> requested) {
  bool quantizing = requested && isBlockFormat(*requested);
  if (quantizing && !isQuantizedAtLoad(*requested))
    return createStringError(
        "--weight-type=" + toString(*requested) +
        ": llmc quantizes to q8_0, q4_0, q4_1, q5_0 and q5_1 at load; for " +
        toString(*requested) + " compile a GGUF file quantized by llama-quantize "
        "(its formats are kept)");
  WeightFormat fallback = toWeightFormat(config.dtype);
  WeightFormatMap formats;
  for (const WeightSpec &spec : getWeightTable(config)) {
    WeightFormat format;
    if (quantizing) {
      // Matrices of whole blocks in the requested format, the rest (norms,
      // biases, odd rows, MLA's per-head up-projections) in f32; blocks are
      // made from float weights only.
      auto stored = config.weightFormats.find(spec.getSourceName());
      std::optional<WeightFormat> storedFormat =
          stored == config.weightFormats.end()
              ? std::nullopt
              : parseWeightFormat(stored->second);
      bool storedAsBlocks =
          stored != config.weightFormats.end() &&
          (!storedFormat || isBlockFormat(*storedFormat));
      if (storedAsBlocks && storedFormat != requested)
        return createStringError(
            "--weight-type=" + toString(*requested) + ": tensor '" + spec.name +
            "' is stored as " + stored->second +
            "; llmc quantizes f32, f16 and bf16 weights only (compile the file "
            "without --weight-type to keep its formats)");
      bool wholeBlocks = spec.shape.size() == 2 &&
                         spec.shape[1] % getBlockElements(*requested) == 0;
      format = wholeBlocks && !isPerHeadProjection(spec) ? *requested
                                                         : WeightFormat::F32;
    } else {
      format = requested.value_or(
          getComputableFileFormat(config, spec).value_or(fallback));
    }
    formats[spec.name] = format;
  }
  return formats;
}

bool isQuantizedAtLoad(WeightFormat format) {
  switch (format) {
  case WeightFormat::Q8_0:
  case WeightFormat::Q4_0:
  case WeightFormat::Q4_1:
  case WeightFormat::Q5_0:
  case WeightFormat::Q5_1:
    return true;
  default:
    return false;
  }
}

} // namespace llmc
