// Fuzz target: the dequantizers fed arbitrary blocks, and the quantizers fed what they decode.
#include "dtype.h"
#include "fuzz_check.h"
#include "quant/dequant.h"
#include "quant/quantize.h"

#include <vector>

namespace {

/// LLMC_DTYPE_IQ4_NL is the last of llmc_dtype's values.
constexpr int kDTypeCount = LLMC_DTYPE_IQ4_NL + 1;

} // namespace

/// The first byte picks the dtype; the whole blocks of the rest are decoded.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  auto dtype = static_cast<llmc_dtype>(data[0] % kDTypeCount);
  const llmc::rt::DTypeTraits &traits = llmc::rt::dtype_traits(dtype);
  const uint8_t *blocks = data + 1;
  uint64_t n_blocks = (size - 1) / traits.block_bytes;
  if (n_blocks == 0)
    return 0; // the runtime never converts an empty tensor
  uint64_t n_elements = n_blocks * traits.block_elems;
  uint64_t n_bytes = 0;
  LLMC_FUZZ_CHECK(llmc::rt::dtype_storage_bytes(dtype, n_elements, &n_bytes));
  LLMC_FUZZ_CHECK(n_bytes == n_blocks * traits.block_bytes);

  // Exactly sized, so that ASan sees a write past the last element.
  std::vector<uint8_t> src(blocks, blocks + n_bytes);
  std::vector<float> values(n_elements);
  llmc::rt::convert_to_f32(dtype, src.data(), n_elements, values.data());

  // Decoded values include inf, NaN and huge magnitudes (any f16 scale,
  // any f32 bits): quantizing them as --weight-type=q8_0 and its siblings
  // do must never convert an out-of-range float to an integer (UB).
  if (n_elements % llmc::rt::kQuantBlockElems != 0)
    return 0;
  for (int d = 0; d < kDTypeCount; ++d) {
    auto target = static_cast<llmc_dtype>(d);
    if (!llmc::rt::can_quantize(target))
      continue;
    const llmc::rt::DTypeTraits &out = llmc::rt::dtype_traits(target);
    uint64_t out_blocks = n_elements / out.block_elems;
    std::vector<uint8_t> quantized(out_blocks * out.block_bytes);
    llmc::rt::quantize_blocks(target, values.data(), out_blocks,
                              quantized.data());
  }
  return 0;
}
