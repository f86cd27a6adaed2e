// Rows of blocks or floats repacked into interleaved groups of rows.
#include "interleave.h"

#include "../dtype.h"
#include "../parallel_chunks.h"

#include <algorithm>
#include <cstring>

namespace llmc::rt {

uint32_t interleave_header_bytes(llmc_dtype dtype) {
  switch (dtype) {
  case LLMC_DTYPE_Q8_0:
  case LLMC_DTYPE_Q4_0:
    return 2;
  case LLMC_DTYPE_Q4_1:
    return 4;
  case LLMC_DTYPE_Q5_0:
    return 6;
  case LLMC_DTYPE_Q5_1:
    return 8;
  default:
    return 0;
  }
}

bool can_interleave(llmc_dtype dtype, int64_t group, int64_t columns) {
  switch (dtype) {
  case LLMC_DTYPE_F32:
  case LLMC_DTYPE_F16:
    return group == 16 && columns == 1;
  case LLMC_DTYPE_BF16:
    return group == 16 && (columns == 1 || columns == 2);
  default:
    return group == 8 && columns == 1 && interleave_header_bytes(dtype) != 0;
  }
}

namespace {

/// Bytes of groups one thread repacks at a time.
constexpr size_t kChunkBytes = size_t{1} << 20;

/// Element k of the group's rows r = 0..group-1 at dst[k · group + r], for
/// the groups [g0, g1): a transpose of each group of rows of `T` elements,
/// in tiles of kTile columns whose group × kTile elements stay in L1 while
/// each row's part is read in one sequential run.
template <typename T>
void interleave_float_rows(const uint8_t *src, size_t g0, size_t g1,
                           size_t columns, size_t group, uint8_t *dst) {
  constexpr size_t kTile = 64;
  for (size_t g = g0; g < g1; ++g) {
    const uint8_t *group_src = src + g * group * columns * sizeof(T);
    uint8_t *group_dst = dst + g * group * columns * sizeof(T);
    for (size_t k0 = 0; k0 < columns; k0 += kTile) {
      const size_t k1 = std::min(columns, k0 + kTile);
      for (size_t r = 0; r < group; ++r) {
        const uint8_t *row = group_src + r * columns * sizeof(T);
        for (size_t k = k0; k < k1; ++k) {
          T element;
          std::memcpy(&element, row + k * sizeof(T), sizeof(T));
          std::memcpy(group_dst + (k * group + r) * sizeof(T), &element,
                      sizeof(T));
        }
      }
    }
  }
}

/// The groups [g0, g1) of block rows (interleave_rows' layout).
void interleave_block_rows(llmc_dtype dtype, const uint8_t *src, size_t g0,
                           size_t g1, size_t row_blocks, size_t g_rows,
                           uint8_t *dst) {
  const size_t block = dtype_traits(dtype).block_bytes;
  const size_t header = interleave_header_bytes(dtype);
  const size_t codes = block - header;
  const size_t row_bytes = row_blocks * block;
  for (size_t g = g0; g < g1; ++g) {
    const uint8_t *group_src = src + g * g_rows * row_bytes;
    uint8_t *group_dst = dst + g * g_rows * row_bytes;
    for (size_t b = 0; b < row_blocks; ++b) {
      uint8_t *out = group_dst + b * g_rows * block;
      for (size_t r = 0; r < g_rows; ++r) {
        const uint8_t *in = group_src + r * row_bytes + b * block;
        std::memcpy(out + r * header, in, header);
        for (size_t run = 0; run < codes / 4; ++run)
          std::memcpy(out + g_rows * header + (run * g_rows + r) * 4,
                      in + header + run * 4, 4);
      }
    }
  }
}

} // namespace

void interleave_rows(llmc_dtype dtype, const uint8_t *src, int64_t rows,
                     int64_t row_blocks, int64_t group, int64_t columns,
                     uint8_t *dst) {
  const size_t k = static_cast<size_t>(row_blocks), n = static_cast<size_t>(group);
  const size_t groups = static_cast<size_t>(rows) / n;
  const size_t group_bytes = n * k * dtype_traits(dtype).block_bytes;
  // The groups are independent: the threads take them a chunk at a time.
  parallel_chunks(groups, std::max<size_t>(1, kChunkBytes / std::max<size_t>(group_bytes, 1)),
                  [&](size_t g0, size_t g1) {
    switch (dtype) {
    case LLMC_DTYPE_F32:
      return interleave_float_rows<uint32_t>(src, g0, g1, k, n, dst);
    case LLMC_DTYPE_F16:
      return interleave_float_rows<uint16_t>(src, g0, g1, k, n, dst);
    case LLMC_DTYPE_BF16:
      // A pair of bf16 columns moves as one 32-bit unit.
      return columns == 2
                 ? interleave_float_rows<uint32_t>(src, g0, g1, k / 2, n, dst)
                 : interleave_float_rows<uint16_t>(src, g0, g1, k, n, dst);
    default:
      return interleave_block_rows(dtype, src, g0, g1, k, n, dst);
    }
  });
}

} // namespace llmc::rt
