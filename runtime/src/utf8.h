// UTF-8 helpers for the tokenizers: validation with the offending offset, sequence lengths, incomplete tails.
#ifndef LLMC_RUNTIME_UTF8_H
#define LLMC_RUNTIME_UTF8_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::rt {

/// The last Unicode code point (RFC 3629 stops UTF-8 there).
constexpr uint32_t kMaxCodePoint = 0x10FFFF;
/// UTF-16 surrogates: code points with no UTF-8 encoding of their own.
constexpr uint32_t kFirstSurrogate = 0xD800;
constexpr uint32_t kLastSurrogate = 0xDFFF;

/// Offset of the first byte that does not start a valid UTF-8 sequence
/// (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF), or
/// std::string_view::npos when all of `s` is valid.
size_t utf8_first_invalid(std::string_view s);

/// Throws LLMC_ERR_INVALID_ARGUMENT naming `what` and the byte offset when
/// `s` is not valid UTF-8: the regex engine and every oracle we match work
/// on code points, so a broken byte has no defined tokenization.
void require_utf8(std::string_view s, const char *what);

/// Length of the valid sequence starting at s[i], or 0 when none starts there.
size_t utf8_sequence_length(std::string_view s, size_t i);

/// Number of bytes at the end of `s` that are a valid but unfinished
/// sequence (a lead byte plus fewer continuation bytes than it announces):
/// what a streaming printer must hold back. 0 when `s` ends on a boundary
/// or when the tail can never become valid (it is printed as is).
size_t utf8_incomplete_tail(std::string_view s);

/// Appends the UTF-8 encoding of code point `cp` (< 0x110000, not a surrogate).
void utf8_append(std::string &out, uint32_t cp);

/// The code point of the sequence at s[i] (i < s.size()), advancing `i` past
/// it. A byte that starts no valid sequence decodes as itself (so 0xFF is
/// U+00FF) and advances one: callers that index text by code point (the chat
/// templates' Python str semantics) stay total on bytes they did not check.
uint32_t utf8_next(std::string_view s, size_t &i);

/// Every code point of `s`, by utf8_next's rule.
std::vector<uint32_t> utf8_code_points(std::string_view s);

/// The UTF-8 encoding of `cps` (each as utf8_append takes it).
std::string utf8_encode(const std::vector<uint32_t> &cps);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_UTF8_H
