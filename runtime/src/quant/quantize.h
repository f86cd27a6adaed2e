// Quantization of f32 rows into the ggml 32-element block formats (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1), for weights an artifact computes in blocks.
#ifndef LLMC_RUNTIME_QUANTIZE_H
#define LLMC_RUNTIME_QUANTIZE_H

#include "llmc/runtime.h"

#include <cstdint>

namespace llmc::rt {

/// True for the formats quantize_blocks writes.
bool can_quantize(llmc_dtype dtype);

/// Quantizes `n_blocks` blocks of 32 floats at `src` into `dst`
/// (n_blocks · block bytes), bit-exact with ggml's reference quantizers and
/// the gguf package's `quants.quantize`: one scale per block from its largest
/// magnitude (Q8_0, Q4_0, Q5_0) or its range (Q4_1, Q5_1), computed in f32,
/// codes rounded as ggml rounds them, the scale stored as f16.
/// `dtype` must satisfy can_quantize.
void quantize_blocks(llmc_dtype dtype, const float *src, uint64_t n_blocks, uint8_t *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_QUANTIZE_H
