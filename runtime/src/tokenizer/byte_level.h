// GPT-2's byte-level alphabet: every byte spelled as one printable code point, and back.
#ifndef LLMC_RUNTIME_BYTE_LEVEL_H
#define LLMC_RUNTIME_BYTE_LEVEL_H

#include <string>
#include <string_view>

namespace llmc::rt {

/// The UTF-8 spelling of byte `b` in a byte-level BPE vocabulary (GPT-2's
/// bytes_to_unicode: printable Latin-1 bytes stand for themselves, the 68
/// others for U+0100.. in byte order), e.g. ' ' -> "Ġ", '\n' -> "Ċ".
std::string_view byte_level_char(unsigned char b);

/// The bytes that a byte-level token text stands for; false (and `out`
/// unspecified) when the text holds a code point outside the alphabet.
bool byte_level_decode(std::string_view text, std::string &out);

/// The byte-level spelling of raw bytes (each byte -> one code point).
std::string byte_level_encode(std::string_view bytes);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_BYTE_LEVEL_H
