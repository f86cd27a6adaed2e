// Row permutation between interleaved and half RoPE layouts.
#include "rope_permute.h"

#include "error.h"

#include <cstring>

namespace llmc::rt {

void rope_permute_rows(const float *src, float *dst, int64_t n_heads,
                       int64_t head_dim, int64_t row_len, llmc_rope_layout from,
                       llmc_rope_layout to) {
  if (n_heads <= 0 || head_dim <= 0 || row_len <= 0 || head_dim % 2 != 0)
    fail(LLMC_ERR_INVALID_ARGUMENT, "rope permutation: need positive n_heads, "
         "row_len and an even head_dim, got n_heads ", n_heads, ", head_dim ",
         head_dim, ", row_len ", row_len);
  auto valid = [](llmc_rope_layout l) {
    return l == LLMC_ROPE_INTERLEAVED || l == LLMC_ROPE_HALF;
  };
  if (!valid(from) || !valid(to))
    fail(LLMC_ERR_INVALID_ARGUMENT, "rope permutation: unknown layout");
  const size_t row_bytes = static_cast<size_t>(row_len) * sizeof(float);
  if (from == to) {
    std::memcpy(dst, src, row_bytes * static_cast<size_t>(n_heads * head_dim));
    return;
  }
  const int64_t half = head_dim / 2;
  for (int64_t h = 0; h < n_heads; ++h) {
    const int64_t base = h * head_dim;
    for (int64_t i = 0; i < half; ++i) {
      for (int64_t part = 0; part < 2; ++part) {
        int64_t interleaved = base + 2 * i + part;
        int64_t halves = base + i + part * half;
        int64_t s = from == LLMC_ROPE_INTERLEAVED ? interleaved : halves;
        int64_t d = from == LLMC_ROPE_INTERLEAVED ? halves : interleaved;
        std::memcpy(dst + d * row_len, src + s * row_len, row_bytes);
      }
    }
  }
}

} // namespace llmc::rt
