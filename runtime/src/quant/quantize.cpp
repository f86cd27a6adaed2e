// Quantization of f32 rows into the ggml 32-element block formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1), for weights an artifact computes in blocks.
#include "quantize.h"

#include "dequant.h"
#include "half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace llmc::rt {

namespace {

constexpr uint32_t kHalf = kQuantBlockElems / 2;

void store_f16(uint8_t *p, float v) {
  uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, sizeof h);
}

/// 1/d, or 0 for an all-zero block (whose codes are then the offset).
float inverse(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

/// A code's float truncated to int as x86's cvttss2si does it: NaN and
/// values past int's range give INT_MIN, which is what ggml's and numpy's
/// plain casts produce on the hosts their results come from (in C++ such a
/// cast is undefined behaviour). Codes are NaN or infinite for NaN or
/// infinite weights, and for finite ones whose scale's inverse overflows: a
/// block of denormals, or max - min past FLT_MAX.
int truncate_code(float v) {
  constexpr float kTwoTo31 = 2147483648.0f;
  if (!(v >= -kTwoTo31 && v < kTwoTo31))
    return std::numeric_limits<int>::min();
  return static_cast<int>(v);
}

/// The element of largest magnitude, sign kept (the first on ties).
float signed_max(const float *x) {
  float amax = 0.0f, max = 0.0f;
  for (uint32_t j = 0; j < kQuantBlockElems; ++j)
    if (std::fabs(x[j]) > amax) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  return max;
}

/// Codes truncated from x·id + bias, at most `top`: the symmetric 4- and
/// 5-bit formats (their d makes x·id lie in [-2^(bits-1), 2^(bits-1)]).
void symmetric_codes(const float *x, float id, float bias, int top, uint8_t *q) {
  for (uint32_t j = 0; j < kQuantBlockElems; ++j)
    q[j] = static_cast<uint8_t>(std::min(top, truncate_code(x[j] * id + bias)));
}

/// Codes truncated from (x - min)·id + 0.5, at most `top`: the affine formats.
void affine_codes(const float *x, float min, float id, int top, uint8_t *q) {
  for (uint32_t j = 0; j < kQuantBlockElems; ++j)
    q[j] = static_cast<uint8_t>(std::min(top, truncate_code((x[j] - min) * id + 0.5f)));
}

/// Element j's low nibble in byte j, element j + 16's in its high nibble.
void pack_nibbles(const uint8_t *q, uint8_t *qs) {
  for (uint32_t j = 0; j < kHalf; ++j)
    qs[j] = static_cast<uint8_t>((q[j] & 0x0f) | ((q[j + kHalf] & 0x0f) << 4));
}

/// Bit 4 of element j as bit j of a little-endian u32.
void pack_high_bits(const uint8_t *q, uint8_t *qh) {
  uint32_t bits = 0;
  for (uint32_t j = 0; j < kQuantBlockElems; ++j)
    bits |= static_cast<uint32_t>((q[j] >> 4) & 1) << j;
  std::memcpy(qh, &bits, sizeof bits);
}

void min_max(const float *x, float *min, float *max) {
  *min = *max = x[0];
  for (uint32_t j = 1; j < kQuantBlockElems; ++j) {
    *min = std::min(*min, x[j]);
    *max = std::max(*max, x[j]);
  }
}

void quantize_q8_0(const float *x, uint8_t *y) {
  float amax = 0.0f;
  for (uint32_t j = 0; j < kQuantBlockElems; ++j)
    amax = std::max(amax, std::fabs(x[j]));
  float d = amax / 127.0f, id = inverse(d);
  store_f16(y, d);
  for (uint32_t j = 0; j < kQuantBlockElems; ++j)
    y[2 + j] = static_cast<uint8_t>(truncate_code(std::round(x[j] * id)));
}

/// Q4_0 / Q5_0: d = the signed largest element / -2^(bits-1), codes
/// x / d + 2^(bits-1) rounded (truncating x / d + 2^(bits-1) + 0.5);
/// after d, a 5-bit block holds the high bits, then the nibbles.
template <int Bits>
void quantize_symmetric(const float *x, uint8_t *y) {
  constexpr int kLevels = 1 << Bits;
  constexpr float kOffset = kLevels / 2;
  float d = signed_max(x) / -kOffset;
  uint8_t q[kQuantBlockElems];
  symmetric_codes(x, inverse(d), kOffset + 0.5f, kLevels - 1, q);
  store_f16(y, d);
  if (Bits == 5)
    pack_high_bits(q, y + 2);
  pack_nibbles(q, y + (Bits == 5 ? 6 : 2));
}

/// Q4_1 / Q5_1: d = (max - min) / (2^bits - 1), m = min, codes
/// (x - min) / d rounded; after d and m, a 5-bit block holds the high bits,
/// then the nibbles.
template <int Bits>
void quantize_affine(const float *x, uint8_t *y) {
  constexpr int kTop = (1 << Bits) - 1;
  float min, max;
  min_max(x, &min, &max);
  float d = (max - min) / static_cast<float>(kTop);
  uint8_t q[kQuantBlockElems];
  affine_codes(x, min, inverse(d), kTop, q);
  store_f16(y, d);
  store_f16(y + 2, min);
  if (Bits == 5)
    pack_high_bits(q, y + 4);
  pack_nibbles(q, y + (Bits == 5 ? 8 : 4));
}

using QuantizeBlock = void (*)(const float *x, uint8_t *y);

QuantizeBlock quantizer(llmc_dtype dtype, uint32_t *block_bytes) {
  switch (dtype) {
  case LLMC_DTYPE_Q8_0:
    *block_bytes = kQ8_0BlockBytes;
    return quantize_q8_0;
  case LLMC_DTYPE_Q4_0:
    *block_bytes = kQ4_0BlockBytes;
    return quantize_symmetric<4>;
  case LLMC_DTYPE_Q4_1:
    *block_bytes = kQ4_1BlockBytes;
    return quantize_affine<4>;
  case LLMC_DTYPE_Q5_0:
    *block_bytes = kQ5_0BlockBytes;
    return quantize_symmetric<5>;
  case LLMC_DTYPE_Q5_1:
    *block_bytes = kQ5_1BlockBytes;
    return quantize_affine<5>;
  default:
    return nullptr;
  }
}

} // namespace

bool can_quantize(llmc_dtype dtype) {
  uint32_t bytes;
  return quantizer(dtype, &bytes) != nullptr;
}

void quantize_blocks(llmc_dtype dtype, const float *src, uint64_t n_blocks, uint8_t *dst) {
  uint32_t block_bytes = 0;
  QuantizeBlock quantize = quantizer(dtype, &block_bytes);
  for (uint64_t b = 0; b < n_blocks; ++b)
    quantize(src + b * kQuantBlockElems, dst + b * block_bytes);
}

} // namespace llmc::rt
