//===- GGUFMetadata.cpp - Read GGUF metadata and map it to ModelConfig ----===//

#include "GGUFMetadata.h"
#include "Architectures.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
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
/// llama.cpp's defaults when a file omits the key.
static constexpr double kDefaultFreqBase = 10000.0;
static constexpr int64_t kDefaultBosTokenId = 1, kDefaultEosTokenId = 2;

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

namespace {
/// Typed access to `<arch>.*` metadata with messages naming the key.
class MetadataReader {
public:
  MetadataReader(const GGUFHeader &header, StringRef path)
      : header(header), path(path) {}

  Error fail(const Twine &message) const {
    return createStringError(inconvertibleErrorCode(), path + ": " + message);
  }

  const GGUFValue *lookup(StringRef key) const {
    auto it = header.metadata.find(key);
    return it == header.metadata.end() ? nullptr : &it->second;
  }

  Error typeError(StringRef key, StringRef expected,
                  const GGUFValue &value) const {
    return fail("metadata key '" + key + "' must be " + expected + " (got " +
                toString(value.type) + ")");
  }

  Expected<std::optional<int64_t>> getInt(StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (!value->isInteger())
      return typeError(key, "an integer", *value);
    return value->intValue;
  }

  Expected<std::optional<double>> getFloat(StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (value->isFloat())
      return value->floatValue;
    if (value->isInteger())
      return static_cast<double>(value->intValue);
    return typeError(key, "a number", *value);
  }

  Expected<std::optional<bool>> getBool(StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (value->type != GGUFValueType::Bool)
      return typeError(key, "a bool", *value);
    return value->intValue != 0;
  }

  Expected<std::optional<std::string>> getString(StringRef key) const {
    const GGUFValue *value = lookup(key);
    if (!value)
      return std::nullopt;
    if (value->type != GGUFValueType::String)
      return typeError(key, "a string", *value);
    return value->stringValue;
  }

  Expected<int64_t> requireInt(StringRef key) const {
    auto value = getInt(key);
    if (!value)
      return value.takeError();
    if (!*value)
      return fail("missing required metadata key '" + key + "'");
    return **value;
  }

  Expected<double> requireFloat(StringRef key) const {
    auto value = getFloat(key);
    if (!value)
      return value.takeError();
    if (!*value)
      return fail("missing required metadata key '" + key + "'");
    return **value;
  }

  template <typename T, typename U>
  static Error assign(Expected<std::optional<T>> value, U &out) {
    if (!value)
      return value.takeError();
    if (*value)
      out = static_cast<U>(**value);
    return Error::success();
  }

  const GGUFHeader &header;
  StringRef path;
};
} // namespace

static Error readRopeScaling(const MetadataReader &reader, StringRef arch,
                             ModelConfig &config) {
  std::string prefix = (arch + ".rope.").str();
  RopeScaling &scaling = config.ropeScaling;
  // Pre-2024 files spell linear scaling as a single key.
  auto legacyLinear = reader.getFloat(prefix + "scale_linear");
  if (!legacyLinear)
    return legacyLinear.takeError();
  if (*legacyLinear && **legacyLinear != 1.0) {
    scaling.kind = RopeScalingKind::Linear;
    scaling.factor = **legacyLinear;
  }

  std::string typeKey = prefix + "scaling.type";
  auto type = reader.getString(typeKey);
  if (!type)
    return type.takeError();
  if (!*type)
    return Error::success();
  std::optional<RopeScalingKind> kind =
      StringSwitch<std::optional<RopeScalingKind>>(**type)
          .Case("none", RopeScalingKind::None)
          .Case("linear", RopeScalingKind::Linear)
          .Case("yarn", RopeScalingKind::Yarn)
          .Default(std::nullopt);
  if (!kind)
    return reader.fail("metadata key '" + typeKey + "' has unsupported value '" +
                       **type + "' (expected none, linear or yarn)");
  scaling = RopeScaling();
  scaling.kind = *kind;
  // llama.cpp's own cos/sin multiplier (hparams.rope_attn_factor, 1 when
  // absent), applied for every scaling type.
  std::string attnKey = prefix + "scaling.attn_factor";
  auto attention = reader.getFloat(attnKey);
  if (!attention)
    return attention.takeError();
  if (scaling.kind != RopeScalingKind::Yarn && *attention &&
      **attention != 1.0)
    return reader.fail("metadata key '" + attnKey + "' (" +
                       formatDouble(**attention) + ") with rope scaling '" +
                       **type + "' is not supported (only with yarn)");
  if (scaling.kind == RopeScalingKind::None)
    return Error::success();
  auto factor = reader.requireFloat(prefix + "scaling.factor");
  if (!factor)
    return factor.takeError();
  scaling.factor = *factor;
  if (scaling.kind != RopeScalingKind::Yarn)
    return Error::success();
  // llama.cpp falls back to the training context for yarn.
  scaling.originalMaxPositionEmbeddings = config.maxPositionEmbeddings;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "scaling.original_context_length"),
          scaling.originalMaxPositionEmbeddings))
    return err;
  if (Error err = MetadataReader::assign(
          reader.getFloat(prefix + "scaling.yarn_beta_fast"),
          scaling.betaFast))
    return err;
  if (Error err = MetadataReader::assign(
          reader.getFloat(prefix + "scaling.yarn_beta_slow"),
          scaling.betaSlow))
    return err;
  // The cos/sin magnitude. llama.cpp (llama-context.cpp and ggml's
  // rope_yarn) multiplies YaRN's 0.1·ln(factor) + 1 by attn_factor; HF's
  // attention_factor, which convert_hf_to_gguf.py writes as yarn_attn_factor,
  // replaces that default in transformers (llama.cpp drops it for llama and
  // qwen2; llmc keeps the model's own semantics, as for the yarn betas).
  auto yarnAttention = reader.getFloat(prefix + "scaling.yarn_attn_factor");
  if (!yarnAttention)
    return yarnAttention.takeError();
  double base = yarnAttention->value_or(
      scaling.factor > 1.0 ? 0.1 * std::log(scaling.factor) + 1.0 : 1.0);
  if (*attention || *yarnAttention)
    scaling.attentionFactor = base * attention->value_or(1.0);
  return Error::success();
}

