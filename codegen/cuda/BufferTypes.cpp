// Device-buffer types for tensors and the KV cache, and the tensor view and slice ops on them.
#include "codegen/cuda/KernelModule.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

/// tensor.extract_slice of whole rows (unit strides; only the dimension
/// after the batch sliced: the prefill's last logit_rows tokens) → a fresh
/// buffer and, per batch row, one memref.copy of its rows (contiguous), which
/// the host lowering turns into a device-to-device copy.
struct ExtractRowsLowering : OpConversionPattern<tensor::ExtractSliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::ExtractSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType sourceType = op.getSourceType();
    RankedTensorType resultType = op.getResultType();
    if (sourceType.getRank() != resultType.getRank() ||
        sourceType.getRank() < 2 || !op.hasUnitStride())
      return rewriter.notifyMatchFailure(op, "not a slice of whole rows");
    for (int64_t d = 0; d < sourceType.getRank(); ++d) {
      bool whole = d == 1 || (isConstantIntValue(op.getMixedOffsets()[d], 0) &&
                              !sourceType.isDynamicDim(d) &&
                              resultType.getDimSize(d) == sourceType.getDimSize(d));
      if (!whole)
        return rewriter.notifyMatchFailure(op, "slices a dimension other than 1");
    }
    Location loc = op.getLoc();
    auto type = MemRefType::get(resultType.getShape(),
                                resultType.getElementType());
    SmallVector<Value> dynamicSizes;
    for (auto [d, size] : llvm::enumerate(op.getMixedSizes()))
      if (resultType.isDynamicDim(d))
        dynamicSizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
    Value result = llmc::cuda::allocateResult(rewriter, loc, type, dynamicSizes);
    SmallVector<OpFoldResult> sizes = op.getMixedSizes();
    sizes[0] = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> unitStrides(sizes.size(), rewriter.getIndexAttr(1));
    for (int64_t b = 0; b < sourceType.getDimSize(0); ++b) {
      SmallVector<OpFoldResult> from = op.getMixedOffsets();
      from[0] = rewriter.getIndexAttr(b);
      SmallVector<OpFoldResult> to(sizes.size(), rewriter.getIndexAttr(0));
      to[0] = rewriter.getIndexAttr(b);
      Value source = memref::SubViewOp::create(rewriter, loc, adaptor.getSource(),
                                               from, sizes, unitStrides);
      Value target = memref::SubViewOp::create(rewriter, loc, result, to, sizes,
                                               unitStrides);
      memref::CopyOp::create(rewriter, loc, source, target);
    }
    rewriter.replaceOp(op, result);
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
    // A block-quantized weight is its bytes, (N, rowBytes) i8, as the
    // entry points take it and the block decoders read it.
    type = llm::getWeightStorageType(type);
    return MemRefType::get(type.getShape(), type.getElementType());
  });
  converter.addConversion([](llm::KVCacheType type) -> Type {
    // Either layout: a paged cache's pages, (pages, page_size) per layer
    // and half, take the bytes of the contiguous (batch, capacity); a
    // quantized cache's head rows are head_dim codes and a 4-byte scale.
    int64_t bytes = type.getSizeInBytes();
    return MemRefType::get({bytes},
                           IntegerType::get(type.getContext(), 8));
  });
}

void llmc::cuda::populateTensorViewPatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<ExpandShapeLowering, CollapseShapeLowering, ExtractRowsLowering,
               DimLowering>(
      converter, patterns.getContext());
}
