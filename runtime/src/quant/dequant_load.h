// Little-endian loads of the fields of a GGUF quantization block (blocks are packed, so nothing is aligned).
#ifndef LLMC_RUNTIME_DEQUANT_LOAD_H
#define LLMC_RUNTIME_DEQUANT_LOAD_H

#include "half.h"

#include <cstdint>
#include <cstring>

namespace llmc::rt {

/// GGUF is little-endian (big-endian files are refused at open) and so are
/// the hosts the runtime builds for; memcpy keeps unaligned loads legal.
inline uint16_t load_le16(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline uint32_t load_le32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Block scales are IEEE halves; the widening is exact, as in the reference.
inline float load_f16(const uint8_t *p) { return f16_to_f32(load_le16(p)); }

} // namespace llmc::rt

#endif // LLMC_RUNTIME_DEQUANT_LOAD_H
