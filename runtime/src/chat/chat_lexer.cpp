// The chat template lexer: text/tag splitting, whitespace control, and the tokens inside {{ }} and {% %}.
#include "chat_lexer.h"

#include "chat_source.h"
#include "chat_text.h"
#include "hex_digit.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace llmc::rt::chat {

namespace {

/// Length in bytes of the Python-whitespace code point at `pos`, 0 if none.
size_t space_at(std::string_view s, size_t pos) {
  if (pos >= s.size())
    return 0;
  size_t end = pos;
  uint32_t cp = utf8_next(s, end);
  return is_py_space(cp) ? end - pos : 0;
}

size_t skip_spaces(std::string_view s, size_t pos) {
  while (size_t n = space_at(s, pos))
    pos += n;
  return pos;
}

/// str.rstrip() of a text run (the `-` modifier of the tag after it).
std::string_view rstrip_spaces(std::string_view s) {
  std::vector<uint32_t> cps = utf8_code_points(s);
  size_t keep = s.size();
  for (size_t k = cps.size(); k > 0 && is_py_space(cps[k - 1]); --k) {
    std::string enc;
    utf8_append(enc, cps[k - 1]);
    keep -= enc.size();
  }
  return s.substr(0, keep);
}

bool all_spaces(std::string_view s) {
  if (s.empty())
    return false;
  for (uint32_t cp : utf8_code_points(s))
    if (!is_py_space(cp))
      return false;
  return true;
}

class Lexer {
public:
  explicit Lexer(std::string_view src) : s_(src) {}

  std::vector<Token> run() {
    bool line_starting = true;
    while (pos_ < s_.size()) {
      size_t start = find_tag_start(pos_);
      if (start == std::string_view::npos) {
        push_data(s_.substr(pos_), pos_);
        break;
      }
      char type = s_[start + 1];
      char sign = start + 2 < s_.size() && (s_[start + 2] == '-' || s_[start + 2] == '+')
                      ? s_[start + 2] : '\0';
      std::string_view text = s_.substr(pos_, start - pos_);
      if (sign == '-') {
        text = rstrip_spaces(text);
      } else if (sign != '+' && type != '{') {
        // lstrip_blocks: a block or comment alone after the line's
        // indentation takes that indentation away.
        size_t line_pos = text.rfind('\n');
        line_pos = line_pos == std::string_view::npos ? 0 : line_pos + 1;
        if ((line_pos > 0 || line_starting) && all_spaces(text.substr(line_pos)))
          text = text.substr(0, line_pos);
      }
      push_data(text, pos_);
      pos_ = start + 2 + (sign ? 1 : 0);
      if (type == '#')
        line_starting = lex_comment(start);
      else
        line_starting = lex_tag(type == '{', start);
    }
    Token end{Token::Kind::End, "", 0, 0, s_.size()};
    out_.push_back(end);
    return out_;
  }

private:
  size_t find_tag_start(size_t from) const {
    for (size_t k = from; k + 1 < s_.size(); ++k)
      if (s_[k] == '{' && (s_[k + 1] == '{' || s_[k + 1] == '%' || s_[k + 1] == '#'))
        return k;
    return std::string_view::npos;
  }

  void push_data(std::string_view text, size_t offset) {
    if (!text.empty())
      out_.push_back(Token{Token::Kind::Data, std::string(text), 0, 0, offset});
  }

  /// Consumes the end of a block or comment: `+%}`, `-%}` and the
  /// whitespace after it, or `%}` and (trim_blocks) one newline. Returns
  /// whether the consumed text ended with a newline (jinja2's line_starting).
  bool consume_block_end(size_t at) {
    // at: position of the sign or of the closer character
    bool ends_newline = false;
    if (s_[at] == '+') {
      pos_ = at + 3;
    } else if (s_[at] == '-') {
      size_t after = at + 3;
      pos_ = skip_spaces(s_, after);
      ends_newline = pos_ > after && s_[pos_ - 1] == '\n';
    } else {
      pos_ = at + 2;
      if (pos_ < s_.size() && s_[pos_] == '\n') {
        ++pos_;
        ends_newline = true;
      }
    }
    return ends_newline;
  }