namespace {
/// What llama.cpp's Gemma 2 / Gemma 3 (src/models/gemma2.cpp, gemma3.cpp)
/// read from a GGUF file, and what they assume where convert_hf_to_gguf.py
/// drops the Hugging Face field (query_pre_attn_scalar, layer_types, Gemma
/// 2's rope_theta).
struct SandwichGemmaRules {
  StringRef architecture;
  /// Gemma 2 always softcaps attention scores and logits (50 and 30 when the
  /// keys are absent); Gemma 3 never softcaps attention and caps logits only
  /// when final_logit_softcapping is given and nonzero.
  bool alwaysSoftcaps;
  /// The 27B model, told apart by its layer count, whose attention scale is
  /// (hidden / heads)^-0.5; every other size gets head_dim^-0.5.
  int64_t layersOf27B;
  /// Layer i slides unless i % pattern == pattern - 1 (llama.cpp's
  /// set_swa_pattern) when attention.sliding_window_pattern is absent.
  int64_t slidingWindowPattern;
  /// The window when attention.sliding_window is absent (none for Gemma 3,
  /// which then has no sliding layers; so does a window of 0).
  std::optional<int64_t> defaultWindow;
  /// Gemma 3's sliding layers rotate with rope.freq_base_swa (this default
  /// when absent) and no scaling; Gemma 2's share the other layers' RoPE
  /// (scaled), with rope.freq_base_swa as their base if given.
  std::optional<double> slidingRopeThetaDefault;
};
/// Hugging Face's published values: query_pre_attn_scalar is head_dim
/// (256) for Gemma 2 2B / 9B and Gemma 3 1B-12B, hidden / heads (144, 168)
/// for the 27B models of 46 and 62 layers.
constexpr SandwichGemmaRules kSandwichGemmaRules[] = {
    {"gemma2", /*alwaysSoftcaps=*/true, /*layersOf27B=*/46,
     /*slidingWindowPattern=*/2, /*defaultWindow=*/4096,
     /*slidingRopeThetaDefault=*/std::nullopt},
    {"gemma3", /*alwaysSoftcaps=*/false, /*layersOf27B=*/62,
     /*slidingWindowPattern=*/6, /*defaultWindow=*/std::nullopt,
     /*slidingRopeThetaDefault=*/10000.0},
};
/// llama.cpp's hparams defaults for Gemma 2's softcaps (llama-hparams.h).
constexpr double kGemma2AttentionSoftcap = 50.0, kGemma2FinalSoftcap = 30.0;
} // namespace

