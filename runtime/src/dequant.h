// Block layouts of the ggml quantized formats Q8_0, Q4_0, Q4_1 and their dequantization to f32.
#ifndef LLMC_RUNTIME_DEQUANT_H
#define LLMC_RUNTIME_DEQUANT_H

#include <cstdint>

namespace llmc::rt {

/// Elements per quantization block; fixed by the GGUF spec for all three
/// formats (QK8_0 = QK4_0 = QK4_1 = 32).
constexpr uint32_t kQuantBlockElems = 32;

/// Q8_0 block: f16 scale d, then 32 x int8 q; value = q * d.
constexpr uint32_t kQ8_0BlockBytes = 2 + 32;
/// Q4_0 block: f16 scale d, then 16 bytes of nibbles; value = (q - 8) * d.
/// Byte j holds element j in its low nibble and element j + 16 in its high.
constexpr uint32_t kQ4_0BlockBytes = 2 + 16;
/// Q4_1 block: f16 scale d, f16 minimum m, then 16 bytes of nibbles laid out
/// as in Q4_0; value = q * d + m.
constexpr uint32_t kQ4_1BlockBytes = 2 + 2 + 16;

/// Each function decodes `n_blocks` consecutive blocks from `src` (no
/// alignment required) into 32 * n_blocks floats at `dst`.
void dequantize_q8_0(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q4_0(const uint8_t *src, uint64_t n_blocks, float *dst);
void dequantize_q4_1(const uint8_t *src, uint64_t n_blocks, float *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_DEQUANT_H
