// The one bound on what a chat template builds: every string whose size a template controls, the prompt included, stays within 16 MB.
#ifndef LLMC_RUNTIME_CHAT_BOUNDED_TEXT_H
#define LLMC_RUNTIME_CHAT_BOUNDED_TEXT_H

#include "chat_value.h"
#include "utf8.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace llmc::rt::chat {

/// 16 MB: four times the text of a million-token prompt, far above what a
/// real template renders. Without it `{% set s = s ~ s %}` forty times in a
/// loop asks for 2^40 bytes. Repetition (`'x' * n`, `[1] * n`) uses the same
/// bound, a list counted by its elements' size.
constexpr size_t kMaxTemplateTextBytes = size_t(1) << 24;

/// The single check: a string of `bytes` that a template is about to build
/// fails as "string too large" (LLMC_ERR_UNSUPPORTED; the renderer adds the
/// line and column) when it would pass kMaxTemplateTextBytes.
inline void require_text_bytes(size_t bytes) {
  if (bytes > kMaxTemplateTextBytes)
    render_fail(LLMC_ERR_UNSUPPORTED, "string too large (chat templates build strings of at most 16 MB)");
}

/// A string the engine builds piece by piece whose size the template
/// controls: the rendered output and captured blocks, `~` and `+`, join,
/// replace, indent, str() of a list or dict, tojson. Every append checks the
/// size it would reach before it allocates, so building stops at the bound
/// however many pieces a loop adds. Operations that grow their input by a
/// fixed factor at most (upper, escaping) build plain strings: whatever
/// combines their results comes through here.
class BoundedText {
public:
  BoundedText &operator+=(std::string_view piece) {
    require_text_bytes(text_.size() + piece.size());
    text_ += piece;
    return *this;
  }
  BoundedText &operator+=(char c) { return *this += std::string_view(&c, 1); }
  /// `n` copies of `c` (an indent of `n` spaces).
  BoundedText &append(size_t n, char c) {
    require_text_bytes(n > kMaxTemplateTextBytes ? n : text_.size() + n);
    text_.append(n, c);
    return *this;
  }
  /// One code point as UTF-8.
  BoundedText &append_code_point(uint32_t cp) {
    std::string encoded;
    utf8_append(encoded, cp);
    return *this += encoded;
  }
  size_t size() const { return text_.size(); }
  const std::string &str() const { return text_; }
  std::string take() { return std::move(text_); }

private:
  std::string text_;
};

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_BOUNDED_TEXT_H