/// The softcaps of a Gemma 2 / Gemma 3 file.
static Error readGemmaSoftcaps(const MetadataReader &reader,
                               const SandwichGemmaRules &rules,
                               ModelConfig &config) {
  std::string prefix = (rules.architecture + ".").str();
  auto attention = reader.getFloat(prefix + "attn_logit_softcapping");
  if (!attention)
    return attention.takeError();
  auto finalCap = reader.getFloat(prefix + "final_logit_softcapping");
  if (!finalCap)
    return finalCap.takeError();
  if (rules.alwaysSoftcaps) {
    // validateModelConfig refuses a cap that is not positive, naming the key.
    config.block.attentionSoftcap =
        attention->value_or(kGemma2AttentionSoftcap);
    config.block.finalLogitSoftcap = finalCap->value_or(kGemma2FinalSoftcap);
    return Error::success();
  }
  // Gemma 3: an attention cap in the file is not read (llama.cpp does not;
  // the converter asserts the config has none).
  if (finalCap->value_or(0.0) != 0.0)
    config.block.finalLogitSoftcap = **finalCap;
  return Error::success();
}

/// Which layers of a Gemma 2 / Gemma 3 file slide: llama.cpp's pattern of
/// the architecture, or attention.sliding_window_pattern's period.
static Error readGemmaSlidingLayers(const MetadataReader &reader,
                                    const SandwichGemmaRules &rules,
                                    ModelConfig &config) {
  std::string prefix = (rules.architecture + ".").str();
  if (!reader.lookup(prefix + "attention.sliding_window"))
    config.slidingWindow = rules.defaultWindow;
  if (config.slidingWindow == 0)
    config.slidingWindow = std::nullopt;
  // validateModelConfig refuses such a count; no per-layer table before it.
  if (!config.slidingWindow || config.numLayers <= 0 ||
      config.numLayers > kMaxLayers)
    return Error::success();
  std::string patternKey = prefix + "attention.sliding_window_pattern";
  const GGUFValue *given = reader.lookup(patternKey);
  if (given && given->type == GGUFValueType::Array)
    return reader.fail(Twine("metadata key '") + patternKey +
                       "' is a per-layer array, which llmc does not read (an "
                       "integer period is supported)");
  int64_t pattern = rules.slidingWindowPattern;
  if (Error err = MetadataReader::assign(reader.getInt(patternKey), pattern))
    return err;
  if (pattern < 0)
    return reader.fail(Twine("metadata key '") + patternKey + "' (" +
                       Twine(pattern) +
                       ") must not be negative");
  std::vector<bool> sliding;
  for (int64_t layer = 0; layer < config.numLayers; ++layer)
    sliding.push_back(pattern == 0 || layer % pattern < pattern - 1);
  if (llvm::none_of(sliding, [](bool s) { return s; })) {
    config.slidingWindow = std::nullopt;
    return Error::success();
  }
  if (!llvm::all_of(sliding, [](bool s) { return s; }))
    config.slidingLayers = std::move(sliding);
  return Error::success();
}

/// The RoPE of a Gemma 2 / Gemma 3 file's sliding layers.
static Error readGemmaSlidingRope(const MetadataReader &reader,
                                  const SandwichGemmaRules &rules,
                                  ModelConfig &config) {
  if (!config.slidingWindow)
    return Error::success();
  std::string prefix = (rules.architecture + ".").str();
  std::string baseKey = prefix + "rope.freq_base_swa";
  auto base = reader.getFloat(baseKey);
  if (!base)
    return base.takeError();
  if (rules.slidingRopeThetaDefault) {
    // llmc's sliding layers rotate unscaled, as llama.cpp's Gemma 3 runs
    // them under linear scaling; under YaRN llama.cpp still passes them
    // YaRN's other parameters, which llmc does not follow.
    if (config.ropeScaling.kind == RopeScalingKind::Yarn)
      return reader.fail(Twine("metadata key '") + prefix +
                         "rope.scaling.type' 'yarn' with sliding-window "
                         "layers is not supported (llmc rotates " +
                         rules.architecture +
                         "'s sliding layers without scaling)");
    config.slidingRopeTheta = base->value_or(*rules.slidingRopeThetaDefault);
    return Error::success();
  }
  if (!*base || **base == config.ropeTheta)
    return Error::success();
  // Gemma 2's sliding layers keep the scaling; llmc's own base for them
  // means unscaled RoPE.
  if (config.ropeScaling.kind != RopeScalingKind::None)
    return reader.fail(Twine("metadata key '") + baseKey + "' (" +
                       formatDouble(**base) + ") with rope scaling '" +
                       toString(config.ropeScaling.kind) +
                       "' is not supported (llmc rotates sliding layers with "
                       "their own base unscaled)");
  config.slidingRopeTheta = **base;
  return Error::success();
}

