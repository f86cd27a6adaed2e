// Block layout of the ggml non-linear format IQ4_NL and its dequantization to f32.
#ifndef LLMC_RUNTIME_DEQUANT_IQ_H
#define LLMC_RUNTIME_DEQUANT_IQ_H

#include <cstdint>

namespace llmc::rt {

/// Elements per IQ4_NL block (QK4_NL = 32).
constexpr uint32_t kIQ4_NLBlockElems = 32;
/// IQ4_NL block: f16 scale d, then 16 bytes of 4-bit indices laid out as in
/// Q4_0 (byte j: element j low, element j + 16 high); value = d * table[i]
/// with ggml's fixed non-uniform table of 16 int8 levels.
constexpr uint32_t kIQ4_NLBlockBytes = 2 + 16;

/// Decodes `n_blocks` consecutive blocks from `src` (no alignment required)
/// into 32 * n_blocks floats at `dst`; bit-exact, since a level (7 bits)
/// times an f16 scale (11 bits) is exact in f32.
void dequantize_iq4_nl(const uint8_t *src, uint64_t n_blocks, float *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_DEQUANT_IQ_H
