// Template source positions: byte offsets into the normalized source, reported as line and column in errors.
#ifndef LLMC_RUNTIME_CHAT_SOURCE_H
#define LLMC_RUNTIME_CHAT_SOURCE_H

#include "error.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace llmc::rt::chat {

/// Every error a template causes names where: "chat template line 3,
/// column 12: ...". Columns count code points from 1.
std::string source_location(std::string_view source, size_t offset);

template <typename... Args>
[[noreturn]] void template_fail(llmc_status status, std::string_view source, size_t offset,
                                Args &&...args) {
  fail(status, "chat template ", source_location(source, offset), ": ",
       std::forward<Args>(args)...);
}

/// jinja2's source preparation: every \r\n, \r or \n becomes \n and one
/// trailing newline is dropped (keep_trailing_newline=False).
std::string normalize_template_source(std::string_view raw);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_SOURCE_H
