// Python str semantics over UTF-8 bytes: code points, whitespace, strip/split, repr, used by the chat template engine.
#ifndef LLMC_RUNTIME_CHAT_TEXT_H
#define LLMC_RUNTIME_CHAT_TEXT_H

#include "utf8.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::rt::chat {

/// Templates index, slice and measure strings by code point (Python str),
/// while the engine stores UTF-8: utf8_code_points / utf8_append /
/// utf8_encode (utf8.h) bridge the two, an invalid byte counting as one code
/// point, never a crash. This is len() of a str.
size_t codepoint_count(std::string_view s);

/// str.isspace(): what Python's strip()/split() and the regex \s remove.
bool is_py_space(uint32_t cp);

/// str.strip/lstrip/rstrip; `chars` empty-and-not-given means whitespace.
std::string py_strip(std::string_view s, bool left, bool right,
                     const std::string *chars);
/// str.split(sep=None, maxsplit): whitespace runs when `sep` is null.
std::vector<std::string> py_split(std::string_view s, const std::string *sep,
                                  int64_t maxsplit);
/// str.replace(old, new, count); count < 0 means all. A result past 16 MB
/// fails as "string too large" (chat_bounded_text.h).
std::string py_replace(std::string_view s, std::string_view old_s,
                       std::string_view new_s, int64_t count);
/// Python repr() of a str: single quotes unless the text has ' and no ".
std::string py_repr_string(std::string_view s);
/// Python repr() of a float (shortest round-trip digits, '1.0', '1e+20').
std::string py_repr_float(double v);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_TEXT_H
