// Dequantization of the ggml 32-element blocks Q8_0 / Q4_0 / Q4_1 / Q5_0 / Q5_1 to f32 (layouts in dequant.h).
#include "dequant.h"

#include "dequant_load.h"

namespace llmc::rt {

namespace {
/// Nibble packing shared by the 4- and 5-bit formats: the two halves of a
/// block are interleaved byte-wise, not element-wise.
constexpr uint32_t kHalfBlock = kQuantBlockElems / 2;
/// Q8_0 stores the signed code itself.
constexpr int kQ8_0ZeroPoint = 0;
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
/// The formats without a minimum: value = (code - zero_point) * d, with the
/// f16 d first in each `BlockBytes`-byte block; `code(block, j)` reads
/// element j's stored code.
template <uint32_t BlockBytes, typename Code>
void dequantize_symmetric(const uint8_t *src, uint64_t n_blocks, float *dst, int zero_point,
                          Code code) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += BlockBytes) {
    float d = load_f16(src);
    for (uint32_t j = 0; j < kQuantBlockElems; ++j)
      *dst++ = static_cast<float>(code(src, j) - zero_point) * d;
  }
}

/// The formats with a minimum: value = code * d + m, the f16 d and m first
/// in each block (the add is the one rounding step, see dequant.h).
template <uint32_t BlockBytes, typename Code>
void dequantize_affine(const uint8_t *src, uint64_t n_blocks, float *dst, Code code) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += BlockBytes) {
    float d = load_f16(src);
    float m = load_f16(src + 2);
    for (uint32_t j = 0; j < kQuantBlockElems; ++j) {
      float scaled = static_cast<float>(code(src, j)) * d;
      *dst++ = scaled + m;
    }
  }
}
} // namespace

void dequantize_q8_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  dequantize_symmetric<kQ8_0BlockBytes>(src, n_blocks, dst, kQ8_0ZeroPoint,
                                        [](const uint8_t *block, uint32_t j) {
                                          return static_cast<int>(static_cast<int8_t>(block[2 + j]));
                                        });
}

void dequantize_q4_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  dequantize_symmetric<kQ4_0BlockBytes>(src, n_blocks, dst, kQ4_0ZeroPoint,
                                        [](const uint8_t *block, uint32_t j) {
                                          return static_cast<int>(nibble(block + 2, j));
                                        });
}

void dequantize_q4_1(const uint8_t *src, uint64_t n_blocks, float *dst) {
  dequantize_affine<kQ4_1BlockBytes>(src, n_blocks, dst, [](const uint8_t *block, uint32_t j) {
    return nibble(block + 4, j);
  });
}

void dequantize_q5_0(const uint8_t *src, uint64_t n_blocks, float *dst) {
  dequantize_symmetric<kQ5_0BlockBytes>(src, n_blocks, dst, kQ5_0ZeroPoint,
                                        [](const uint8_t *block, uint32_t j) {
                                          return static_cast<int>(
                                              code5(block + 6, load_le32(block + 2), j));
                                        });
}

void dequantize_q5_1(const uint8_t *src, uint64_t n_blocks, float *dst) {
  dequantize_affine<kQ5_1BlockBytes>(src, n_blocks, dst, [](const uint8_t *block, uint32_t j) {
    return code5(block + 8, load_le32(block + 4), j);
  });
}

} // namespace llmc::rt
