// Builds the statement/expression tree of a chat template from its tokens (jinja2's grammar, supported subset).
#ifndef LLMC_RUNTIME_CHAT_PARSER_H
#define LLMC_RUNTIME_CHAT_PARSER_H

#include "chat_ast.h"
#include "chat_lexer.h"

#include <string_view>
#include <vector>

namespace llmc::rt::chat {

/// Parses the whole template. Syntax errors are LLMC_ERR_FORMAT, tags,
/// filters and tests this engine does not implement LLMC_ERR_UNSUPPORTED;
/// both name the construct and its line and column in `source`.
Body parse_template(const std::vector<Token> &tokens, std::string_view source);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_PARSER_H