/// Gemma 2 / Gemma 3: softcaps, the attention scale llama.cpp assumes, the
/// sliding layers and their RoPE.
static Error readSandwichGemma(const MetadataReader &reader,
                               const SandwichGemmaRules &rules,
                               ModelConfig &config) {
  if (Error err = readGemmaSoftcaps(reader, rules, config))
    return err;
  // convert_hf_to_gguf.py drops query_pre_attn_scalar; llama.cpp scales
  // queries by head_dim^-0.5, or (hidden / heads)^-0.5 for the 27B layer
  // count, which are the published models' values.
  int64_t scalar = config.headDim;
  if (config.numLayers == rules.layersOf27B && config.numHeads > 0)
    scalar = config.hiddenSize / config.numHeads;
  if (scalar > 0)
    config.block.attentionScale = 1.0 / std::sqrt(double(scalar));
  if (Error err = readGemmaSlidingLayers(reader, rules, config))
    return err;
  return readGemmaSlidingRope(reader, rules, config);
}

/// A positive integer `key` of at most kMaxLatentWidth; `why` ends the
/// message when it is out of range.
static Expected<int64_t> readLatentWidth(const MetadataReader &reader,
                                         StringRef key,
                                         const Twine &why = "") {
  auto value = reader.requireInt(key);
  if (!value)
    return value.takeError();
  if (*value <= 0 || *value > kMaxLatentWidth)
    return reader.fail("metadata key '" + key + "' (" + Twine(*value) +
                       ") must be in [1, " + Twine(kMaxLatentWidth) + "]" +
                       why);
  return *value;
}

/// DeepSeek's mixture-of-experts layers, those from
/// leading_dense_block_count on (llama.cpp's default 0): described for
/// `llmc info`, refused by checkCompilable.
static Error readMixtureOfExperts(const MetadataReader &reader,
                                  StringRef prefix, ModelConfig &config) {
  std::string denseKey = (prefix + "leading_dense_block_count").str();
  MixtureOfExperts moe;
  if (Error err = MetadataReader::assign(reader.getInt(denseKey),
                                         moe.firstLayer))
    return err;
  if (moe.firstLayer >= config.numLayers)
    return Error::success(); // Every layer is dense.
  std::string why = (" for the mixture-of-experts layers from '" + denseKey +
                     "' (" + Twine(moe.firstLayer) + ") on")
                        .str();
  for (auto [suffix, out] :
       {std::pair{"expert_count", &moe.routedExperts},
        std::pair{"expert_shared_count", &moe.sharedExperts},
        std::pair{"expert_feed_forward_length", &moe.expertIntermediateSize},
        std::pair{"expert_used_count", &moe.expertsPerToken}}) {
    auto value = readLatentWidth(reader, (prefix + suffix).str(), why);
    if (!value)
      return value.takeError();
    *out = *value;
  }
  config.moe = moe;
  return Error::success();
}

