//===- GGUFMetadataReader.h - Typed GGUF metadata, errors naming keys ---===//
//
// Private to the frontend: what modelConfigFromGGUF (GGUFMetadata.cpp) and the
// per-family readings (GGUFFamilyMetadata.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef LLMC_FRONTEND_GGUFMETADATAREADER_H
#define LLMC_FRONTEND_GGUFMETADATAREADER_H

#include "GGUFMetadata.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace llmc {

/// Typed access to `<arch>.*` metadata with messages naming the key.
class MetadataReader {
public:
  MetadataReader(const GGUFHeader &header, llvm::StringRef path)
      : header(header), path(path) {}

  llvm::Error fail(const llvm::Twine &message) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + message);
  }

  const GGUFValue *lookup(llvm::StringRef key) const {
    auto it = header.metadata.find(key);
    return it == header.metadata.end() ? nullptr : &it->second;
  }

  llvm::Error typeError(llvm::StringRef key, llvm::StringRef expected,
                        const GGUFValue &value) const {
    return fail("metadata key '" + key + "' must be " + expected + " (got " +
                toString(value.type) + ")");
  }

  llvm::Expected<std::optional<int64_t>> getInt(llvm::StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (!value->isInteger())
      return typeError(key, "an integer", *value);
    return value->intValue;
  }

  llvm::Expected<std::optional<double>> getFloat(llvm::StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (value->isFloat())
      return value->floatValue;
    if (value->isInteger())
      return static_cast<double>(value->intValue);
    return typeError(key, "a number", *value);
  }

  llvm::Expected<std::optional<bool>> getBool(llvm::StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (value->type != GGUFValueType::Bool)
      return typeError(key, "a bool", *value);
    return value->intValue != 0;
  }

  llvm::Expected<std::optional<std::string>>
  getString(llvm::StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (value->type != GGUFValueType::String)
      return typeError(key, "a string", *value);
    return value->stringValue;
  }

  llvm::Expected<int64_t> requireInt(llvm::StringRef key) const {
    auto value = getInt(key);
    if (!value)
      return value.takeError();
    if (!*value)
      return fail("missing required metadata key '" + key + "'");
    return **value;
  }

  llvm::Expected<double> requireFloat(llvm::StringRef key) const {
    auto value = getFloat(key);
    if (!value)
      return value.takeError();
    if (!*value)
      return fail("missing required metadata key '" + key + "'");
    return **value;
  }

  template <typename T, typename U>
  static llvm::Error assign(llvm::Expected<std::optional<T>> value, U &out) {
    if (!value)
      return value.takeError();
    if (*value)
      out = static_cast<U>(**value);
    return llvm::Error::success();
  }

  const GGUFHeader &header;
  llvm::StringRef path;
};

} // namespace llmc

#endif // LLMC_FRONTEND_GGUFMETADATAREADER_H
