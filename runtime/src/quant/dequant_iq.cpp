// Dequantization of ggml IQ4_NL blocks to f32 (layout in dequant_iq.h).
#include "dequant_iq.h"

#include "dequant_load.h"

namespace llmc::rt {

namespace {
/// The 16 levels of IQ4_NL (kvalues_iq4nl in ggml), a fact of the format:
/// denser near zero, where trained weights cluster.
constexpr int8_t kIQ4_NLLevels[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                      1,    13,   25,  38,  53,  69,  89,  113};
constexpr uint32_t kHalfBlock = kIQ4_NLBlockElems / 2;
} // namespace

void dequantize_iq4_nl(const uint8_t *src, uint64_t n_blocks, float *dst) {
  for (uint64_t b = 0; b < n_blocks; ++b, src += kIQ4_NLBlockBytes) {
    float d = load_f16(src);
    const uint8_t *qs = src + 2;
    for (uint32_t j = 0; j < kIQ4_NLBlockElems; ++j) {
      uint32_t index = j < kHalfBlock ? qs[j] & 0x0fu : qs[j - kHalfBlock] >> 4;
      *dst++ = d * static_cast<float>(kIQ4_NLLevels[index]);
    }
  }
}

} // namespace llmc::rt
