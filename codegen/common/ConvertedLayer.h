// The layer a KV-cache op addresses, in IR being converted: shared by the CPU and CUDA lowerings.
#ifndef LLMC_CODEGEN_COMMON_CONVERTEDLAYER_H
#define LLMC_CODEGEN_COMMON_CONVERTEDLAYER_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/Transforms/DialectConversion.h"

namespace llmc {

/// The layer of `op` (llm.kv_append, llm.rope_append, llm.kv_view): its
/// converted layer-index operand, or its constant layer.
template <typename OpTy>
mlir::OpFoldResult getConvertedLayer(OpTy op,
                                     typename OpTy::Adaptor adaptor) {
  if (op.getLayerIndex())
    return adaptor.getLayerIndex();
  return op.getLayerValue();
}

/// The same for an op that is not the one being rewritten (the paged
/// llm.kv_view that an llm.attention reads): the layer-index operand as the
/// rewriter has remapped it, null when it has not been converted yet.
template <typename OpTy>
mlir::OpFoldResult getConvertedLayer(OpTy op,
                                     mlir::ConversionPatternRewriter &rewriter) {
  if (mlir::Value index = op.getLayerIndex())
    return rewriter.getRemappedValue(index);
  return op.getLayerValue();
}

} // namespace llmc

#endif // LLMC_CODEGEN_COMMON_CONVERTEDLAYER_H
