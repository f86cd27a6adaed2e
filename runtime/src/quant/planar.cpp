// Block matrices repacked into planes of each block segment (`!llm.block<f, planar>`), the layout the CUDA kernels read.
#include "quant/planar.h"

#include "dtype.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace llmc::rt {

namespace {

/// Bytes [start, start + bytes) of a block.
struct Segment {
  int64_t start, bytes;
};

/// A block's segments in its byte order (the same cut as the compiler's
/// BlockQuantType::getPlanarSegments); empty for a format without planes.
std::vector<Segment> planar_segments(llmc_dtype dtype) {
  switch (dtype) {
  case LLMC_DTYPE_Q8_0:
    return {{0, 2}, {2, 32}};
  case LLMC_DTYPE_Q4_0:
    return {{0, 2}, {2, 16}};
  case LLMC_DTYPE_Q4_1:
    return {{0, 4}, {4, 16}};
  case LLMC_DTYPE_Q5_0:
    return {{0, 2}, {2, 4}, {6, 16}};
  case LLMC_DTYPE_Q5_1:
    return {{0, 4}, {4, 4}, {8, 16}};
  case LLMC_DTYPE_Q4_K:
    return {{0, 16}, {16, 128}};
  case LLMC_DTYPE_Q5_K:
    return {{0, 16}, {16, 32}, {48, 128}};
  case LLMC_DTYPE_Q6_K:
    return {{0, 128}, {128, 64}, {192, 16}, {208, 2}};
  default:
    return {};
  }
}

/// The largest power of two, at most 16, dividing `bytes`.
int64_t alignment_of(int64_t bytes) {
  return std::min<int64_t>(16, bytes & -bytes);
}

} // namespace

bool has_planar_layout(llmc_dtype dtype) {
  return !planar_segments(dtype).empty();
}

void planar_blocks(llmc_dtype dtype, const uint8_t *src, int64_t blocks,
                   uint8_t *dst) {
  std::vector<Segment> segments = planar_segments(dtype);
  std::stable_sort(segments.begin(), segments.end(),
                   [](const Segment &a, const Segment &b) {
                     return alignment_of(a.bytes) > alignment_of(b.bytes);
                   });
  const int64_t block_bytes = dtype_traits(dtype).block_bytes;
  for (const Segment &segment : segments) {
    // Piece-major: piece p of every block, then piece p + 1.
    const int64_t width = alignment_of(segment.bytes);
    for (int64_t piece = segment.start; piece < segment.start + segment.bytes;
         piece += width) {
      for (int64_t b = 0; b < blocks; ++b)
        std::memcpy(dst + b * width, src + b * block_bytes + piece,
                    static_cast<size_t>(width));
      dst += blocks * width;
    }
  }
}

} // namespace llmc::rt
