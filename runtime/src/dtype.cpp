// Dtype table and the dispatch from storage dtype to the right f32 conversion.
#include "dtype.h"

#include "checked_math.h"
#include "dequant.h"
#include "half.h"

#include <cstring>

namespace llmc::rt {

const DTypeTraits &dtype_traits(llmc_dtype dtype) {
  static const DTypeTraits kF32{"F32", 1, 4};
  static const DTypeTraits kF16{"F16", 1, 2};
  static const DTypeTraits kBF16{"BF16", 1, 2};
  static const DTypeTraits kQ8_0{"Q8_0", kQuantBlockElems, kQ8_0BlockBytes};
  static const DTypeTraits kQ4_0{"Q4_0", kQuantBlockElems, kQ4_0BlockBytes};
  static const DTypeTraits kQ4_1{"Q4_1", kQuantBlockElems, kQ4_1BlockBytes};
  switch (dtype) {
  case LLMC_DTYPE_F32:
    return kF32;
  case LLMC_DTYPE_F16:
    return kF16;
  case LLMC_DTYPE_BF16:
    return kBF16;
  case LLMC_DTYPE_Q8_0:
    return kQ8_0;
  case LLMC_DTYPE_Q4_0:
    return kQ4_0;
  case LLMC_DTYPE_Q4_1:
    return kQ4_1;
  }
  return kF32; // unreachable for valid enum values
}

bool dtype_storage_bytes(llmc_dtype dtype, uint64_t n_elements, uint64_t *bytes) {
  const DTypeTraits &t = dtype_traits(dtype);
  if (n_elements % t.block_elems != 0)
    return false;
  return checked_mul(n_elements / t.block_elems, t.block_bytes, bytes);
}

void convert_to_f32(llmc_dtype dtype, const uint8_t *src, uint64_t n_elements,
                    float *dst) {
  switch (dtype) {
  case LLMC_DTYPE_F32:
    std::memcpy(dst, src, n_elements * sizeof(float));
    return;
  case LLMC_DTYPE_F16:
  case LLMC_DTYPE_BF16:
    for (uint64_t i = 0; i < n_elements; ++i) {
      uint16_t v;
      std::memcpy(&v, src + 2 * i, sizeof v);
      dst[i] = dtype == LLMC_DTYPE_F16 ? f16_to_f32(v) : bf16_to_f32(v);
    }
    return;
  case LLMC_DTYPE_Q8_0:
    dequantize_q8_0(src, n_elements / kQuantBlockElems, dst);
    return;
  case LLMC_DTYPE_Q4_0:
    dequantize_q4_0(src, n_elements / kQuantBlockElems, dst);
    return;
  case LLMC_DTYPE_Q4_1:
    dequantize_q4_1(src, n_elements / kQuantBlockElems, dst);
    return;
  }
}

} // namespace llmc::rt
