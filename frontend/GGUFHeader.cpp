//===- GGUFHeader.cpp - A GGUF file's metadata and tensor infos --------===//

#include "GGUFMetadata.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <limits>

using namespace llvm;

namespace llmc {

/// The four bytes every GGUF file starts with.
static constexpr StringLiteral kMagic = "GGUF";
/// v1 used 32-bit counts and lengths; v2 and v3 differ only in that v3 may
/// be big-endian, which this little-endian reader rejects via the version.
static constexpr uint32_t kMinVersion = 2, kMaxVersion = 3;
/// GGML_MAX_DIMS: tensors have at most four dimensions.
static constexpr uint32_t kMaxTensorDims = 4;
/// Tensor data starts at this alignment unless general.alignment says else.
static constexpr uint64_t kDefaultAlignment = 32;
/// Arrays of arrays are legal; deeper nesting than this is taken as
/// corruption rather than recursed into.
static constexpr unsigned kMaxArrayNesting = 8;

StringRef toString(GGUFValueType type) {
  switch (type) {
  case GGUFValueType::UInt8:
    return "uint8";
  case GGUFValueType::Int8:
    return "int8";
  case GGUFValueType::UInt16:
    return "uint16";
  case GGUFValueType::Int16:
    return "int16";
  case GGUFValueType::UInt32:
    return "uint32";
  case GGUFValueType::Int32:
    return "int32";
  case GGUFValueType::Float32:
    return "float32";
  case GGUFValueType::Bool:
    return "bool";
  case GGUFValueType::String:
    return "string";
  case GGUFValueType::Array:
    return "array";
  case GGUFValueType::UInt64:
    return "uint64";
  case GGUFValueType::Int64:
    return "int64";
  case GGUFValueType::Float64:
    return "float64";
  }
  return "unknown";
}

bool GGUFValue::isInteger() const {
  switch (type) {
  case GGUFValueType::UInt8:
  case GGUFValueType::Int8:
  case GGUFValueType::UInt16:
  case GGUFValueType::Int16:
  case GGUFValueType::UInt32:
  case GGUFValueType::Int32:
  case GGUFValueType::UInt64:
  case GGUFValueType::Int64:
    return true;
  default:
    return false;
  }
}

/// Byte size of a fixed-size value type; 0 for string and array.
static uint64_t fixedSize(GGUFValueType type) {
  switch (type) {
  case GGUFValueType::UInt8:
  case GGUFValueType::Int8:
  case GGUFValueType::Bool:
    return 1;
  case GGUFValueType::UInt16:
  case GGUFValueType::Int16:
    return 2;
  case GGUFValueType::UInt32:
  case GGUFValueType::Int32:
  case GGUFValueType::Float32:
    return 4;
  case GGUFValueType::UInt64:
  case GGUFValueType::Int64:
  case GGUFValueType::Float64:
    return 8;
  case GGUFValueType::String:
  case GGUFValueType::Array:
    return 0;
  }
  return 0;
}

static constexpr uint32_t kMaxValueType =
    static_cast<uint32_t>(GGUFValueType::Float64);

namespace {
/// Bounds-checked little-endian reads over the whole file.
class Cursor {
public:
  Cursor(StringRef path, StringRef data) : path(path), data(data) {}

  uint64_t offset() const { return pos; }

  Error fail(uint64_t at, const Twine &message) const {
    return createStringError(inconvertibleErrorCode(),
                             path + ": at offset " + Twine(at) + ": " +
                                 message);
  }

  /// Fails unless `size` more bytes are available for `what`.
  Error need(uint64_t size, const Twine &what) const {
    if (size > data.size() - pos)
      return fail(pos, "expected " + what + " (" + Twine(size) +
                           " bytes), but the file ends at " +
                           Twine(data.size()) + " bytes");
    return Error::success();
  }

  template <typename T> Expected<T> read(const Twine &what) {
    if (Error err = need(sizeof(T), what))
      return err;
    T value = support::endian::read<T, llvm::endianness::little>(
        data.data() + pos);
    pos += sizeof(T);
    return value;
  }

  Error skip(uint64_t size, const Twine &what) {
    if (Error err = need(size, what))
      return err;
    pos += size;
    return Error::success();
  }

