//===- GGUFMetadata.h - GGUF header, metadata and tensor-info reader -------===//
//
// Reads everything in a GGUF (v2/v3) file that precedes the tensor data: the
// metadata key/values and the tensor descriptors. Tensor data is not read
// (a multi-gigabyte file costs only the pages of its header) except for the
// two small f32 tensors of Phi-3's longrope factors, which shape the program.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_GGUFMETADATA_H
#define LLMC_FRONTEND_GGUFMETADATA_H

#include "ModelConfig.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace llmc {

/// Metadata value types, numbered as in the GGUF specification.
enum class GGUFValueType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};

/// GGML tensor types llmc can load (others are quantized formats).
enum class GGMLType : uint32_t { F32 = 0, F16 = 1, BF16 = 30 };

llvm::StringRef toString(GGUFValueType type);

/// One metadata value. Arrays keep only their element type and length:
/// tokenizer vocabularies are large and the frontend needs just the count.
struct GGUFValue {
  GGUFValueType type = GGUFValueType::UInt8;
  /// Every integer type (uint64 above INT64_MAX saturates) and bool.
  int64_t intValue = 0;
  /// Float32 / Float64.
  double floatValue = 0.0;
  std::string stringValue;
  GGUFValueType arrayElementType = GGUFValueType::UInt8;
  uint64_t arrayLength = 0;

  bool isInteger() const;
  bool isFloat() const {
    return type == GGUFValueType::Float32 || type == GGUFValueType::Float64;
  }
};

struct GGUFTensorInfo {
  std::string name;
  llvm::SmallVector<uint64_t, 4> dims; // innermost first, as GGUF stores them
  uint32_t type = 0;                   // GGMLType value
  uint64_t offset = 0;                 // relative to GGUFHeader::dataOffset
};

struct GGUFHeader {
  uint32_t version = 0;
  llvm::StringMap<GGUFValue> metadata;
  std::vector<GGUFTensorInfo> tensors;
  /// File offset where tensor data starts (aligned to general.alignment).
  uint64_t dataOffset = 0;
};

/// Parses the header of the GGUF file at `path`. Every read is bounds-checked;
/// a truncated or corrupt file gives one error naming the file, the offset and
/// what was expected there.
llvm::Expected<GGUFHeader> readGGUFHeader(llvm::StringRef path);

/// Maps `<arch>.*` metadata (llama, qwen2) and tensor names to a validated
/// ModelConfig. `path` names the file in messages and gives the model name.
llvm::Expected<ModelConfig> modelConfigFromGGUF(const GGUFHeader &header,
                                                llvm::StringRef path);

} // namespace llmc

#endif // LLMC_FRONTEND_GGUFMETADATA_H
