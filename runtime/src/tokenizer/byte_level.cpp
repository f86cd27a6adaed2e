// Tables for GPT-2's byte <-> code point mapping used by byte-level BPE vocabularies.
#include "byte_level.h"

#include "utf8.h"

#include <cstdint>

namespace llmc::rt {

namespace {

/// Code points of the bytes that GPT-2 shifts: the first unprintable byte
/// becomes U+0100, the next U+0101, and so on.
constexpr uint32_t kShiftBase = 0x100;
/// The largest code point the alphabet uses (256 + 68 shifted bytes - 1).
constexpr uint32_t kMaxAlphabetCp = 0x143;

bool printable(unsigned b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Tables {
  std::string spelling[256];
  int16_t byte_of_cp[kMaxAlphabetCp + 1];
  Tables() {
    for (int16_t &v : byte_of_cp)
      v = -1;
    uint32_t next = kShiftBase;
    for (unsigned b = 0; b < 256; ++b) {
      uint32_t cp = printable(b) ? b : next++;
      utf8_append(spelling[b], cp);
      byte_of_cp[cp] = static_cast<int16_t>(b);
    }
  }
};

const Tables &tables() {
  static const Tables t;
  return t;
}

} // namespace

std::string_view byte_level_char(unsigned char b) { return tables().spelling[b]; }

bool byte_level_decode(std::string_view text, std::string &out) {
  const Tables &t = tables();
  out.clear();
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8_sequence_length(text, i);
    if (n == 0)
      return false;
    uint32_t cp;
    unsigned char c0 = static_cast<unsigned char>(text[i]);
    if (n == 1)
      cp = c0;
    else if (n == 2)
      cp = ((c0 & 0x1Fu) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3Fu);
    else
      return false; // every alphabet code point is below U+0800
    if (cp > kMaxAlphabetCp || t.byte_of_cp[cp] < 0)
      return false;
    out.push_back(static_cast<char>(t.byte_of_cp[cp]));
    i += n;
  }
  return true;
}

std::string byte_level_encode(std::string_view bytes) {
  std::string out;
  for (char c : bytes)
    out.append(byte_level_char(static_cast<unsigned char>(c)));
  return out;
}

} // namespace llmc::rt
