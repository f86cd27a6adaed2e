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
/// of `group` rows whose rows stand in runs of `columns` elements: 8 for
/// the 32-element block formats (interleave_header_bytes non-zero; runs of
/// one block), 16 for f32, f16 and bf16 (runs of one element, and bf16 also
/// of 2: VDPBF16PS's pairs).
bool can_interleave(llmc_dtype dtype, int64_t group, int64_t columns);

/// Repacks `rows` rows of `row_blocks` blocks of `dtype` (the file's layout,
/// at `src`; a float's block is one element) into groups of `group` rows
/// at `dst` (the same byte count). Block formats: group g's block b holds
/// the group's rows' headers of block b, row by row, then the codes of
/// block b in runs of 4 bytes, each run for every row of the group before
/// the next run. Floats: group g's run of `columns` elements from element b
/// of each of its rows, row by row, then the run from b + columns
/// (column-major within the group when `columns` is 1). `rows` must be a
/// multiple of `group`, `row_blocks` of `columns`, and
/// can_interleave(dtype, group, columns) true. The groups are repacked on
/// the machine's hardware threads (parallel_chunks).
void interleave_rows(llmc_dtype dtype, const uint8_t *src, int64_t rows,
                     int64_t row_blocks, int64_t group, int64_t columns,
                     uint8_t *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_INTERLEAVE_H
