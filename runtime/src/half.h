// IEEE half (f16) and bfloat16 to f32 conversion, exact for every input bit pattern.
#ifndef LLMC_RUNTIME_HALF_H
#define LLMC_RUNTIME_HALF_H

#include <cstdint>
#include <cstring>

namespace llmc::rt {

inline float bits_to_f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// Bit-level conversion (no F16C dependency) so results are identical on
/// every host; handles subnormals, infinities and NaN payloads exactly.
inline float f16_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) // inf / NaN: keep the payload
    return bits_to_f32(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0)
      return bits_to_f32(sign); // signed zero
    // Subnormal: value = mant * 2^-24, exactly representable in f32.
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  // Normal: rebias the exponent from 15 to 127.
  return bits_to_f32(sign | ((exp + 112u) << 23) | (mant << 13));
}

/// bfloat16 is the upper half of an f32.
inline float bf16_to_f32(uint16_t b) {
  return bits_to_f32(static_cast<uint32_t>(b) << 16);
}

} // namespace llmc::rt

#endif // LLMC_RUNTIME_HALF_H