/// DeepSeek-V2/V3 ("deepseek2") as llama.cpp's convert_hf_to_gguf.py writes
/// it and src/models/deepseek2.cpp reads it. Multi-head latent attention is
/// stored as MQA over one cache head: attention.key_length is kv_lora_rank +
/// rope.dimension_count and value_length kv_lora_rank (llmc's latent cache
/// head), the per-head widths are the _mla keys, a query LoRA is there when
/// q_lora_rank is, and kv_b_proj is split per head into attn_k_b (key rows
/// transposed) and attn_v_b. Files of older converters, with attn_kv_b and
/// without the _mla keys, are refused (the missing key is named).
static Error readLatentAttention(const MetadataReader &reader,
                                 StringRef prefix, ModelConfig &config) {
  LatentAttentionShape &mla = config.latent;
  auto key = [&](StringRef suffix) { return (prefix + suffix).str(); };
  for (auto [suffix, out] :
       {std::pair{"attention.kv_lora_rank", &mla.kvLoraRank},
        std::pair{"rope.dimension_count", &mla.qkRopeHeadDim},
        std::pair{"attention.key_length_mla", &mla.qkNopeHeadDim},
        std::pair{"attention.value_length_mla", &mla.vHeadDim}}) {
    auto value = readLatentWidth(reader, key(suffix));
    if (!value)
      return value.takeError();
    *out = *value;
  }
  // key_length_mla is the whole query/key head: its rope part comes off.
  if (mla.qkNopeHeadDim <= mla.qkRopeHeadDim)
    return reader.fail("metadata key '" + key("attention.key_length_mla") +
                       "' (" + Twine(mla.qkNopeHeadDim) + ") must exceed '" +
                       key("rope.dimension_count") + "' (" +
                       Twine(mla.qkRopeHeadDim) + ")");
  const int64_t qkHeadDim = mla.qkNopeHeadDim;
  mla.qkNopeHeadDim -= mla.qkRopeHeadDim;
  mla.qLoraRank.reset();
  auto qLora = reader.getInt(key("attention.q_lora_rank"));
  if (!qLora)
    return qLora.takeError();
  if (qLora->value_or(0) != 0) {
    auto rank = readLatentWidth(reader, key("attention.q_lora_rank"));
    if (!rank)
      return rank.takeError();
    mla.qLoraRank = *rank;
  }
  // The cache's one head, [latent; rotated key], as the file's MQA says.
  const int64_t cacheHead = mla.kvLoraRank + mla.qkRopeHeadDim;
  for (auto [suffix, expected, what] :
       {std::tuple{"attention.key_length", cacheHead,
                   "attention.kv_lora_rank' + 'rope.dimension_count"},
        std::tuple{"attention.value_length", mla.kvLoraRank,
                   "attention.kv_lora_rank"}}) {
    auto given = reader.getInt(key(suffix));
    if (!given)
      return given.takeError();
    if (*given && **given != expected)
      return reader.fail("metadata key '" + key(suffix) + "' (" +
                         Twine(**given) + ") must be '" + prefix + what +
                         "' (" + Twine(expected) +
                         "): the latent cache head of llama.cpp's MLA");
  }
  config.numKVHeads = 1;
  config.headDim = cacheHead;
  config.rotaryDim = mla.qkRopeHeadDim;
  config.block.latentUpProjection = LatentUpProjectionLayout::Split;

  // The magnitudes llama.cpp derives (llama-context.cpp, deepseek2.cpp).
  // The converter writes 0.1 · mscale_all_dim as yarn_log_multiplier and
  // drops mscale; llama.cpp takes mscale = mscale_all_dim, so YaRN's cos/sin
  // factor mscale(f, mscale) / mscale(f, mscale_all_dim) is 1 (times
  // rope.scaling.attn_factor), or mscale(f, 1) without the key; queries and
  // keys are scaled by that factor squared times mscale(f,
  // mscale_all_dim)^2 / sqrt(key_length_mla).
  RopeScaling &scaling = config.ropeScaling;
  double magnitude = 1.0;
  if (scaling.kind == RopeScalingKind::Linear)
    return reader.fail("metadata key '" + key("rope.scaling.type") +
                       "' 'linear' is not supported for deepseek2 (llmc "
                       "reads none or yarn)");
  if (scaling.kind == RopeScalingKind::Yarn) {
    // llama.cpp does not read it; a model that sets attention_factor
    // would run otherwise under transformers.
    if (reader.lookup(key("rope.scaling.yarn_attn_factor")))
      return reader.fail("metadata key '" +
                         key("rope.scaling.yarn_attn_factor") +
                         "' is not supported for deepseek2 (llama.cpp "
                         "ignores it; compile the Hugging Face directory)");
    auto logMultiplier = reader.getFloat(key("rope.scaling.yarn_log_multiplier"));
    if (!logMultiplier)
      return logMultiplier.takeError();
    auto ropeAttention = reader.getFloat(key("rope.scaling.attn_factor"));
    if (!ropeAttention)
      return ropeAttention.takeError();
    const double factor = scaling.factor;
    const double mscaleAllDim = logMultiplier->value_or(0.0) / 0.1;
    const double ropeMagnitude =
        ropeAttention->value_or(1.0) *
        (*logMultiplier ? 1.0 : getYarnMscale(factor, 1.0));
    scaling.attentionFactor = ropeMagnitude;
    magnitude = ropeMagnitude * getYarnMscale(factor, mscaleAllDim);
  }
  config.block.attentionScale =
      magnitude * magnitude / std::sqrt(double(qkHeadDim));
  return readMixtureOfExperts(reader, prefix, config);
}

/// The compute type a tensor's storage maps to by default: its own for F32,
/// F16 and BF16; none for block-quantized formats, which are dequantized at
/// load (the runtime checks that it can read each format).
static std::optional<DType> floatTypeOf(uint32_t ggmlType) {
  switch (static_cast<GGMLType>(ggmlType)) {
  case GGMLType::F32:
    return DType::F32;
  case GGMLType::F16:
    return DType::F16;
  case GGMLType::BF16:
    return DType::BF16;
  }
  return std::nullopt;
}

