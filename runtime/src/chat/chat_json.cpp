// Converts parsed JSON into template values and serializes values the way Python's json.dumps does.
#include "chat_json.h"

#include "chat_text.h"
#include "error.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace llmc::rt::chat {

Value value_from_json(const JsonValue &json, const std::string &context) {
  switch (json.kind) {
  case JsonValue::Kind::Null:
    return Value::none();
  case JsonValue::Kind::Bool:
    return Value::boolean(json.boolean);
  case JsonValue::Kind::Number: {
    bool integral = json.text.find_first_of(".eE") == std::string::npos;
    if (integral) {
      errno = 0;
      long long v = std::strtoll(json.text.c_str(), nullptr, 10);
      if (errno == ERANGE)
        fail(LLMC_ERR_FORMAT, context, ": integer ", json.text,
             " is outside the 64-bit range chat templates support");
      return Value::integer(v);
    }
    return Value::real(std::strtod(json.text.c_str(), nullptr));
  }
  case JsonValue::Kind::String:
    return Value::string(json.text);
  case JsonValue::Kind::Array: {
    std::vector<Value> items;
    items.reserve(json.items.size());
    for (const auto &item : json.items)
      items.push_back(value_from_json(item, context));
    return Value::make_list(std::move(items));
  }
  case JsonValue::Kind::Object: {
    Dict d;
    for (const auto &m : json.members)
      d.set(m.first, value_from_json(m.second, context)); // a repeated key: the last wins, as in Python
    return Value::make_dict(std::move(d));
  }
  }
  return Value::none();
}

namespace {

void dump_string(const std::string &s, bool ensure_ascii, BoundedText &out) {
  out += '"';
  for (uint32_t cp : utf8_code_points(s)) {
    char buf[16];
    switch (cp) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default:
      if (cp < 0x20 || (ensure_ascii && cp > 0x7f)) {
        if (cp >= 0x10000) {
          uint32_t v = cp - 0x10000;
          std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
        } else {
          std::snprintf(buf, sizeof buf, "\\u%04x", cp);
        }
        out += buf;
      } else {
        out.append_code_point(cp);
      }
    }
  }
  out += '"';
}

bool dump(const Value &v, const JsonDumpOptions &o, int depth, BoundedText &out, std::string &bad) {
  auto newline = [&](int d) {
    out += '\n';
    for (int k = 0; k < d; ++k)
      out += o.indent;
  };
  switch (v.kind) {
  case Value::Kind::None: out += "null"; return true;
  case Value::Kind::Bool: out += v.b ? "true" : "false"; return true;
  case Value::Kind::Int: out += std::to_string(v.i); return true;
  case Value::Kind::Float: {
    std::string r = py_repr_float(v.f);
    out += r == "nan" ? "NaN" : r == "inf" ? "Infinity" : r == "-inf" ? "-Infinity" : r;
    return true;
  }
  case Value::Kind::String: dump_string(v.s, o.ensure_ascii, out); return true;
  case Value::Kind::List: {
    if (!v.seq_type.empty()) {
      bad = v.seq_type;
      return false;
    }
    if (v.list->empty()) {
      out += "[]";
      return true;
    }
    out += '[';
    for (size_t k = 0; k < v.list->size(); ++k) {
      if (k)
        out += o.item_separator;
      if (o.has_indent)
        newline(depth + 1);
      if (!dump((*v.list)[k], o, depth + 1, out, bad))
        return false;
    }
    if (o.has_indent)
      newline(depth);
    out += ']';
    return true;
  }
  case Value::Kind::Dict: {
    if (v.dict->items.empty()) {
      out += "{}";
      return true;
    }
    std::vector<const std::pair<std::string, Value> *> items;
    for (const auto &kv : v.dict->items)
      items.push_back(&kv);
    if (o.sort_keys)
      std::stable_sort(items.begin(), items.end(),
                       [](const auto *a, const auto *b) { return a->first < b->first; });
    out += '{';
    bool first = true;
    for (const auto *kv : items) {
      if (!first)
        out += o.item_separator;
      first = false;
      if (o.has_indent)
        newline(depth + 1);
      dump_string(kv->first, o.ensure_ascii, out);
      out += o.key_separator;
      if (!dump(kv->second, o, depth + 1, out, bad))
        return false;
    }
    if (o.has_indent)
      newline(depth);
    out += '}';
    return true;
  }
  default:
    bad = type_name(v);
    return false;
  }
}

} // namespace

bool dump_json(const Value &v, const JsonDumpOptions &opts, BoundedText &out, std::string &bad_type) {
  return dump(v, opts, 0, out, bad_type);
}

} // namespace llmc::rt::chat
