// Splits a chat template into text and tag tokens with jinja2's whitespace rules (trim_blocks, lstrip_blocks, -/+).
#ifndef LLMC_RUNTIME_CHAT_LEXER_H
#define LLMC_RUNTIME_CHAT_LEXER_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::rt::chat {

struct Token {
  enum class Kind { Data, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Integer, Float, Op, End };
  Kind kind;
  std::string text; // Data: the text; Name; String: decoded; Op: the operator
  int64_t integer = 0;
  double real = 0;
  size_t offset = 0; // into the normalized source
};

/// Tokenizes `source` (already normalized, see normalize_template_source)
/// with Hugging Face's settings: trim_blocks and lstrip_blocks on. Whitespace
/// control is resolved here, so Data tokens hold exactly the text to print.
/// Comments are dropped. Throws a FORMAT error with line and column for an
/// unterminated tag, comment or string, unbalanced brackets or a character
/// that cannot start a token.
std::vector<Token> tokenize_template(std::string_view source);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_LEXER_H
