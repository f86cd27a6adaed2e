// Block rows repacked into interleaved groups of rows.
#include "interleave.h"

#include "../dtype.h"

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

} // namespace llmc::rt
