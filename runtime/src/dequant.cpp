// Dequantization of the ggml 32-element blocks Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1 to f32 (layouts in dequant.h).
#include "dequant.h"

#include "dequant_load.h"

namespace llmc::rt {

namespace {
/// Nibble packing shared by the 4- and 5-bit formats: the two halves of a
/// block are interleaved byte-wise, not element-wise.
constexpr uint32_t kHalfBlock = kQuantBlockElems / 2;
/// Q4_0 stores q + 8 so that a 4-bit code covers [-8, 7] symmetrically.
constexpr int kQ4_0ZeroPoint = 8;
/// Q5_0 stores q + 16: a 5-bit code covers [-16, 15].
constexpr int kQ5_0ZeroPoint = 16;
/// Bit 4 of a 5-bit code comes from the block's qh word.
constexpr uint32_t kQ5HighBitShift = 4;

/// The 4-bit code of element j of a nibble-packed block.
inline uint32_t nibble(const uint8_t *qs, uint32_t j) {
  return j < kHalfBlock ? qs[j] & 0x0fu : qs[j - kHalfBlock] >> 4;
}

/// The 5-bit code of element j: low nibble from qs, bit 4 from qh.
inline uint32_t code5(const uint8_t *qs, uint32_t qh, uint32_t j) {
  return nibble(qs, j) | (((qh >> j) & 1u) << kQ5HighBitShift);
}
} // namespace

void dequantize_q8_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ8_0BlockBytes) {
    float d = load_f16(src);
    const int8_t *q = reinterpret_cast<const int8_t *>(src + 2);
    for (uint32_t j = 0; j < kQuantBlockElems; ++j)
      *dst++ = static_cast<float>(q[j]) * d;
  }
}

void dequantize_q4_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ4_0BlockBytes) {
    float d = load_f16(src);
    const uint8_t *qs = src + 2;
    for (uint32_t j = 0; j < kQuantBlockElems; ++j)
      *dst++ = static_cast<float>(static_cast<int>(nibble(qs, j)) - kQ4_0ZeroPoint) * d;
  }
}

void dequantize_q4_1(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ4_1BlockBytes) {
    float d = load_f16(src);
    float m = load_f16(src + 2);
    const uint8_t *qs = src + 4;
    for (uint32_t j = 0; j < kQuantBlockElems; ++j) {
      float scaled = static_cast<float>(nibble(qs, j)) * d;
      *dst++ = scaled + m;
    }
  }
}

void dequantize_q5_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ5_0BlockBytes) {
    float d = load_f16(src);
    uint32_t qh = load_le32(src + 2);
    const uint8_t *qs = src + 6;
    for (uint32_t j = 0; j < kQuantBlockElems; ++j)
      *dst++ = static_cast<float>(static_cast<int>(code5(qs, qh, j)) - kQ5_0ZeroPoint) * d;
  }
}

void dequantize_q5_1(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ5_1BlockBytes) {
    float d = load_f16(src);
    float m = load_f16(src + 2);
    uint32_t qh = load_le32(src + 4);
    const uint8_t *qs = src + 8;
    for (uint32_t j = 0; j < kQuantBlockElems; ++j) {
      float scaled = static_cast<float>(code5(qs, qh, j)) * d;
      *dst++ = scaled + m;
    }
  }
}

} // namespace llmc::rt
