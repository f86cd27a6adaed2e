// extern "C" llmc_rope_permute_rows over rope_permute_rows.
#include "api_guard.h"
#include "rope_permute.h"

using namespace llmc::rt;

extern "C" llmc_status llmc_rope_permute_rows(const float *src, float *dst,
                                              int64_t n_heads, int64_t head_dim,
                                              int64_t row_len,
                                              llmc_rope_layout from,
                                              llmc_rope_layout to) {
  return guarded([&] {
    require(src, "llmc_rope_permute_rows", "src");
    require(dst, "llmc_rope_permute_rows", "dst");
    rope_permute_rows(src, dst, n_heads, head_dim, row_len, from, to);
  });
}
