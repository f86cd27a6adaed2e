// Block rows repacked into interleaved groups (`!llm.block<f, interleave = R>`), the layout the CPU's interleaved GEMV reads.
#ifndef LLMC_RUNTIME_INTERLEAVE_H
#define LLMC_RUNTIME_INTERLEAVE_H

#include "llmc/runtime.h"

#include <cstdint>

namespace llmc::rt {

/// Bytes at the start of a block of `dtype` that are not codes (its scales,
/// and the 5-bit formats' high-bit word): q8_0 and q4_0 2, q4_1 4, q5_0 6,
/// q5_1 8; 0 for a format that cannot be interleaved (the K-quants, floats).
uint32_t interleave_header_bytes(llmc_dtype dtype);

/// Repacks `rows` rows of `row_blocks` blocks of `dtype` (the file's layout,
/// at `src`) into groups of `group` rows at `dst` (the same byte count):
/// group g's block b holds the group's rows' headers of block b, row by
/// row, then the codes of block b in runs of 4 bytes, each run for every
/// row of the group before the next run. `rows` must be a multiple of
/// `group`, and interleave_header_bytes(dtype) non-zero.
void interleave_block_rows(llmc_dtype dtype, const uint8_t *src, int64_t rows,
                           int64_t row_blocks, int64_t group, uint8_t *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_INTERLEAVE_H
