// The value of a hexadecimal digit, for the escapes and byte spellings of the text formats the runtime reads.
#ifndef LLMC_RUNTIME_HEX_DIGIT_H
#define LLMC_RUNTIME_HEX_DIGIT_H

namespace llmc::rt {

/// 0..15 for 0-9, a-f and A-F; -1 for anything else (locale-independent,
/// unlike std::isxdigit, because the formats define the digits as ASCII).
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

} // namespace llmc::rt

#endif // LLMC_RUNTIME_HEX_DIGIT_H
