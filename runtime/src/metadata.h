// Typed key/value metadata values (GGUF's value model) and their checked accessors.
#ifndef LLMC_RUNTIME_METADATA_H
#define LLMC_RUNTIME_METADATA_H

#include "llmc/runtime.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace llmc::rt {

/// One metadata value. GGUF's value model is used for every format because
/// it is the richest of the three; strings and scalar arrays are views into
/// the mapped file (or into WeightSet-owned storage), so a 32000-entry
/// vocabulary costs one vector of views, not 32000 copies.
struct MetaValue {
  llmc_meta_type type = LLMC_META_UINT8;
  /// Scalars: unsigned types in `u`, signed types and bool in `i`, floats in
  /// `f` (widened so accessors need not switch on width).
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  std::string_view str; // LLMC_META_STRING

  // LLMC_META_ARRAY
  llmc_meta_type elem_type = LLMC_META_UINT8;
  uint64_t count = 0;
  const uint8_t *raw = nullptr;        // fixed-size elements, little-endian
  std::vector<std::string_view> strings; // elem_type == STRING
  std::vector<MetaValue> items;          // elem_type == ARRAY (nested)
};

/// Size in bytes of a fixed-size scalar type; 0 for STRING and ARRAY.
uint32_t meta_scalar_size(llmc_meta_type type);
const char *meta_type_name(llmc_meta_type type);
bool meta_type_valid(uint32_t type);

/// Decodes one little-endian fixed-size scalar of `type` at `p` into `out`.
void meta_decode_scalar(llmc_meta_type type, const uint8_t *p, MetaValue *out);

/// Accessors throw Error with `key` in the message: LLMC_ERR_INVALID_ARGUMENT
/// for a type mismatch, LLMC_ERR_OUT_OF_RANGE for an index or value that does
/// not fit.
int64_t meta_as_int(const MetaValue &v, std::string_view key);
double meta_as_float(const MetaValue &v, std::string_view key);
std::string_view meta_as_string(const MetaValue &v, std::string_view key);
MetaValue meta_array_element(const MetaValue &v, uint64_t index,
                             std::string_view key);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_METADATA_H