  bool lex_comment(size_t start) {
    size_t k = s_.find("#}", pos_);
    if (k == std::string_view::npos)
      template_fail(LLMC_ERR_FORMAT, s_, start, "comment '{#' is never closed with '#}'");
    size_t at = k > pos_ && (s_[k - 1] == '-' || s_[k - 1] == '+') ? k - 1 : k;
    return consume_block_end(at);
  }

  /// Tokens inside {{ }} (is_var) or {% %} up to the matching end.
  bool lex_tag(bool is_var, size_t start) {
    out_.push_back(Token{is_var ? Token::Kind::VarBegin : Token::Kind::BlockBegin, "", 0, 0, start});
    std::vector<char> brackets; // closers expected, innermost last
    while (true) {
      pos_ = skip_spaces(s_, pos_);
      if (pos_ >= s_.size())
        template_fail(LLMC_ERR_FORMAT, s_, start, "tag '", is_var ? "{{" : "{%",
                      "' is never closed with '", is_var ? "}}" : "%}", "'");
      if (brackets.empty()) {
        if (is_var) {
          bool minus = s_.compare(pos_, 3, "-}}") == 0;
          if (minus || s_.compare(pos_, 2, "}}") == 0) {
            out_.push_back(Token{Token::Kind::VarEnd, "", 0, 0, pos_});
            if (minus) {
              size_t after = pos_ + 3;
              pos_ = skip_spaces(s_, after);
              return pos_ > after && s_[pos_ - 1] == '\n';
            }
            pos_ += 2;
            return false;
          }
        } else if (s_.compare(pos_, 2, "%}") == 0 || s_.compare(pos_, 3, "-%}") == 0 ||
                   s_.compare(pos_, 3, "+%}") == 0) {
          out_.push_back(Token{Token::Kind::BlockEnd, "", 0, 0, pos_});
          return consume_block_end(pos_);
        }
      }
      lex_one(brackets);
    }
  }

  void lex_one(std::vector<char> &brackets) {
    size_t at = pos_;
    char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      lex_number();
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t e = pos_;
      while (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_'))
        ++e;
      out_.push_back(Token{Token::Kind::Name, std::string(s_.substr(pos_, e - pos_)), 0, 0, at});
      pos_ = e;
      return;
    }
    if (c == '\'' || c == '"') {
      lex_string();
      return;
    }
    static const char *const kOps[] = {"//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%",
                                       "~", "[", "]", "(", ")", "{", "}", ">", "<", "=", ".",
                                       ":", "|", ",", ";"};
    for (const char *op : kOps) {
      std::string_view o(op);
      if (s_.compare(pos_, o.size(), o) != 0)
        continue;
      if (o == "(" || o == "[" || o == "{") {
        brackets.push_back(o == "(" ? ')' : o == "[" ? ']' : '}');
      } else if (o == ")" || o == "]" || o == "}") {
        if (brackets.empty())
          template_fail(LLMC_ERR_FORMAT, s_, at, "unexpected '", o, "'");
        if (brackets.back() != o[0])
          template_fail(LLMC_ERR_FORMAT, s_, at, "unexpected '", o, "', expected '",
                        brackets.back(), "'");
        brackets.pop_back();
      }
      out_.push_back(Token{Token::Kind::Op, std::string(o), 0, 0, at});
      pos_ += o.size();
      return;
    }
    std::string ch;
    std::vector<uint32_t> cp = utf8_code_points(s_.substr(pos_, 4));
    utf8_append(ch, cp.empty() ? static_cast<unsigned char>(c) : cp[0]);
    template_fail(LLMC_ERR_FORMAT, s_, at, "unexpected character '", ch, "'");
  }

