// Python str semantics over UTF-8 bytes: code points, whitespace, strip/split/case, used by the chat template engine.
#ifndef LLMC_RUNTIME_CHAT_TEXT_H
#define LLMC_RUNTIME_CHAT_TEXT_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::rt::chat {

/// Templates index, slice and measure strings by code point (Python str),
/// while the engine stores UTF-8: these helpers bridge the two. Invalid
/// UTF-8 bytes count as one code point each (U+FFFD-like), never a crash.
std::vector<uint32_t> decode_utf8(std::string_view s);
void append_utf8(std::string &out, uint32_t cp);
std::string encode_utf8(const std::vector<uint32_t> &cps);
size_t codepoint_count(std::string_view s);

/// str.isspace(): what Python's strip()/split() and the regex \s remove.
bool is_py_space(uint32_t cp);

/// str.strip/lstrip/rstrip; `chars` empty-and-not-given means whitespace.
std::string py_strip(std::string_view s, bool left, bool right,
                     const std::string *chars);
/// str.split(sep=None, maxsplit): whitespace runs when `sep` is null.
std::vector<std::string> py_split(std::string_view s, const std::string *sep,
                                  int64_t maxsplit);
/// str.replace(old, new, count); count < 0 means all.
std::string py_replace(std::string_view s, std::string_view old_s,
                       std::string_view new_s, int64_t count);
/// str.upper()/lower() for ASCII, Latin-1, Latin Extended-A, Greek and
/// Cyrillic (the scripts of role names and prompts in practice); other code
/// points are left unchanged.
std::string py_upper(std::string_view s);
std::string py_lower(std::string_view s);
uint32_t upper_cp(uint32_t cp);
uint32_t lower_cp(uint32_t cp);
/// str.capitalize(): first code point upper, the rest lower.
std::string py_capitalize(std::string_view s);
/// str.title(): a cased letter after a cased letter is lowered, any other
/// raised ("o'neil" -> "O'Neil"; jinja2's title filter differs).
std::string py_title(std::string_view s);
/// str.islower() (want_lower) / str.isupper(): some cased letter, all of
/// them in that case.
bool py_is_case(std::string_view s, bool want_lower);
/// Python repr() of a str: single quotes unless the text has ' and no ".
std::string py_repr_string(std::string_view s);
/// Python repr() of a float (shortest round-trip digits, '1.0', '1e+20').
std::string py_repr_float(double v);

} // namespace llmc::rt::chat

#endif // LLMC_RUNTIME_CHAT_TEXT_H
