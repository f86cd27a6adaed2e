// IEEE half (f16) and bfloat16 <-> f32 conversion: exact widening, round-to-nearest-even narrowing.
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

inline uint32_t f32_to_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

/// f32 → bfloat16, rounding to nearest even; NaN stays a (quiet) NaN.
inline uint16_t f32_to_bf16(float f) {
  uint32_t bits = f32_to_bits(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

/// f32 → IEEE half, rounding to nearest even: values from 65520 up become
/// infinity, values below 2^-14 become subnormals, NaN stays NaN.
inline uint16_t f32_to_f16(float f) {
  uint32_t bits = f32_to_bits(f);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN
    return static_cast<uint16_t>(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) // >= 65520: rounds to infinity
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) { // below 2^-14: subnormal (or zero)
    // The subnormal's integer significand is |f| / 2^-24, rounded to even;
    // a carry into 0x400 is the smallest normal, encoded correctly.
    float scaled = bits_to_f32(magnitude) * 16777216.0f;
    uint32_t q = static_cast<uint32_t>(scaled);
    float rest = scaled - static_cast<float>(q);
    if (rest > 0.5f || (rest == 0.5f && (q & 1u)))
      ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t exponent = (magnitude >> 23) - 127u + 15u;
  uint32_t mantissa = magnitude & 0x7fffffu;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
    ++half; // a carry into the exponent is still the right rounding
  return static_cast<uint16_t>(sign | half);
}

} // namespace llmc::rt

#endif // LLMC_RUNTIME_HALF_H
