// Device-buffer types for tensors and the KV cache, and the tensor view ops on them.
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

struct ExpandShapeLowering : OpConversionPattern<tensor::ExpandShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::ExpandShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<memref::ExpandShapeOp>(
        op, type, adaptor.getSrc(), op.getReassociationIndices(),
        op.getMixedOutputShape());
    return success();
  }
};

struct CollapseShapeLowering : OpConversionPattern<tensor::CollapseShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::CollapseShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::CollapseShapeOp>(
        op, adaptor.getSrc(), op.getReassociationIndices());
    return success();
  }
};

struct DimLowering : OpConversionPattern<tensor::DimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::DimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<memref::DimOp>(op, adaptor.getSource(),
                                               adaptor.getIndex());
    return success();
  }
};

} // namespace

void llmc::cuda::addTypeConversions(TypeConverter &converter) {
  converter.addConversion([](Type type) { return type; });
  converter.addConversion([](RankedTensorType type) -> Type {
    return MemRefType::get(type.getShape(), type.getElementType());
  });
  converter.addConversion([](llm::KVCacheType type) -> Type {
    // Either layout: a paged cache's pages, (pages, page_size) per layer
    // and half, take the bytes of the contiguous (batch, capacity).
    int64_t elements = 2 * type.getLayers() * type.getBatch() *
                       type.getCapacity() * type.getKvHeads() *
                       type.getHeadDim();
    int64_t bytes =
        elements * (type.getElementType().getIntOrFloatBitWidth() / 8);
    return MemRefType::get({bytes},
                           IntegerType::get(type.getContext(), 8));
  });
}

void llmc::cuda::populateTensorViewPatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<ExpandShapeLowering, CollapseShapeLowering, DimLowering>(
      converter, patterns.getContext());
}