  /// A GGUF string: uint64 length, then that many bytes (no terminator).
  Expected<StringRef> readString(const Twine &what) {
    uint64_t start = pos;
    auto length = read<uint64_t>("the length of " + what);
    if (!length)
      return length.takeError();
    if (*length > data.size() - pos)
      return fail(start, what + " has length " + Twine(*length) +
                             ", which runs past the end of the file (" +
                             Twine(data.size()) + " bytes)");
    StringRef result = data.substr(pos, *length);
    pos += *length;
    return result;
  }

private:
  StringRef path;
  StringRef data;
  uint64_t pos = 0;
};
} // namespace

static Expected<GGUFValueType> readValueType(Cursor &cursor,
                                             const Twine &what) {
  uint64_t at = cursor.offset();
  auto raw = cursor.read<uint32_t>(what);
  if (!raw)
    return raw.takeError();
  if (*raw > kMaxValueType)
    return cursor.fail(at, "unknown metadata value type " + Twine(*raw) +
                               " for " + what);
  return static_cast<GGUFValueType>(*raw);
}

/// Walks an array's elements without storing them.
static Error skipArray(Cursor &cursor, GGUFValueType elementType,
                       uint64_t length, const Twine &what, unsigned depth) {
  if (uint64_t size = fixedSize(elementType)) {
    if (length > std::numeric_limits<uint64_t>::max() / size)
      return cursor.fail(cursor.offset(), what + " has an impossible length " +
                                              Twine(length));
    return cursor.skip(length * size, Twine(length) + " elements of " + what);
  }
  for (uint64_t i = 0; i < length; ++i) {
    if (elementType == GGUFValueType::String) {
      if (auto s = cursor.readString("element " + Twine(i) + " of " + what);
          !s)
        return s.takeError();
      continue;
    }
    // Nested array.
    if (depth >= kMaxArrayNesting)
      return cursor.fail(cursor.offset(),
                         what + " nests arrays deeper than " +
                             Twine(kMaxArrayNesting) + " levels");
    auto innerType = readValueType(cursor, "the element type of " + what);
    if (!innerType)
      return innerType.takeError();
    auto innerLength = cursor.read<uint64_t>("the length of " + what);
    if (!innerLength)
      return innerLength.takeError();
    if (Error err =
            skipArray(cursor, *innerType, *innerLength, what, depth + 1))
      return err;
  }
  return Error::success();
}

static Expected<GGUFValue> readValue(Cursor &cursor, GGUFValueType type,
                                     const Twine &what) {
  GGUFValue value;
  value.type = type;
  auto asInt = [&](auto read) -> Error {
    if (!read)
      return read.takeError();
    value.intValue = static_cast<int64_t>(*read);
    return Error::success();
  };
  Error err = Error::success();
  switch (type) {
  case GGUFValueType::UInt8:
    err = asInt(cursor.read<uint8_t>(what));
    break;
  case GGUFValueType::Int8:
    err = asInt(cursor.read<int8_t>(what));
    break;
  case GGUFValueType::UInt16:
    err = asInt(cursor.read<uint16_t>(what));
    break;
  case GGUFValueType::Int16:
    err = asInt(cursor.read<int16_t>(what));
    break;
  case GGUFValueType::UInt32:
    err = asInt(cursor.read<uint32_t>(what));
    break;
  case GGUFValueType::Int32:
    err = asInt(cursor.read<int32_t>(what));
    break;
  case GGUFValueType::Int64:
    err = asInt(cursor.read<int64_t>(what));
    break;
  case GGUFValueType::Bool:
    err = asInt(cursor.read<uint8_t>(what));
    break;
  case GGUFValueType::UInt64: {
    auto read = cursor.read<uint64_t>(what);
    if (!read)
      return read.takeError();
    value.intValue = *read > uint64_t(std::numeric_limits<int64_t>::max())
                         ? std::numeric_limits<int64_t>::max()
                         : static_cast<int64_t>(*read);
    break;
  }
  case GGUFValueType::Float32: {
    auto read = cursor.read<uint32_t>(what);
    if (!read)
      return read.takeError();
    float f = llvm::bit_cast<float>(*read);
    // Keep the decimal the writer meant (1e-5f prints as 1e-05, not
    // 9.99999974737875e-06): the shortest decimal that round-trips as float.
    value.floatValue = f;
    for (int digits = 1; digits <= std::numeric_limits<float>::max_digits10;
         ++digits) {
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.*g", digits,
                    static_cast<double>(f));
      if (std::strtof(buffer, nullptr) == f) {
        value.floatValue = std::strtod(buffer, nullptr);
        break;
      }
    }
    break;
  }
  case GGUFValueType::Float64: {
    auto read = cursor.read<uint64_t>(what);
    if (!read)
      return read.takeError();
    value.floatValue = llvm::bit_cast<double>(*read);
    break;
  }
  case GGUFValueType::String: {
    auto s = cursor.readString(what);
    if (!s)
      return s.takeError();
    value.stringValue = s->str();
    break;
  }
  case GGUFValueType::Array: {
    auto elementType = readValueType(cursor, "the element type of " + what);
    if (!elementType)
      return elementType.takeError();
    auto length = cursor.read<uint64_t>("the length of " + what);
    if (!length)
      return length.takeError();
    value.arrayElementType = *elementType;
    value.arrayLength = *length;
    if (Error e = skipArray(cursor, *elementType, *length, what, 1))
      return e;
    break;
  }
  }
  if (err)
    return err;
  return value;
}

