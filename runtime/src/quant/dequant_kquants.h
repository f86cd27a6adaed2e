// Block layouts of the ggml K-quant super-block formats (Q2_K .. Q6_K) and their dequantization to f32.
#ifndef LLMC_RUNTIME_DEQUANT_KQUANTS_H
#define LLMC_RUNTIME_DEQUANT_KQUANTS_H

#include <cstdint>

namespace llmc::rt {

/// Elements per K-quant super-block (QK_K in ggml): every row length of a
/// K-quant tensor is a multiple of it. Each super-block is split into
/// sub-blocks of 16 or 32 elements with their own small integer scales.
constexpr uint32_t kSuperBlockElems = 256;

/// Code arrays are packed bit-plane-wise, not element-wise: a b-bit array
/// over groups of G bytes puts element e at bits [b*s, b*s + b) of byte
/// e % G of its group, s = (e / G) % (8 / b); a group holds G * 8 / b
/// elements. Q6_K's low nibbles use G = 64; every other array G = 32.
///
/// Q2_K: u8 scales[16] (per 16-element sub-block: low nibble the scale, high
/// nibble the min), u8 qs[64] (2-bit codes), f16 d, f16 dmin;
/// value = (d * scale) * q - (dmin * min).
constexpr uint32_t kQ2_KBlockBytes = 16 + 64 + 2 + 2;
/// Q3_K: u8 hmask[32] (bit e / 32 of byte e % 32 is bit 2 of element e,
/// stored inverted: set means no offset), u8 qs[64] (low 2 bits, as in
/// Q2_K), u8 scales[12] (16 6-bit signed scales + 32: low 4 bits of scale i
/// in nibble i / 8 of byte i % 8, high 2 bits in bits [2(i / 4), 2(i / 4)+2)
/// of byte 8 + i % 4), f16 d; value = (d * (scale - 32)) * (low - 4 * !high).
constexpr uint32_t kQ3_KBlockBytes = 32 + 64 + 12 + 2;
/// Q4_K: f16 d, f16 dmin, u8 scales[12] (8 6-bit scales and 8 6-bit mins,
/// one per 32-element sub-block: for j < 4, scale j = byte j & 63 and min j
/// = byte j+4 & 63; for j >= 4 the low 4 bits come from byte j+4 (scale low
/// nibble, min high nibble) and the high 2 bits from the top of bytes j-4
/// (scale) and j (min)), u8 qs[128] (4-bit codes);
/// value = (d * scale) * q - (dmin * min).
constexpr uint32_t kQ4_KBlockBytes = 2 + 2 + 12 + 128;
/// Q5_K: as Q4_K, with u8 qh[32] before qs: bit e / 32 of byte e % 32 is
/// bit 4 of element e.
constexpr uint32_t kQ5_KBlockBytes = 2 + 2 + 12 + 32 + 128;
/// Q6_K: u8 ql[128] (low 4 bits; each half of 128 elements as a 4-bit
/// array over 64 bytes), u8 qh[64] (high 2 bits; each half as a 2-bit array
/// over 32 bytes), i8 scales[16] (per 16-element sub-block), f16 d;
/// value = (d * scale) * (q - 32).
constexpr uint32_t kQ6_KBlockBytes = 128 + 64 + 16 + 2;

/// Each function decodes `n_blocks` consecutive super-blocks from `src` (no
/// alignment required) into 256 * n_blocks floats at `dst`, in the
/// reference's order of operations: (d * scale) * q - (dmin * min). Every
/// product there is exact in f32 (an f16 has 11 significant bits, a
/// sub-block scale at most 7, a code at most 6: 24 bits at most), so the
/// final subtraction is the only rounding and the result is bit-exact with
/// ggml and the gguf package, whatever the product order or FMA contraction.
void dequantize_q2_k(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q3_k(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q4_k(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q5_k(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q6_k(const uint8_t *src, uint64_t n_blocks, float *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_DEQUANT_KQUANTS_H
