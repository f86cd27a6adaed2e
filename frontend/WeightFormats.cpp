//===- WeightFormats.cpp - Per-tensor storage formats via the runtime's reader ---===//

#include "WeightFormats.h"

#include "llmc/runtime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace llmc {

namespace {

/// The weights of a Hugging Face directory, in the order the runtime
/// prefers them; none means a config compiled on its own.
constexpr StringLiteral kSafetensorsFiles[] = {"model.safetensors.index.json",
                                               "model.safetensors"};

/// The file or directory to open for `modelPath`, or "" when it has none.
/// loadModelConfig took anything that is not a directory or a .json file
/// for a GGUF (it checked the magic), whatever its extension.
std::string getWeightsPath(StringRef modelPath, llmc_weights_format &format) {
  format = LLMC_WEIGHTS_AUTO;
  if (!sys::fs::is_directory(modelPath)) {
    if (!sys::path::filename(modelPath).ends_with(".json")) {
      format = LLMC_WEIGHTS_GGUF;
      return modelPath.str();
    }
    modelPath = sys::path::parent_path(modelPath);
    if (modelPath.empty())
      modelPath = ".";
  }
  for (StringRef name : kSafetensorsFiles) {
    SmallString<256> candidate(modelPath);
    sys::path::append(candidate, name);
    if (sys::fs::exists(candidate))
      return modelPath.str();
  }
  return "";
}

} // namespace

Expected<WeightFormats> readWeightFormats(StringRef modelPath) {
  WeightFormats formats;
  llmc_weights_format format;
  std::string path = getWeightsPath(modelPath, format);
  if (path.empty())
    return formats;
  llmc_weights *weights = nullptr;
  if (llmc_weights_open(path.c_str(), format, &weights) != LLMC_OK)
    return createStringError(inconvertibleErrorCode(), llmc_last_error());
  size_t count = llmc_weights_tensor_count(weights);
  for (size_t i = 0; i < count; ++i) {
    llmc_tensor_info info;
    if (llmc_weights_tensor_info(weights, i, &info) != LLMC_OK) {
      std::string message = llmc_last_error();
      llmc_weights_destroy(weights);
      return createStringError(inconvertibleErrorCode(), message);
    }
    formats[info.name] = StringRef(llmc_dtype_name(info.dtype)).lower();
  }
  llmc_weights_destroy(weights);
  return formats;
}

} // namespace llmc