/// The values of a 1-D F32 tensor, read from the file: only its own bytes
/// (the file is mapped, not read). For the few small tensors that decide the
/// compiled program rather than being weights.
static Expected<std::vector<double>>
readF32Vector(const MetadataReader &reader, const GGUFTensorInfo &tensor) {
  if (tensor.type != static_cast<uint32_t>(GGMLType::F32))
    return reader.fail("tensor '" + tensor.name + "' has ggml type " +
                       Twine(tensor.type) + "; only F32 (type 0) is supported");
  if (tensor.dims.size() != 1)
    return reader.fail("tensor '" + tensor.name + "' has " +
                       Twine(tensor.dims.size()) +
                       " dimensions (expected 1)");
  auto buffer = MemoryBuffer::getFile(reader.path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer)
    return reader.fail("cannot open file: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  uint64_t begin = reader.header.dataOffset + tensor.offset;
  uint64_t count = tensor.dims[0];
  if (begin < tensor.offset || begin > bytes.size() ||
      count > (bytes.size() - begin) / sizeof(float))
    return reader.fail("the data of tensor '" + tensor.name + "' (" +
                       Twine(count) + " x f32 at file offset " + Twine(begin) +
                       ") lies past the end of the file (" +
                       Twine(bytes.size()) + " bytes)");
  std::vector<double> values(count);
  for (uint64_t i = 0; i < count; ++i)
    values[i] = support::endian::read<float, llvm::endianness::little>(
        bytes.data() + begin + i * sizeof(float));
  return values;
}

/// Phi-3's longrope (the 128k models), as llama.cpp's converter
/// (Phi3MiniModel) writes it: no rope.scaling.type, the short and long
/// factors as the tensors rope_factors_short / rope_factors_long.weight (f32,
/// rope.dimension_count / 2 each), rope.scaling.original_context_length, and
/// rope.scaling.attn_factor sqrt(1 + ln(s) / ln(original)) with s =
/// context_length / original (transformers' default; the converter writes it
/// even where the config has its own attention_factor). Without the key llmc
/// takes that default too (llama.cpp would multiply by 1). The factor set is
/// chosen per call from the sequence length, as transformers does (llama.cpp
/// chooses once, from the context size it is given: see README).
static Error readLongropeFactors(const MetadataReader &reader,
                                 ModelConfig &config) {
  static constexpr StringLiteral kShort = "rope_factors_short.weight",
                                 kLong = "rope_factors_long.weight";
  const GGUFTensorInfo *shortTensor = nullptr, *longTensor = nullptr;
  for (const GGUFTensorInfo &tensor : reader.header.tensors) {
    if (tensor.name == kShort)
      shortTensor = &tensor;
    if (tensor.name == kLong)
      longTensor = &tensor;
  }
  if (!shortTensor && !longTensor)
    return Error::success();
  if (!shortTensor || !longTensor)
    return reader.fail("tensor '" + Twine(shortTensor ? kShort : kLong) +
                       "' (longrope frequency factors) without '" +
                       (shortTensor ? kLong : kShort) + "'");
  std::string prefix = getGGUFArchitecture(config.architecture).str() + ".";
  RopeScaling &scaling = config.ropeScaling;
  if (scaling.kind != RopeScalingKind::None)
    return reader.fail("longrope factor tensors with metadata key '" + prefix +
                       "rope.scaling.type' '" + toString(scaling.kind) +
                       "' are not supported");
  auto shortFactor = readF32Vector(reader, *shortTensor);
  if (!shortFactor)
    return shortFactor.takeError();
  auto longFactor = readF32Vector(reader, *longTensor);
  if (!longFactor)
    return longFactor.takeError();
  scaling.kind = RopeScalingKind::Longrope;
  scaling.shortFactor = std::move(*shortFactor);
  scaling.longFactor = std::move(*longFactor);
  // llama.cpp's n_ctx_orig_yarn: the training context when absent.
  scaling.originalMaxPositionEmbeddings = config.maxPositionEmbeddings;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "rope.scaling.original_context_length"),
          scaling.originalMaxPositionEmbeddings))
    return err;
  // transformers' factor when the config has none; it only enters the
  // default attention factor.
  if (scaling.originalMaxPositionEmbeddings > 0)
    scaling.factor = double(config.maxPositionEmbeddings) /
                     double(scaling.originalMaxPositionEmbeddings);
  auto attention = reader.getFloat(prefix + "rope.scaling.attn_factor");
  if (!attention)
    return attention.takeError();
  scaling.attentionFactor = *attention;
  return Error::success();
}

