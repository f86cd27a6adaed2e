// Line/column of a template offset, and jinja2's newline normalization of template sources.
#include "chat_source.h"

namespace llmc::rt::chat {

std::string source_location(std::string_view source, size_t offset) {
  if (offset > source.size())
    offset = source.size();
  size_t line = 1, column = 1;
  for (size_t k = 0; k < offset; ++k) {
    unsigned char c = static_cast<unsigned char>(source[k]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xc0) != 0x80) { // count code points, not continuation bytes
      ++column;
    }
  }
  return cat("line ", line, ", column ", column);
}

std::string normalize_template_source(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t k = 0; k < raw.size(); ++k) {
    if (raw[k] == '\r') {
      out += '\n';
      if (k + 1 < raw.size() && raw[k + 1] == '\n')
        ++k;
    } else {
      out += raw[k];
    }
  }
  if (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

} // namespace llmc::rt::chat
