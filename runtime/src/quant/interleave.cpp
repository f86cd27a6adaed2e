// Rows of blocks or floats repacked into interleaved groups of rows.
#include "interleave.h"

#include "../dtype.h"

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

/// Element k of the group's rows r = 0..group-1 at dst[k · group + r]: a
/// transpose of each group of rows of `T` elements, in tiles of kTile
/// columns whose group × kTile elements stay in L1 while each row's part is
/// read in one sequential run.
template <typename T>
void interleave_float_rows(const uint8_t *src, size_t rows, size_t columns,
                           size_t group, uint8_t *dst) {
  constexpr size_t kTile = 64;
  for (size_t g = 0; g < rows / group; ++g) {
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

void interleave_block_rows(llmc_dtype dtype, const uint8_t *src, int64_t rows,
                           int64_t row_blocks, int64_t group, uint8_t *dst) {
  const size_t block = dtype_traits(dtype).block_bytes;
  const size_t header = interleave_header_bytes(dtype);
  const size_t codes = block - header;
  const size_t row_bytes = static_cast<size_t>(row_blocks) * block;
  const size_t groups = static_cast<size_t>(rows / group);
  const size_t g_rows = static_cast<size_t>(group);
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t *group_src = src + g * g_rows * row_bytes;
    uint8_t *group_dst = dst + g * g_rows * row_bytes;
    for (size_t b = 0; b < static_cast<size_t>(row_blocks); ++b) {
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
  const size_t r = static_cast<size_t>(rows), k = static_cast<size_t>(row_blocks),
               n = static_cast<size_t>(group);
  switch (dtype) {
  case LLMC_DTYPE_F32:
    return interleave_float_rows<uint32_t>(src, r, k, n, dst);
  case LLMC_DTYPE_F16:
    return interleave_float_rows<uint16_t>(src, r, k, n, dst);
  case LLMC_DTYPE_BF16:
    // A pair of bf16 columns moves as one 32-bit unit.
    return columns == 2 ? interleave_float_rows<uint32_t>(src, r, k / 2, n, dst)
                        : interleave_float_rows<uint16_t>(src, r, k, n, dst);
  default:
    return interleave_block_rows(dtype, src, rows, row_blocks, group, dst);
  }
}

} // namespace llmc::rt