Expected<ModelConfig> modelConfigFromGGUF(const GGUFHeader &header,
                                          StringRef path) {
  MetadataReader reader(header, path);
  ModelConfig config;
  config.name = sys::path::stem(path).str();

  auto arch = reader.getString("general.architecture");
  if (!arch)
    return arch.takeError();
  if (!*arch)
    return reader.fail("missing required metadata key 'general.architecture'");
  // llama.cpp writes Mistral models as "llama"; the others keep their
  // model_type (gpt_neox as "gptneox", gemma3_text as "gemma3") and the
  // same key layout under "<arch>.".
  static const StringRef kGGUFArchitectures[] = {
      "deepseek2", "gemma", "gemma2", "gemma3", "gptneox",
      "llama",     "olmo2", "phi3",   "qwen2",  "qwen3"};
  if (!llvm::is_contained(kGGUFArchitectures, **arch))
    return reader.fail("unsupported general.architecture '" + **arch +
                       "' (expected deepseek2, gemma, gemma2, gemma3, "
                       "gptneox, llama, olmo2, phi3, qwen2 or qwen3)");
  config.syntax = ConfigSyntax::GGUF;
  config.architecture = getModelTypeOfGGUFArchitecture(**arch).str();
  config.block = findArchitecture(config.architecture)->block;
  // llama.cpp's converter bakes Gemma's + 1 into the norm weights.
  config.block.normWeightOffset = 0.0;
  // llama.cpp permutes llama Q/K rows for adjacent-pair RoPE (LLAMA_ROPE_TYPE
  // NORM); deepseek2 rotates adjacent pairs of unpermuted rows, as DeepSeek's
  // checkpoints do; the others are converted unpermuted and rotated by halves
  // (NEOX).
  config.ropeStyle = **arch == "llama" || **arch == "deepseek2"
                         ? RopeStyle::Interleaved
                         : RopeStyle::Half;
  std::string prefix = **arch + ".";

  struct RequiredInt {
    StringRef suffix;
    int64_t *out;
  };
  for (RequiredInt field :
       {RequiredInt{"block_count", &config.numLayers},
        {"embedding_length", &config.hiddenSize},
        {"feed_forward_length", &config.intermediateSize},
        {"attention.head_count", &config.numHeads},
        {"context_length", &config.maxPositionEmbeddings}}) {
    auto value = reader.requireInt(prefix + field.suffix.str());
    if (!value)
      return value.takeError();
    *field.out = *value;
  }
  auto eps = reader.requireFloat(
      prefix + (config.block.norm == NormKind::LayerNorm
                    ? "attention.layer_norm_epsilon"
                    : "attention.layer_norm_rms_epsilon"));
  if (!eps)
    return eps.takeError();
  config.rmsNormEps = *eps;

  config.numKVHeads = config.numHeads;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "attention.head_count_kv"), config.numKVHeads))
    return err;

  std::string keyLengthKey = prefix + "attention.key_length";
  auto keyLength = reader.getInt(keyLengthKey);
  if (!keyLength)
    return keyLength.takeError();
  if (*keyLength) {
    config.headDim = **keyLength;
  } else if (config.numHeads > 0 && config.hiddenSize > 0) {
    if (config.hiddenSize % config.numHeads != 0)
      return reader.fail("metadata key '" + prefix + "embedding_length' (" +
                         Twine(config.hiddenSize) +
                         ") is not divisible by '" + prefix +
                         "attention.head_count' (" + Twine(config.numHeads) +
                         ") and '" + keyLengthKey + "' is not given");
    config.headDim = config.hiddenSize / config.numHeads;
  }
  std::string valueLengthKey = prefix + "attention.value_length";
  auto valueLength = reader.getInt(valueLengthKey);
  if (!valueLength)
    return valueLength.takeError();
  // deepseek2's value head (the latent) is narrower than its key head:
  // readLatentAttention checks both.
  if (**arch != "deepseek2" && *valueLength && **valueLength != config.headDim)
    return reader.fail("metadata key '" + valueLengthKey + "' (" +
                       Twine(**valueLength) + ") differs from the key head "
                       "size (" + Twine(config.headDim) +
                       "), which is not supported");

  config.ropeTheta = kDefaultFreqBase;
  if (Error err = MetadataReader::assign(
          reader.getFloat(prefix + "rope.freq_base"), config.ropeTheta))
    return err;
  config.rotaryDim = config.headDim;
  if (Error err = MetadataReader::assign(
          reader.getInt(prefix + "rope.dimension_count"), config.rotaryDim))
    return err;
  if (Error err = readRopeScaling(reader, **arch, config))
    return err;
  if (**arch == "deepseek2")
    if (Error err = readLatentAttention(reader, prefix, config))
      return err;

  auto window = reader.getInt(prefix + "attention.sliding_window");
  if (!window)
    return window.takeError();
  config.slidingWindow = *window;
  // llama.cpp's converter writes phi3's window as 0 when the config has
  // none (Phi-4).
  if (**arch == "phi3" && window->value_or(-1) == 0)
    config.slidingWindow = std::nullopt;
  for (const SandwichGemmaRules &rules : kSandwichGemmaRules)
    if (**arch == rules.architecture)
      if (Error err = readSandwichGemma(reader, rules, config))
        return err;

  auto vocab = reader.getInt(prefix + "vocab_size");
  if (!vocab)
    return vocab.takeError();
  if (*vocab) {
    config.vocabSize = **vocab;
  } else if (const GGUFValue *tokens = reader.lookup("tokenizer.ggml.tokens");
             tokens && tokens->type == GGUFValueType::Array) {
    config.vocabSize = static_cast<int64_t>(tokens->arrayLength);
  } else {
    return reader.fail("neither metadata key '" + prefix +
                       "vocab_size' nor the array 'tokenizer.ggml.tokens' "
                       "gives the vocabulary size");
  }

  config.bosTokenId = kDefaultBosTokenId;
  config.eosTokenId = kDefaultEosTokenId;
  if (Error err = MetadataReader::assign(
          reader.getInt("tokenizer.ggml.bos_token_id"), config.bosTokenId))
    return err;
  if (Error err = MetadataReader::assign(
          reader.getInt("tokenizer.ggml.eos_token_id"), config.eosTokenId))
    return err;

  // The tensor names decide what metadata does not say.
  StringSet<> names;
  for (const GGUFTensorInfo &tensor : header.tensors)
    names.insert(tensor.name);
  auto embedding = llvm::find_if(header.tensors, [](const auto &t) {
    return t.name == "token_embd.weight";
  });
  if (embedding == header.tensors.end())
    return reader.fail("no 'token_embd.weight' tensor");
  // A quantized file computes in f32 unless --weight-type says otherwise:
  // the exact dequantized values, the numerics reference.
  config.dtype = floatTypeOf(embedding->type).value_or(DType::F32);
  // Llama 3.1 GGUFs bake llama3 rope scaling into a tensor of frequency
  // factors; honouring it would need the tensor data.
  if (names.contains("rope_freqs.weight"))
    return reader.fail("tensor 'rope_freqs.weight' (precomputed RoPE "
                       "frequency factors) is not supported");
  if (Error err = readLongropeFactors(reader, config))
    return err;
  // Phi-3's converter keeps the checkpoint's fused q/k/v and gate/up
  // tensors (blk.N.attn_qkv, blk.N.ffn_up of 2 x feed_forward_length rows);
  // the runtime names them as Hugging Face does.
  if (**arch == "phi3") {
    config.block.qkvLayout = names.contains("blk.0.attn_qkv.weight")
                                 ? QKVLayout::Concatenated
                                 : QKVLayout::Separate;
    config.block.fusedGateUp = !names.contains("blk.0.ffn_gate.weight");
  }
  // GPT-NeoX's converter reorders the per-head query_key_value into
  // [q; k; v] (attn_qkv); its parallel residual is a key.
  if (**arch == "gptneox") {
    config.block.qkvLayout = QKVLayout::Concatenated;
    auto parallel = reader.getBool(prefix + "use_parallel_residual");
    if (!parallel)
      return parallel.takeError();
    config.block.residual = parallel->value_or(true)
                                ? ResidualTopology::Parallel
                                : ResidualTopology::Sequential;
  }
  config.tieWordEmbeddings = !names.contains("output.weight");
  config.qkvBias = names.contains("blk.0.attn_q.bias") ||
                   names.contains("blk.0.attn_qkv.bias");
  config.outputBias = names.contains("blk.0.attn_output.bias");
  config.mlpBias = names.contains("blk.0.ffn_up.bias");
  // SwiGLU; GeGLU with the tanh GELU for the gemmas; GPT-NeoX's plain MLP with
  // transformers' default hidden_act "gelu" (exact erf: GGUF does not record
  // the activation, and ggml runs its tanh form).
  config.hiddenAct = StringRef(**arch).starts_with("gemma")
                         ? Activation::GELUTanh
                     : **arch == "gptneox" ? Activation::GELU
                                           : Activation::SiLU;

  if (Error err = validateModelConfig(config, ConfigSyntax::GGUF))
    return reader.fail(toString(std::move(err)));
  return config;
}

Expected<ModelConfig> parseGGUFMetadata(StringRef path) {
  Expected<GGUFHeader> header = readGGUFHeader(path);
  if (!header)
    return header.takeError();
  return modelConfigFromGGUF(*header, path);
}

} // namespace llmc
