// JSON <-> chat template values: messages/tools input, and the tojson filter (Python json.dumps semantics).
#ifndef LLMC_RUNTIME_CHAT_JSON_H
#define LLMC_RUNTIME_CHAT_JSON_H

#include "chat_bounded_text.h"
#include "chat_value.h"
#include "json_lite.h"

#include <string>

namespace llmc::rt::chat {

/// Numbers become int when written without fraction or exponent (as Python's
/// json module does), else float. Throws Error(LLMC_ERR_FORMAT) naming
/// `context` for an integer outside int64.
Value value_from_json(const JsonValue &json, const std::string &context);

/// Options of json.dumps as Hugging Face's tojson passes them.
struct JsonDumpOptions {
  bool has_indent = false;
  std::string indent;      // one level of indentation
  bool ensure_ascii = false; // HF's default: keep non-ASCII as is
  bool sort_keys = false;
  std::string item_separator = ", "; // ",", with an indent
  std::string key_separator = ": ";
};

/// json.dumps(value). Returns false with the offending value's type name in
/// `bad_type` for values JSON cannot hold (Undefined, functions, ...).
bool dump_json(const Value &v, const JsonDumpOptions &opts, BoundedText &out,
               std::string &bad_type);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_JSON_H
