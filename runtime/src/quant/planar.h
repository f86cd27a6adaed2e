// Block matrices repacked into planes of each block segment (`!llm.block<f, planar>`), the layout the CUDA kernels read.
#ifndef LLMC_RUNTIME_PLANAR_H
#define LLMC_RUNTIME_PLANAR_H

#include "llmc/runtime.h"

#include <cstdint>

namespace llmc::rt {

/// Whether the CUDA kernels can read `dtype` as planes: the block formats
/// of the `llm` dialect (q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, q5_k, q6_k).
bool has_planar_layout(llmc_dtype dtype);

/// Repacks `blocks` consecutive blocks of `dtype` (the file's layout, at
/// `src`: a matrix's rows one after the other) into planes at `dst` (the
/// same byte count): each segment of a block (the codes, the 5-bit formats'
/// high bits, the scales; `!llm.block`'s table in dialect/LLMTypes.td) gets
/// a plane holding that segment of every block, cut into pieces as wide as
/// its alignment (the largest power of two, at most 16, dividing its bytes)
/// and stored piece-major (piece 0 of every block in order, then piece
/// 1, ...); the planes follow each other widest alignment first (16 bytes
/// for the codes), ties in the block's order. has_planar_layout(dtype) must
/// hold.
void planar_blocks(llmc_dtype dtype, const uint8_t *src, int64_t blocks,
                   uint8_t *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_PLANAR_H
