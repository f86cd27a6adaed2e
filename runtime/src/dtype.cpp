// Dtype table and the dispatch from storage dtype to the right f32 conversion.
#include "dtype.h"

#include "checked_math.h"
#include "quant/dequant.h"
#include "quant/dequant_iq.h"
#include "quant/dequant_kquants.h"
#include "half.h"

#include <cctype>
#include <cstring>
#include <iterator>

namespace llmc::rt {

const DTypeTraits &dtype_traits(llmc_dtype dtype) {
  static const DTypeTraits kF32{"F32", 1, 4, nullptr};
  static const DTypeTraits kF16{"F16", 1, 2, nullptr};
  static const DTypeTraits kBF16{"BF16", 1, 2, nullptr};
  static const DTypeTraits kQ8_0{"Q8_0", kQuantBlockElems, kQ8_0BlockBytes, dequantize_q8_0};
  static const DTypeTraits kQ4_0{"Q4_0", kQuantBlockElems, kQ4_0BlockBytes, dequantize_q4_0};
  static const DTypeTraits kQ4_1{"Q4_1", kQuantBlockElems, kQ4_1BlockBytes, dequantize_q4_1};
  static const DTypeTraits kQ5_0{"Q5_0", kQuantBlockElems, kQ5_0BlockBytes, dequantize_q5_0};
  static const DTypeTraits kQ5_1{"Q5_1", kQuantBlockElems, kQ5_1BlockBytes, dequantize_q5_1};
  static const DTypeTraits kQ2_K{"Q2_K", kSuperBlockElems, kQ2_KBlockBytes, dequantize_q2_k};
  static const DTypeTraits kQ3_K{"Q3_K", kSuperBlockElems, kQ3_KBlockBytes, dequantize_q3_k};
  static const DTypeTraits kQ4_K{"Q4_K", kSuperBlockElems, kQ4_KBlockBytes, dequantize_q4_k};
  static const DTypeTraits kQ5_K{"Q5_K", kSuperBlockElems, kQ5_KBlockBytes, dequantize_q5_k};
  static const DTypeTraits kQ6_K{"Q6_K", kSuperBlockElems, kQ6_KBlockBytes, dequantize_q6_k};
  static const DTypeTraits kIQ4_NL{"IQ4_NL", kIQ4_NLBlockElems, kIQ4_NLBlockBytes,
                                   dequantize_iq4_nl};
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
  case LLMC_DTYPE_Q5_0:
    return kQ5_0;
  case LLMC_DTYPE_Q5_1:
    return kQ5_1;
  case LLMC_DTYPE_Q2_K:
    return kQ2_K;
  case LLMC_DTYPE_Q3_K:
    return kQ3_K;
  case LLMC_DTYPE_Q4_K:
    return kQ4_K;
  case LLMC_DTYPE_Q5_K:
    return kQ5_K;
  case LLMC_DTYPE_Q6_K:
    return kQ6_K;
  case LLMC_DTYPE_IQ4_NL:
    return kIQ4_NL;
  }
  return kF32; // unreachable for valid enum values
}

namespace {
/// The dtypes compiled code reads; manifests spell them as dtype_traits
/// names them, in lower case.
constexpr llmc_dtype kArtifactDTypes[] = {
    LLMC_DTYPE_F32,  LLMC_DTYPE_BF16, LLMC_DTYPE_F16,  LLMC_DTYPE_Q8_0,
    LLMC_DTYPE_Q4_0, LLMC_DTYPE_Q4_1, LLMC_DTYPE_Q5_0, LLMC_DTYPE_Q5_1,
    LLMC_DTYPE_Q4_K, LLMC_DTYPE_Q5_K, LLMC_DTYPE_Q6_K,
};

std::string lower_case_name(llmc_dtype dtype) {
  std::string name = dtype_traits(dtype).name;
  for (char &c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}
} // namespace

std::string artifact_dtype_names() {
  std::string names;
  size_t count = std::size(kArtifactDTypes);
  for (size_t i = 0; i < count; ++i)
    names += (i == 0 ? "'" : i + 1 == count ? " and '" : ", '") +
             lower_case_name(kArtifactDTypes[i]) + "'";
  return names;
}

bool parse_artifact_dtype(const std::string &name, llmc_dtype *dtype, bool *block) {
  for (llmc_dtype entry : kArtifactDTypes)
    if (name == lower_case_name(entry)) {
      *dtype = entry;
      *block = dtype_traits(entry).dequantize != nullptr;
      return true;
    }
  return false;
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
  default: {
    const DTypeTraits &t = dtype_traits(dtype);
    t.dequantize(src, n_elements / t.block_elems, dst);
    return;
  }
  }
}

} // namespace llmc::rt
