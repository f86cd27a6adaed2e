//===- WeightFormats.cpp - Per-tensor storage formats via the runtime's reader ---===//

#include "WeightFormats.h"

#include "llmc/runtime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <iterator>

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

struct WeightFormatInfo {
  WeightFormat format;
  StringLiteral name;
  int64_t blockElements;
};

constexpr WeightFormatInfo kWeightFormats[] = {
    {WeightFormat::F32, "f32", 1},     {WeightFormat::F16, "f16", 1},
    {WeightFormat::BF16, "bf16", 1},   {WeightFormat::Q8_0, "q8_0", 32},
    {WeightFormat::Q4_0, "q4_0", 32},  {WeightFormat::Q4_1, "q4_1", 32},
    {WeightFormat::Q5_0, "q5_0", 32},  {WeightFormat::Q5_1, "q5_1", 32},
    {WeightFormat::Q4_K, "q4_k", 256}, {WeightFormat::Q5_K, "q5_k", 256},
    {WeightFormat::Q6_K, "q6_k", 256},
};

constexpr bool isIndexedByFormat() {
  for (size_t i = 0; i < std::size(kWeightFormats); ++i)
    if (static_cast<size_t>(kWeightFormats[i].format) != i)
      return false;
  return true;
}
static_assert(isIndexedByFormat(), "kWeightFormats is indexed by WeightFormat");

const WeightFormatInfo &getInfo(WeightFormat format) {
  return kWeightFormats[static_cast<int>(format)];
}

} // namespace

StringRef toString(WeightFormat format) { return getInfo(format).name; }

std::optional<WeightFormat> parseWeightFormat(StringRef name) {
  for (const WeightFormatInfo &info : kWeightFormats)
    if (info.name == name)
      return info.format;
  return std::nullopt;
}

std::string getWeightFormatNames() {
  std::string names;
  for (const WeightFormatInfo &info : kWeightFormats)
    names += (names.empty() ? "" : ", ") + info.name.str();
  return names;
}

WeightFormat toWeightFormat(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return WeightFormat::F32;
  case DType::F16:
    return WeightFormat::F16;
  case DType::BF16:
    return WeightFormat::BF16;
  }
  llvm_unreachable("unknown dtype");
}

bool isBlockFormat(WeightFormat format) {
  return getInfo(format).blockElements > 1;
}

int64_t getBlockElements(WeightFormat format) {
  return getInfo(format).blockElements;
}

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