  void lex_number() {
    size_t at = pos_, e = pos_;
    auto digits = [&](size_t p) {
      size_t q = p;
      while (q < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[q])) ||
                               (s_[q] == '_' && q > p && q + 1 < s_.size() &&
                                std::isdigit(static_cast<unsigned char>(s_[q + 1])))))
        ++q;
      return q;
    };
    e = digits(e);
    bool is_float = false;
    if (e + 1 < s_.size() && s_[e] == '.' && std::isdigit(static_cast<unsigned char>(s_[e + 1]))) {
      e = digits(e + 1);
      is_float = true;
    }
    if (e < s_.size() && (s_[e] == 'e' || s_[e] == 'E')) {
      size_t q = e + 1;
      if (q < s_.size() && (s_[q] == '+' || s_[q] == '-'))
        ++q;
      if (q < s_.size() && std::isdigit(static_cast<unsigned char>(s_[q]))) {
        e = digits(q);
        is_float = true;
      }
    }
    std::string text;
    for (char ch : s_.substr(pos_, e - pos_))
      if (ch != '_')
        text += ch;
    Token t{is_float ? Token::Kind::Float : Token::Kind::Integer, text, 0, 0, at};
    if (is_float) {
      t.real = std::strtod(text.c_str(), nullptr);
    } else {
      errno = 0;
      t.integer = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE)
        template_fail(LLMC_ERR_UNSUPPORTED, s_, at, "integer literal ", text,
                      " is outside the 64-bit range");
    }
    out_.push_back(t);
    pos_ = e;
  }

  /// Python's unicode-escape decoding of a string literal's body.
  void lex_string() {
    size_t at = pos_;
    char quote = s_[pos_++];
    std::string out;
    while (true) {
      if (pos_ >= s_.size())
        template_fail(LLMC_ERR_FORMAT, s_, at, "string literal is never closed");
      char c = s_[pos_++];
      if (c == quote)
        break;
      if (c != '\\' || pos_ >= s_.size()) {
        out += c;
        continue;
      }
      char e = s_[pos_++];
      auto hex = [&](int n) {
        uint32_t v = 0;
        for (int k = 0; k < n; ++k) {
          int digit = pos_ < s_.size() ? hex_digit_value(s_[pos_]) : -1;
          if (digit < 0)
            template_fail(LLMC_ERR_FORMAT, s_, at, "truncated \\", e, " escape in a string literal");
          ++pos_;
          v = v * 16 + static_cast<uint32_t>(digit);
        }
        return v;
      };
      switch (e) {
      case '\n': break; // a backslash-newline continues the line
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x': utf8_append(out, hex(2)); break;
      case 'u':
      case 'U': {
        uint32_t cp = hex(e == 'u' ? 4 : 8);
        // Python rejects \U above U+10FFFF; a lone surrogate has no UTF-8 form.
        if (cp > kMaxCodePoint || (cp >= kFirstSurrogate && cp <= kLastSurrogate))
          template_fail(LLMC_ERR_FORMAT, s_, at, "\\", e, " escape in a string literal is not a "
                        "Unicode scalar value (U+", std::hex, std::uppercase, cp, ")");
        utf8_append(out, cp);
        break;
      }
      case 'N':
        template_fail(LLMC_ERR_UNSUPPORTED, s_, pos_ - 2, "unsupported \\N{...} escape in a string literal");
      default:
        if (e >= '0' && e <= '7') {
          uint32_t v = e - '0';
          for (int k = 0; k < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++k)
            v = v * 8 + (s_[pos_++] - '0');
          utf8_append(out, v);
        } else {
          out += '\\'; // Python keeps unknown escapes as written
          out += e;
        }
      }
    }
    out_.push_back(Token{Token::Kind::String, out, 0, 0, at});
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::vector<Token> out_;
};

} // namespace

std::vector<Token> tokenize_template(std::string_view source) { return Lexer(source).run(); }

} // namespace llmc::rt::chat
