// A small, strict JSON reader for safetensors headers and sharded-checkpoint indexes.
#ifndef LLMC_RUNTIME_JSON_LITE_H
#define LLMC_RUNTIME_JSON_LITE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmc::rt {

/// A parsed JSON value. Numbers keep their source text so that integers
/// (tensor offsets) are converted exactly, without a detour through double.
/// Objects keep member order (safetensors lists tensors in file order).
struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text; // String: decoded UTF-8; Number: source text
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;

  /// nullptr when this is not an object or has no such key.
  const JsonValue *get(std::string_view key) const;
  /// Exact non-negative integer; false for fractions, exponents, signs or
  /// values above UINT64_MAX.
  bool as_uint64(uint64_t *out) const;
};

const char *json_kind_name(JsonValue::Kind kind);

/// Parses a complete document. Throws Error(LLMC_ERR_FORMAT) naming
/// `context` and the byte offset of the first problem. Rejects trailing
/// garbage, nesting deeper than a fixed limit, invalid escapes and control
/// characters in strings; never reads outside `text`.
JsonValue parse_json(std::string_view text, const std::string &context);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_JSON_LITE_H
