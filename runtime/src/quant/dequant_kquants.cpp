// Dequantization of the ggml K-quant super-blocks Q2_K / Q3_K / Q4_K / Q5_K / Q6_K to f32 (layouts in dequant_kquants.h).
#include "dequant_kquants.h"

#include "dequant_load.h"

namespace llmc::rt {

namespace {

/// Sub-block sizes: the 2-, 3- and 6-bit formats scale every 16 elements,
/// the 4- and 5-bit formats every 32.
constexpr uint32_t kSmallSubBlock = 16;
constexpr uint32_t kLargeSubBlock = 32;
/// Q3_K and Q6_K store their signed scale or code offset by these.
constexpr int kQ3_KScaleBias = 32;
constexpr int kQ6_KCodeBias = 32;
/// Q3_K subtracts this from the 2-bit code when its high bit is clear.
constexpr int kQ3_KHighOffset = 4;

/// The `Bits`-wide code of element e of an array packed ggml's way: runs of
/// `GroupBytes` consecutive elements take the same bit position of
/// consecutive bytes, and 8 / Bits such runs fill a group of bytes before
/// the next group starts.
template <uint32_t Bits, uint32_t GroupBytes>
inline uint32_t packed_code(const uint8_t *bytes, uint32_t e) {
  constexpr uint32_t kPerByte = 8 / Bits;
  constexpr uint32_t kMask = (1u << Bits) - 1;
  uint32_t group = e / (GroupBytes * kPerByte);
  uint32_t shift = Bits * ((e / GroupBytes) % kPerByte);
  return (bytes[group * GroupBytes + e % GroupBytes] >> shift) & kMask;
}

/// Q4_K / Q5_K: the 6-bit scale and min of sub-block j (layout in the header).
inline void scale_min_k4(const uint8_t *scales, uint32_t j, uint32_t *scale, uint32_t *min) {
  constexpr uint32_t kLow6 = 0x3f;
  if (j < 4) {
    *scale = scales[j] & kLow6;
    *min = scales[j + 4] & kLow6;
  } else {
    *scale = (scales[j + 4] & 0x0fu) | ((scales[j - 4] >> 6) << 4);
    *min = (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4);
  }
}

/// Q3_K: the 6-bit scale of sub-block i, before removing its bias.
inline uint32_t scale_q3_k(const uint8_t *scales, uint32_t i) {
  uint32_t low = (scales[i % 8] >> (4 * (i / 8))) & 0x0fu;
  uint32_t high = (scales[8 + i % 4] >> (2 * (i / 4))) & 0x03u;
  return low | (high << 4);
}

/// Shared by Q4_K and Q5_K, whose codes differ only in width.
template <uint32_t (*Code)(const uint8_t *block, uint32_t e)>
void dequantize_k4_like(const uint8_t *src, uint64_t n_blocks, uint32_t block_bytes,
                        float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += block_bytes) {
    float d = load_f16(src);
    float dmin = load_f16(src + 2);
    const uint8_t *scales = src + 4;
    for (uint32_t j = 0; j < kSuperBlockElems / kLargeSubBlock; ++j) {
      uint32_t scale, min;
      scale_min_k4(scales, j, &scale, &min);
      float dl = d * static_cast<float>(scale);
      float ml = dmin * static_cast<float>(min);
      for (uint32_t k = 0; k < kLargeSubBlock; ++k) {
        float scaled = dl * static_cast<float>(Code(src, j * kLargeSubBlock + k));
        *dst++ = scaled - ml;
      }
    }
  }
}

/// Q4_K: 4-bit codes at byte 16 of the block.
uint32_t code_q4_k(const uint8_t *block, uint32_t e) {
  return packed_code<4, 32>(block + 16, e);
}

/// Q5_K: low 4 bits at byte 48, bit 4 from qh at byte 16.
uint32_t code_q5_k(const uint8_t *block, uint32_t e) {
  return packed_code<4, 32>(block + 48, e) | (packed_code<1, 32>(block + 16, e) << 4);
}

} // namespace

void dequantize_q2_k(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ2_KBlockBytes) {
    const uint8_t *scales = src;
    const uint8_t *qs = src + 16;
    float d = load_f16(src + 80);
    float dmin = load_f16(src + 82);
    for (uint32_t i = 0; i < kSuperBlockElems / kSmallSubBlock; ++i) {
      float dl = d * static_cast<float>(scales[i] & 0x0fu);
      float ml = dmin * static_cast<float>(scales[i] >> 4);
      for (uint32_t k = 0; k < kSmallSubBlock; ++k) {
        float scaled = dl * static_cast<float>(packed_code<2, 32>(qs, i * kSmallSubBlock + k));
        *dst++ = scaled - ml;
      }
    }
  }
}

void dequantize_q3_k(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ3_KBlockBytes) {
    const uint8_t *hmask = src;
    const uint8_t *qs = src + 32;
    const uint8_t *scales = src + 96;
    float d = load_f16(src + 108);
    for (uint32_t i = 0; i < kSuperBlockElems / kSmallSubBlock; ++i) {
      int scale = static_cast<int>(scale_q3_k(scales, i)) - kQ3_KScaleBias;
      float dl = d * static_cast<float>(scale);
      for (uint32_t k = 0; k < kSmallSubBlock; ++k) {
        uint32_t e = i * kSmallSubBlock + k;
        int q = static_cast<int>(packed_code<2, 32>(qs, e));
        if (packed_code<1, 32>(hmask, e) == 0)
          q -= kQ3_KHighOffset;
        *dst++ = dl * static_cast<float>(q);
      }
    }
  }
}

void dequantize_q4_k(const uint8_t *src, uint64_t n_blocks, float *dst) {
  dequantize_k4_like<code_q4_k>(src, n_blocks, kQ4_KBlockBytes, dst);
}

void dequantize_q5_k(const uint8_t *src, uint64_t n_blocks, float *dst) {
  dequantize_k4_like<code_q5_k>(src, n_blocks, kQ5_KBlockBytes, dst);
}

void dequantize_q6_k(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kQ6_KBlockBytes) {
    const uint8_t *ql = src;
    const uint8_t *qh = src + 128;
    const int8_t *scales = reinterpret_cast<const int8_t *>(src + 192);
    float d = load_f16(src + 208);
    for (uint32_t i = 0; i < kSuperBlockElems / kSmallSubBlock; ++i) {
      float dl = d * static_cast<float>(scales[i]);
      for (uint32_t k = 0; k < kSmallSubBlock; ++k) {
        uint32_t e = i * kSmallSubBlock + k;
        uint32_t code = packed_code<4, 64>(ql, e) | (packed_code<2, 32>(qh, e) << 4);
        *dst++ = dl * static_cast<float>(static_cast<int>(code) - kQ6_KCodeBias);
      }
    }
  }
}

} // namespace llmc::rt
