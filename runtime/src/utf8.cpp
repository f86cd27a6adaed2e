// UTF-8 validation, sequence lengths and the incomplete-tail rule used by streaming decode.
#include "utf8.h"

#include "error.h"

namespace llmc::rt {

namespace {

/// Longest UTF-8 sequence (RFC 3629 caps code points at U+10FFFF).
constexpr size_t kMaxSequence = 4;

/// Expected length from a lead byte; 0 for continuation bytes and for the
/// bytes RFC 3629 never allows (C0, C1, F5..FF).
size_t lead_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) return 2;
  if (c < 0xF0) return 3;
  if (c < 0xF5) return 4;
  return 0;
}

/// Allowed range of the second byte, which is where overlongs, surrogates
/// and values above U+10FFFF are excluded (RFC 3629 table, section 4).
bool second_byte_ok(unsigned char lead, unsigned char b) {
  if (lead == 0xE0) return b >= 0xA0 && b <= 0xBF;
  if (lead == 0xED) return b >= 0x80 && b <= 0x9F;
  if (lead == 0xF0) return b >= 0x90 && b <= 0xBF;
  if (lead == 0xF4) return b >= 0x80 && b <= 0x8F;
  return (b & 0xC0) == 0x80;
}

} // namespace

size_t utf8_sequence_length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = lead_length(c);
  if (n <= 1)
    return n;
  if (i + n > s.size())
    return 0;
  if (!second_byte_ok(c, static_cast<unsigned char>(s[i + 1])))
    return 0;
  for (size_t k = 2; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
      return 0;
  return n;
}

size_t utf8_first_invalid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0)
      return i;
    i += n;
  }
  return std::string_view::npos;
}

void require_utf8(std::string_view s, const char *what) {
  size_t bad = utf8_first_invalid(s);
  if (bad != std::string_view::npos)
    fail(LLMC_ERR_INVALID_ARGUMENT, what, ": invalid UTF-8 at byte offset ", bad,
         " (byte 0x", std::hex, int(static_cast<unsigned char>(s[bad])), ")");
}

size_t utf8_incomplete_tail(std::string_view s) {
  // Walk back over at most kMaxSequence - 1 continuation bytes to a lead.
  size_t back = 0;
  while (back < s.size() && back < kMaxSequence) {
    unsigned char c = static_cast<unsigned char>(s[s.size() - 1 - back]);
    if ((c & 0xC0) != 0x80) {
      size_t need = lead_length(c);
      size_t have = back + 1;
      if (need <= have) // complete, ASCII, or a byte that is never valid
        return 0;
      if (have >= 2 && !second_byte_ok(c, static_cast<unsigned char>(s[s.size() - back])))
        return 0;
      return have;
    }
    ++back;
  }
  return 0;
}

void utf8_append(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

uint32_t utf8_next(std::string_view s, size_t &i) {
  /// Payload bits of a lead byte, by sequence length (index 1..4).
  static constexpr unsigned char kLeadBits[kMaxSequence + 1] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  size_t n = utf8_sequence_length(s, i);
  unsigned char lead = static_cast<unsigned char>(s[i]);
  if (n == 0) {
    ++i;
    return lead;
  }
  uint32_t cp = lead & kLeadBits[n];
  for (size_t k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += n;
  return cp;
}

std::vector<uint32_t> utf8_code_points(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();)
    out.push_back(utf8_next(s, i));
  return out;
}

std::string utf8_encode(const std::vector<uint32_t> &cps) {
  std::string out;
  out.reserve(cps.size());
  for (uint32_t cp : cps)
    utf8_append(out, cp);
  return out;
}

} // namespace llmc::rt
