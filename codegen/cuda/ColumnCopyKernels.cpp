// tensor.concat and tensor.extract_slice along the last dimension → column-copy kernels.
//
// Multi-head latent attention joins [latent; rope] queries and keys along
// head_dim and takes the latent part of the attention's output back out.
// Both are copies of a run of columns between buffers viewed as (rows,
// width): a concat launches one copy per operand into its columns of the
// result, a slice one copy out of the source's. (A copy of whole rows,
// tensor.extract_slice of the tokens, stays a device-to-device memcpy:
// ExtractRowsLowering.)
#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/LLMToCUDA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc::cuda;

namespace {

/// Threads per block of a column copy.
constexpr int64_t kBlockSize = 256;

/// `buffer` (l..., W) as (Π l, W), the rows dynamic (one kernel for prefill
/// and decode).
Value viewAsRows(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  ReassociationIndices leading;
  for (int64_t d = 0; d + 1 < type.getRank(); ++d)
    leading.push_back(d);
  return withDynamicRows(
      b, loc,
      memref::CollapseShapeOp::create(
          b, loc, buffer,
          SmallVector<ReassociationIndices>{leading, {type.getRank() - 1}}));
}

/// Elements per thread: the widest access (at most 16 bytes) that divides
/// the copied width, both rows' widths and both offsets, so that every
/// vector is aligned on both sides.
int64_t getCopyVector(Type elementType, ArrayRef<int64_t> extents) {
  int64_t vector = 128 / elementType.getIntOrFloatBitWidth();
  while (vector > 1 && llvm::any_of(extents, [&](int64_t e) {
           return e % vector != 0;
         }))
    vector /= 2;
  return vector;
}

/// target[r, targetOffset + c] = source[r, sourceOffset + c] for c <
/// `width`, every row r of source (rows, Ws) and target (rows, Wt), both
/// identity-layout buffers of one element type.
void copyColumns(OpBuilder &builder, Location loc, KernelModule &kernels,
                 Value source, int64_t sourceOffset, Value target,
                 int64_t targetOffset, int64_t width) {
  source = viewAsRows(builder, loc, source);
  target = viewAsRows(builder, loc, target);
  auto sourceType = cast<MemRefType>(source.getType());
  auto targetType = cast<MemRefType>(target.getType());
  Type elementType = sourceType.getElementType();
  int64_t sourceWidth = sourceType.getDimSize(1);
  int64_t targetWidth = targetType.getDimSize(1);
  int64_t vector = getCopyVector(elementType, {width, sourceWidth, targetWidth,
                                               sourceOffset, targetOffset});
  int64_t vectorsPerRow = width / vector;
  std::string name = "copy_columns_" + getTypeTag(elementType) + "_w" +
                     std::to_string(width) + "_from" +
                     std::to_string(sourceWidth) + "at" +
                     std::to_string(sourceOffset) + "_to" +
                     std::to_string(targetWidth) + "at" +
                     std::to_string(targetOffset) + "_v" +
                     std::to_string(vector);
  SmallVector<Value> args = {source, target};
  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location l = func.getLoc();
        DeviceBuilder d(b, l);
        func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
            {static_cast<int32_t>(kBlockSize), 1, 1}));
        Value from = func.getArgument(0), to = func.getArgument(1);
        Value rows = memref::DimOp::create(b, l, to, 0);
        Value item = arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, d.blockId(), d.index(kBlockSize)),
            d.threadId());
        Value row = arith::DivUIOp::create(b, l, item, d.index(vectorsPerRow));
        Value column = arith::MulIOp::create(
            b, l, arith::RemUIOp::create(b, l, item, d.index(vectorsPerRow)),
            d.index(vector));
        Value inRange =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, row, rows);
        auto guard = scf::IfOp::create(b, l, inRange, /*withElse=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
        Value values = d.loadVector(
            VectorType::get({vector}, elementType), from,
            {row, arith::AddIOp::create(b, l, column, d.index(sourceOffset))});
        d.storeVector(values, to,
                      {row, arith::AddIOp::create(b, l, column,
                                                  d.index(targetOffset))});
      });
  Value rows = memref::DimOp::create(builder, loc, target, 0);
  Value items = arith::MulIOp::create(builder, loc, rows,
                                      indexConstant(builder, loc, vectorsPerRow));
  LaunchShape shape;
  shape.grid[0] = ceilDiv(builder, loc, items, kBlockSize);
  shape.block = {kBlockSize, 1, 1};
  emitLaunch(builder, loc, kernel, shape, args);
}

/// The result buffer of a concat: dynamic extents as its first operand's
/// (the leading ones, which every operand shares).
Value allocateLike(OpBuilder &b, Location loc, MemRefType type, Value like) {
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, like, d));
  return allocateResult(b, loc, type, sizes);
}

/// True for an identity-layout buffer of rank >= 2 whose last extent is
/// static.
bool isRowBuffer(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  return type && type.getLayout().isIdentity() && type.getRank() >= 2 &&
         !type.isDynamicDim(type.getRank() - 1);
}

/// tensor.concat along the last dimension: one column copy per operand.
struct ConcatLastLowering : KernelPattern<tensor::ConcatOp> {
  using KernelPattern::KernelPattern;

  LogicalResult
  matchAndRewrite(tensor::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResultType();
    if (static_cast<int64_t>(op.getDim()) != type.getRank() - 1 ||
        !llvm::all_of(adaptor.getInputs(), isRowBuffer))
      return rewriter.notifyMatchFailure(op, "not a concat of rows' columns");
    Location loc = op.getLoc();
    auto resultType =
        cast<MemRefType>(getTypeConverter()->convertType(type));
    Value result =
        allocateLike(rewriter, loc, resultType, adaptor.getInputs().front());
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      int64_t width = cast<MemRefType>(input.getType()).getShape().back();
      copyColumns(rewriter, loc, kernels, input, 0, result, offset, width);
      offset += width;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tensor.extract_slice of columns: whole extents but the last, a static
/// run of the last at unit stride.
struct ExtractColumnsLowering : KernelPattern<tensor::ExtractSliceOp> {
  using KernelPattern::KernelPattern;

  LogicalResult
  matchAndRewrite(tensor::ExtractSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType sourceType = op.getSourceType();
    RankedTensorType resultType = op.getResultType();
    int64_t rank = sourceType.getRank();
    if (resultType.getRank() != rank || rank < 3 || !op.hasUnitStride() ||
        !isRowBuffer(adaptor.getSource()))
      return rewriter.notifyMatchFailure(op, "not a slice of columns");
    // Row r of the result is row r of the source when every leading extent
    // is whole (offset 0, the source's static size) or is a prefix (offset
    // 0) of a dynamic one with only unit extents before it (the tokens of
    // one sequence).
    bool unitPrefix = true;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      bool whole = isConstantIntValue(op.getMixedOffsets()[d], 0) &&
                   (sourceType.isDynamicDim(d)
                        ? unitPrefix
                        : isConstantIntValue(op.getMixedSizes()[d],
                                             sourceType.getDimSize(d)));
      if (!whole)
        return rewriter.notifyMatchFailure(op, "slices a leading dimension");
      unitPrefix &= sourceType.getDimSize(d) == 1;
    }
    std::optional<int64_t> offset =
        getConstantIntValue(op.getMixedOffsets()[rank - 1]);
    if (!offset || resultType.isDynamicDim(rank - 1))
      return rewriter.notifyMatchFailure(op, "dynamic columns");
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(getTypeConverter()->convertType(resultType));
    SmallVector<Value> sizes;
    for (auto [d, size] : llvm::enumerate(op.getMixedSizes()))
      if (resultType.isDynamicDim(d))
        sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
    Value result = allocateResult(rewriter, loc, type, sizes);
    copyColumns(rewriter, loc, kernels, adaptor.getSource(), *offset, result,
                0, resultType.getShape().back());
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void llmc::cuda::populateColumnCopyKernelPatterns(TypeConverter &converter,
                                                  RewritePatternSet &patterns,
                                                  KernelModule &kernels) {
  patterns.add<ConcatLastLowering, ExtractColumnsLowering>(
      converter, patterns.getContext(), kernels);
}
