// Rows repacked into interleaved groups (`!llm.block<f, interleave = R>`, `!llm.interleaved<t, rows = R>`), the layouts the CPU's interleaved kernels read.
#ifndef LLMC_RUNTIME_INTERLEAVE_H
#define LLMC_RUNTIME_INTERLEAVE_H

#include "llmc/runtime.h"

#include <cstdint>

namespace llmc::rt {

/// Bytes at the start of a block of `dtype` that are not codes (its scales,
/// and the 5-bit formats' high-bit word): q8_0 and q4_0 2, q4_1 4, q5_0 6,
/// q5_1 8; 0 for a format that cannot be interleaved (the K-quants, floats).
uint32_t interleave_header_bytes(llmc_dtype dtype);

/// Whether an artifact may store a matrix of `dtype` in interleaved groups
/// of `group` rows: 8 for the 32-element block formats
/// (interleave_header_bytes non-zero), 16 for f32, f16 and bf16.
bool can_interleave(llmc_dtype dtype, int64_t group);

/// Repacks `rows` rows of `row_blocks` blocks of `dtype` (the file's layout,
/// at `src`; a float's block is one element) into groups of `group` rows
/// at `dst` (the same byte count). Block formats: group g's block b holds
/// the group's rows' headers of block b, row by row, then the codes of
/// block b in runs of 4 bytes, each run for every row of the group before
/// the next run. Floats: group g's element b of each of its rows, row by
/// row, then element b + 1 (column-major within the group). `rows` must be
/// a multiple of `group`, and can_interleave(dtype, group) true.
void interleave_rows(llmc_dtype dtype, const uint8_t *src, int64_t rows,
                     int64_t row_blocks, int64_t group, uint8_t *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_INTERLEAVE_H
