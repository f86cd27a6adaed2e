// Recursive-descent JSON parser (RFC 8259) with depth limit and exact integer access.
#include "json_lite.h"

#include "error.h"
#include "hex_digit.h"
#include "utf8.h"

namespace llmc::rt {

namespace {

/// Real headers nest three levels; the cap only stops a hostile input from
/// recursing the parser off the stack.
constexpr int kMaxDepth = 64;

class JsonParser {
public:
  JsonParser(std::string_view text, const std::string &context)
      : s_(text), context_(context) {}

  JsonValue parse_document() {
    skip_ws();
    JsonValue v = parse_value(0);
    skip_ws();
    if (pos_ != s_.size())
      error("unexpected trailing characters");
    return v;
  }

private:
  [[noreturn]] void error(const std::string &what) const {
    fail(LLMC_ERR_FORMAT, context_, ": invalid JSON at byte ", pos_, ": ", what);
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' ||
                         s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  void expect(char c) {
    if (at_end())
      error(cat("expected '", c, "' but the text ended"));
    if (s_[pos_] != c)
      error(cat("expected '", c, "'"));
    ++pos_;
  }

  void expect_word(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word)
      error("invalid literal");
    pos_ += word.size();
  }

  JsonValue parse_value(int depth) {
    if (depth > kMaxDepth)
      error("nesting too deep");
    if (at_end())
      error("unexpected end of text");
    JsonValue v;
    switch (s_[pos_]) {
    case '{':
      parse_object(v, depth);
      break;
    case '[':
      parse_array(v, depth);
      break;
    case '"':
      v.kind = JsonValue::Kind::String;
      v.text = parse_string();
      break;
    case 't':
      expect_word("true");
      v.kind = JsonValue::Kind::Bool;
      v.boolean = true;
      break;
    case 'f':
      expect_word("false");
      v.kind = JsonValue::Kind::Bool;
      break;
    case 'n':
      expect_word("null");
      break;
    default:
      parse_number(v);
    }
    return v;
  }

  void parse_object(JsonValue &v, int depth) {
    v.kind = JsonValue::Kind::Object;
    expect('{');
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return;
    }
    while (true) {
      skip_ws();
      if (peek() != '"')
        error("expected a string key");
      std::string key = parse_string();
      skip_ws();
      expect(':');
      skip_ws();
      v.members.emplace_back(std::move(key), parse_value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      return;
    }
  }

  void parse_array(JsonValue &v, int depth) {
    v.kind = JsonValue::Kind::Array;
    expect('[');
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return;
    }
    while (true) {
      skip_ws();
      v.items.push_back(parse_value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      return;
    }
  }

  void parse_number(JsonValue &v) {
    size_t start = pos_;
    auto digits = [&] {
      size_t n = 0;
      while (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9')
        ++pos_, ++n;
      return n;
    };
    if (peek() == '-')
      ++pos_;
    if (peek() == '0')
      ++pos_;
    else if (digits() == 0)
      error("unexpected character");
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0)
        error("digit expected after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-')
        ++pos_;
      if (digits() == 0)
        error("digit expected in exponent");
    }
    v.kind = JsonValue::Kind::Number;
    v.text = std::string(s_.substr(start, pos_ - start));
  }

  unsigned hex4() {
    if (s_.size() - pos_ < 4)
      error("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      int digit = hex_digit_value(s_[pos_++]);
      if (digit < 0)
        error("bad hex digit in \\u escape");
      v = (v << 4) | static_cast<unsigned>(digit);
    }
    return v;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    while (true) {
      if (at_end())
        error("unterminated string");
      char c = s_[pos_++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        error("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end())
        error("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = hex4();
        if (cp >= 0xd800 && cp <= 0xdbff) {
          if (s_.substr(pos_, 2) != "\\u")
            error("unpaired surrogate in \\u escape");
          pos_ += 2;
          uint32_t lo = hex4();
          if (lo < 0xdc00 || lo > 0xdfff)
            error("invalid low surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
          error("unpaired surrogate in \\u escape");
        }
        utf8_append(out, cp);
        break;
      }
      default:
        error("invalid escape");
      }
    }
  }

  std::string_view s_;
  const std::string &context_;
  size_t pos_ = 0;
};

} // namespace

const JsonValue *JsonValue::get(std::string_view key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const auto &m : members)
    if (m.first == key)
      return &m.second;
  return nullptr;
}

bool JsonValue::as_uint64(uint64_t *out) const {
  if (kind != Kind::Number || text.empty())
    return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    if (__builtin_mul_overflow(v, 10u, &v) ||
        __builtin_add_overflow(v, static_cast<uint64_t>(c - '0'), &v))
      return false;
  }
  *out = v;
  return true;
}

const char *json_kind_name(JsonValue::Kind kind) {
  switch (kind) {
  case JsonValue::Kind::Null:
    return "null";
  case JsonValue::Kind::Bool:
    return "bool";
  case JsonValue::Kind::Number:
    return "number";
  case JsonValue::Kind::String:
    return "string";
  case JsonValue::Kind::Array:
    return "array";
  case JsonValue::Kind::Object:
    return "object";
  }
  return "?";
}

JsonValue parse_json(std::string_view text, const std::string &context) {
  return JsonParser(text, context).parse_document();
}

} // namespace llmc::rt
