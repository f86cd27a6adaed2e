// Reorders q_proj/k_proj rows between the interleaved and half RoPE layouts.
#ifndef LLMC_RUNTIME_ROPE_PERMUTE_H
#define LLMC_RUNTIME_ROPE_PERMUTE_H

#include "llmc/runtime.h"

#include <cstdint>

namespace llmc::rt {

/// The same rotation can be computed on adjacent pairs (interleaved: GGUF,
/// llama2.c) or on the two halves of a head (half: Hugging Face) if the rows
/// producing Q and K are reordered; weights are converted once at bind time
/// so compiled code only ever implements the layout its manifest names.
/// Within each head of `head_dim` rows, interleaved row 2i + h (h in {0, 1})
/// is half row i + h * head_dim / 2 (llama.cpp's convert script applies the
/// inverse). Rows are `row_len` floats. Throws on bad sizes.
void rope_permute_rows(const float *src, float *dst, int64_t n_heads,
                       int64_t head_dim, int64_t row_len, llmc_rope_layout from,
                       llmc_rope_layout to);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_ROPE_PERMUTE_H
