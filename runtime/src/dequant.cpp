// Dequantization of ggml Q8_0 / Q4_0 / Q4_1 blocks to f32 (layouts in dequant.h).
#include "dequant.h"

#include "half.h"

#include <cstring>

namespace llmc::rt {

namespace {
uint16_t load_u16(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Nibble packing shared by Q4_0 and Q4_1: the two halves of a block are
/// interleaved byte-wise, not element-wise.
constexpr uint32_t kHalfBlock = kQuantBlockElems / 2;
/// Q4_0 stores q - 8 so that a 4-bit code covers [-8, 7] symmetrically.
constexpr int kQ4_0ZeroPoint = 8;
} // namespace

void dequantize_q8_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ8_0BlockBytes) {
    float d = f16_to_f32(load_u16(src));
    const int8_t *q = reinterpret_cast<const int8_t *>(src + 2);
    for (uint32_t j = 0; j < kQuantBlockElems; ++j)
      *dst++ = static_cast<float>(q[j]) * d;
  }
}

void dequantize_q4_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ4_0BlockBytes) {
    float d = f16_to_f32(load_u16(src));
    const uint8_t *qs = src + 2;
    for (uint32_t j = 0; j < kHalfBlock; ++j) {
      dst[j] = static_cast<float>((qs[j] & 0x0f) - kQ4_0ZeroPoint) * d;
      dst[j + kHalfBlock] = static_cast<float>((qs[j] >> 4) - kQ4_0ZeroPoint) * d;
    }
    dst += kQuantBlockElems;
  }
}

void dequantize_q4_1(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ4_1BlockBytes) {
    float d = f16_to_f32(load_u16(src));
    float m = f16_to_f32(load_u16(src + 2));
    const uint8_t *qs = src + 4;
    for (uint32_t j = 0; j < kHalfBlock; ++j) {
      dst[j] = static_cast<float>(qs[j] & 0x0f) * d + m;
      dst[j + kHalfBlock] = static_cast<float>(qs[j] >> 4) * d + m;
    }
    dst += kQuantBlockElems;
  }
}

} // namespace llmc::rt