Expected<GGUFHeader> readGGUFHeader(StringRef path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(inconvertibleErrorCode(),
                             path + ": cannot open file: " +
                                 buffer.getError().message());
  Cursor cursor(path, (*buffer)->getBuffer());

  auto magic = cursor.read<uint32_t>("the GGUF magic");
  if (!magic)
    return magic.takeError();
  if (*magic != support::endian::read32le(kMagic.data()))
    return cursor.fail(0, "not a GGUF file (bad magic)");

  GGUFHeader header;
  auto version = cursor.read<uint32_t>("the GGUF version");
  if (!version)
    return version.takeError();
  if (*version < kMinVersion || *version > kMaxVersion)
    return cursor.fail(4, "unsupported GGUF version " + Twine(*version) +
                              " (expected 2 or 3, little-endian)");
  header.version = *version;

  auto tensorCount = cursor.read<uint64_t>("the tensor count");
  if (!tensorCount)
    return tensorCount.takeError();
  auto kvCount = cursor.read<uint64_t>("the metadata key/value count");
  if (!kvCount)
    return kvCount.takeError();

  for (uint64_t i = 0; i < *kvCount; ++i) {
    uint64_t keyOffset = cursor.offset();
    auto key = cursor.readString("metadata key " + Twine(i));
    if (!key)
      return key.takeError();
    std::string what = ("the value of metadata key '" + *key + "'").str();
    auto type = readValueType(cursor, "metadata key '" + *key + "'");
    if (!type)
      return type.takeError();
    auto value = readValue(cursor, *type, what);
    if (!value)
      return value.takeError();
    if (!header.metadata.try_emplace(*key, std::move(*value)).second)
      return cursor.fail(keyOffset,
                         "duplicate metadata key '" + *key + "'");
  }

  for (uint64_t i = 0; i < *tensorCount; ++i) {
    GGUFTensorInfo info;
    auto name = cursor.readString("the name of tensor " + Twine(i));
    if (!name)
      return name.takeError();
    info.name = name->str();
    uint64_t dimsOffset = cursor.offset();
    auto numDims = cursor.read<uint32_t>("the dimension count of tensor '" +
                                         info.name + "'");
    if (!numDims)
      return numDims.takeError();
    if (*numDims > kMaxTensorDims)
      return cursor.fail(dimsOffset, "tensor '" + info.name + "' has " +
                                         Twine(*numDims) +
                                         " dimensions (at most " +
                                         Twine(kMaxTensorDims) + ")");
    for (uint32_t d = 0; d < *numDims; ++d) {
      auto dim = cursor.read<uint64_t>("dimension " + Twine(d) +
                                       " of tensor '" + info.name + "'");
      if (!dim)
        return dim.takeError();
      info.dims.push_back(*dim);
    }
    auto type = cursor.read<uint32_t>("the type of tensor '" + info.name + "'");
    if (!type)
      return type.takeError();
    info.type = *type;
    auto offset =
        cursor.read<uint64_t>("the data offset of tensor '" + info.name + "'");
    if (!offset)
      return offset.takeError();
    info.offset = *offset;
    header.tensors.push_back(std::move(info));
  }

  uint64_t alignment = kDefaultAlignment;
  auto it = header.metadata.find("general.alignment");
  if (it != header.metadata.end() && it->second.isInteger() &&
      it->second.intValue > 0)
    alignment = static_cast<uint64_t>(it->second.intValue);
  header.dataOffset = alignTo(cursor.offset(), alignment);
  return header;
}

} // namespace llmc
