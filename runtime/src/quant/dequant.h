// Block layouts of the ggml 32-element formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1) and their dequantization to f32.
#ifndef LLMC_RUNTIME_DEQUANT_H
#define LLMC_RUNTIME_DEQUANT_H

#include <cstdint>

namespace llmc::rt {

/// Elements per quantization block; fixed by the GGUF spec for these
/// formats (QK8_0 = QK4_0 = QK4_1 = QK5_0 = QK5_1 = 32).
constexpr uint32_t kQuantBlockElems = 32;

/// Q8_0 block: f16 scale d, then 32 x int8 q; value = q * d.
constexpr uint32_t kQ8_0BlockBytes = 2 + 32;
/// Q4_0 block: f16 scale d, then 16 bytes of nibbles; value = (q - 8) * d.
/// Byte j holds element j in its low nibble and element j + 16 in its high.
constexpr uint32_t kQ4_0BlockBytes = 2 + 16;
/// Q4_1 block: f16 scale d, f16 minimum m, then 16 bytes of nibbles laid out
/// as in Q4_0; value = q * d + m.
constexpr uint32_t kQ4_1BlockBytes = 2 + 2 + 16;
/// Q5_0 block: f16 scale d, a little-endian u32 qh whose bit j is bit 4 of
/// element j, then 16 bytes of low nibbles laid out as in Q4_0;
/// value = (q - 16) * d.
constexpr uint32_t kQ5_0BlockBytes = 2 + 4 + 16;
/// Q5_1 block: f16 scale d, f16 minimum m, u32 qh and 16 bytes of low
/// nibbles as in Q5_0; value = q * d + m.
constexpr uint32_t kQ5_1BlockBytes = 2 + 2 + 4 + 16;

/// Each function decodes `n_blocks` consecutive blocks from `src` (no
/// alignment required) into 32 * n_blocks floats at `dst`, bit-exact with
/// ggml and the gguf package: a code (at most 8 bits) times an f16 scale
/// (11 significant bits) is exact in f32, so the only rounding is that of
/// the final add of m, the same whether or not the compiler fuses it.
void dequantize_q8_0(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q4_0(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q4_1(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q5_0(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q5_1(const uint8_t *src, uint64_t n_blocks, float *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_DEQUANT_H
