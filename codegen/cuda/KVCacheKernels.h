// The KV cache's device layout, shared by the kernels that write it (kv_append, rope_append).
#ifndef LLMC_CODEGEN_CUDA_KVCACHEKERNELS_H
#define LLMC_CODEGEN_CUDA_KVCACHEKERNELS_H

#include "codegen/cuda/DeviceBuilder.h"
#include "dialect/LLMTypes.h"

#include "mlir/IR/OpDefinition.h"

#include <utility>

namespace llmc::cuda {

/// Index of the keys (0) and values (1) in the cache's leading dimension.
enum CacheHalf : int64_t { kKeys = 0, kValues = 1 };

/// One layer's keys or values: memref<(batch, capacity, kv_heads,
/// head_dim)> over the cache bytes, starting at byte
/// ((half · layers + layer) · batch · capacity · kv_heads · head_dim) · size.
mlir::Value viewCacheLayer(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::llm::KVCacheType cacheType,
                           mlir::Value cacheBytes, mlir::OpFoldResult layer,
                           CacheHalf half);

/// (a, b, c, d) → (a·b, c·d): tokens × heads·head_dim rows, or a layer view
/// as (batch·capacity) cache rows.
mlir::Value collapseHeads(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value buffer);

/// The op's layer: the converted index operand, or the constant.
template <typename OpTy>
mlir::OpFoldResult getLayer(OpTy op, typename OpTy::Adaptor adaptor) {
  if (op.getLayerIndex())
    return adaptor.getLayerIndex();
  return op.getLayerValue();
}

/// Inside a kernel: the cache row of `token` (batch · capacity +
/// positions[token], tokens laid out (batch, seq) row-major) and whether it
/// lies inside the capacity; rows past it are not written (the runtime
/// checks positions before a call).
std::pair<mlir::Value, mlir::Value> emitCacheRow(DeviceBuilder &d,
                                                 int64_t batch,
                                                 int64_t capacity,
                                                 mlir::Value positions,
                                                 mlir::Value token);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_KVCACHEKERNELS_H
