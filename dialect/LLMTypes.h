// Types of the `llm` dialect.
#ifndef LLMC_DIALECT_LLMTYPES_H
#define LLMC_DIALECT_LLMTYPES_H

#include "dialect/LLMAttrs.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

namespace mlir::llm {
/// Tokens per page of a paged cache unless the type says otherwise: 16 keeps
/// page-table overhead small while wasting at most 15 slots per sequence.
constexpr int64_t kDefaultKVPageSize = 16;

/// The entry points take a paged cache as one buffer: its page table (int32
/// entries, row-major (batch, capacity / page_size)) padded to a multiple of
/// this many bytes, then the keys and values, which stay aligned for any
/// vector access.
constexpr int64_t kPageTableAlignment = 256;

/// Bytes of the page-table header for `entries` entries.
inline int64_t getPageTableBytes(int64_t entries) {
  int64_t bytes = entries * 4;
  return (bytes + kPageTableAlignment - 1) / kPageTableAlignment *
         kPageTableAlignment;
}
} // namespace mlir::llm

#define GET_TYPEDEF_CLASSES
#include "dialect/LLMTypes.h.inc"

namespace mlir::llm {
/// The `!llm.block<...>` element type of a shaped `type`; null for any other
/// type.
BlockQuantType getBlockQuantElementType(Type type);

/// The bytes a block-quantized weight is stored in:
/// tensor<N x K x !llm.block<f>> -> tensor<N x (K / block_elements ·
/// block_bytes) x i8> (K a multiple of the block, as the ops verify); with
/// `interleave = R`, one row of storage per group of R rows: tensor<N / R x
/// (R · K / block_elements · block_bytes) x i8>.
RankedTensorType getBlockStorageType(RankedTensorType type);

/// The `!llm.interleaved<...>` element type of a shaped `type`; null for
/// any other type.
InterleavedFloatType getInterleavedFloatElementType(Type type);

/// What an interleaved float weight is stored in: tensor<N x K x
/// !llm.interleaved<t, rows = R>> -> tensor<N / R x R · K x t> (N a
/// multiple of R, as the ops verify), a row of storage per group.
RankedTensorType getInterleavedFloatStorageType(RankedTensorType type);

/// The type the lowerings give a weight tensor: its storage when its
/// elements are blocks (getBlockStorageType) or interleaved floats
/// (getInterleavedFloatStorageType), else `type` itself.
RankedTensorType getWeightStorageType(RankedTensorType type);
} // namespace mlir::llm

#endif // LLMC_DIALECT_LLMTYPES_H
