// Storage dtypes of tensors: names, block sizes, byte sizes and conversion to f32.
#ifndef LLMC_RUNTIME_DTYPE_H
#define LLMC_RUNTIME_DTYPE_H

#include "llmc/runtime.h"

#include <cstdint>
#include <string>

namespace llmc::rt {

/// Decodes `n_blocks` consecutive blocks of a quantized dtype to f32.
using DequantizeFn = void (*)(const uint8_t *src, uint64_t n_blocks, float *dst);

/// Plain types are blocks of one element; quantized types pack a fixed
/// number of elements per block, which constrains valid row lengths.
struct DTypeTraits {
  const char *name;
  uint32_t block_elems;
  uint32_t block_bytes;
  /// Null for the plain float types, which convert element-wise.
  DequantizeFn dequantize;
};

const DTypeTraits &dtype_traits(llmc_dtype dtype);

/// The dtypes an artifact's weights may have, as its manifest spells them
/// (dtype_traits' names in lower case): the float types, and the GGUF block
/// formats the compiled CPU kernels decode. For messages: "'f32', 'bf16',
/// ... and 'q6_k'".
std::string artifact_dtype_names();

/// Parses a manifest weight dtype (one of artifact_dtype_names()); `block`
/// tells whether it is block-quantized. False for any other name.
bool parse_artifact_dtype(const std::string &name, llmc_dtype *dtype, bool *block);

/// Bytes needed to store `n_elements`; false on overflow or when the count is
/// not a whole number of blocks.
bool dtype_storage_bytes(llmc_dtype dtype, uint64_t n_elements, uint64_t *bytes);

/// Converts `n_elements` stored as `dtype` at `src` (any alignment) to f32.
/// `n_elements` must be a whole number of blocks.
void convert_to_f32(llmc_dtype dtype, const uint8_t *src, uint64_t n_elements,
                    float *dst);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_DTYPE_H
