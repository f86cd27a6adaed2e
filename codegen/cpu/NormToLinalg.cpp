// Lowers llm.rms_norm and llm.layer_norm to row-reduction + element-wise linalg.generic ops.
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/LoweringUtils.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// Indexing maps of a norm over the last of `rank` loop dimensions.
struct NormMaps {
  AffineMap full; // x and the result: every dimension
  AffineMap row;  // per-row statistics: every dimension but the last
  AffineMap last; // weight and bias: the last dimension only
};

NormMaps getNormMaps(OpBuilder &b, int64_t rank) {
  MLIRContext *context = b.getContext();
  NormMaps maps;
  maps.full = b.getMultiDimIdentityMap(rank);
  maps.row = AffineMap::get(rank, 0,
                            maps.full.getResults().drop_back(), context);
  maps.last = AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1), context);
  return maps;
}

/// 1 / (extent of x's last dimension) as a scalar of `type`: a constant when
/// the extent is static, computed from tensor.dim otherwise.
Value createInverseExtent(OpBuilder &b, Location loc, Value x, Type type) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t last = xType.getRank() - 1;
  if (!xType.isDynamicDim(last))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(type, 1.0 / double(xType.getDimSize(last))));
  Value extent = tensor::DimOp::create(b, loc, x, last);
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), extent);
  Value asFloat = arith::UIToFPOp::create(b, loc, type, asInt);
  Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 1.0));
  return arith::DivFOp::create(b, loc, one, asFloat);
}

/// Σ over x's last dimension of `term(x_c, rowArgs...)`, accumulated in
/// `accType` into a tensor of x's shape without the last dimension.
/// `rowInputs` are per-row tensors (that shape) passed to `term`.
Value createRowSum(
    OpBuilder &b, Location loc, Value x, Type accType, ValueRange rowInputs,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange)> term) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes.pop_back();
  Value init = tensor::EmptyOp::create(b, loc, sizes, accType);
  init = llmc::createFilled(b, loc, init, 0.0);

  NormMaps maps = getNormMaps(b, rank);
  SmallVector<Value> inputs{x};
  llvm::append_range(inputs, rowInputs);
  SmallVector<AffineMap> indexingMaps{maps.full};
  indexingMaps.append(rowInputs.size() + 1, maps.row);
  SmallVector<utils::IteratorType> iterators(rank - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
      indexingMaps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value xc = llmc::convertFloat(nb, nloc, args[0], accType);
        Value value = term(nb, nloc, xc, args.slice(1, rowInputs.size()));
        linalg::YieldOp::create(
            nb, nloc,
            arith::AddFOp::create(nb, nloc, args.back(), value).getResult());
      });
  return generic.getResult(0);
}

struct RMSNormOpLowering : OpConversionPattern<llm::RMSNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::RMSNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), weight = adaptor.getWeight();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    Type accType = llmc::getComputeType(elementType);
    int64_t rank = type.getRank();

    Value sumSquares = createRowSum(
        rewriter, loc, x, accType, {},
        [](OpBuilder &b, Location l, Value xc, ValueRange) -> Value {
          return arith::MulFOp::create(b, l, xc, xc);
        });
    Value inverseExtent = createInverseExtent(rewriter, loc, x, accType);
    Value eps = arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getFloatAttr(accType, op.getEps().convertToDouble()));
    double weightOffset = op.getWeightOffset().convertToDouble();
    Value offset =
        weightOffset == 0.0
            ? Value()
            : arith::ConstantOp::create(
                  rewriter, loc, rewriter.getFloatAttr(accType, weightOffset));

    NormMaps maps = getNormMaps(rewriter, rank);
    Value init = llmc::createEmptyLike(rewriter, loc, type, x);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{x, sumSquares, weight},
        ValueRange{init}, {maps.full, maps.row, maps.last, maps.full},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          // x · rsqrt(Σx²/D + eps) · (w + offset), all in accType.
          Value xc = llmc::convertFloat(b, l, args[0], accType);
          Value mean = arith::MulFOp::create(b, l, args[1], inverseExtent);
          Value scale = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, mean, eps));
          Value w = llmc::convertFloat(b, l, args[2], accType);
          if (offset)
            w = arith::AddFOp::create(b, l, w, offset);
          Value normed = arith::MulFOp::create(
              b, l, arith::MulFOp::create(b, l, xc, scale), w);
          linalg::YieldOp::create(
              b, l, llmc::convertFloat(b, l, normed, elementType));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct LayerNormOpLowering : OpConversionPattern<llm::LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), weight = adaptor.getWeight();
    Value bias = adaptor.getBias();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    Type accType = llmc::getComputeType(elementType);
    int64_t rank = type.getRank();
    Value inverseExtent = createInverseExtent(rewriter, loc, x, accType);

    // Two passes (mean, then Σ(x − mean)²) rather than E[x²] − E[x]², which
    // cancels catastrophically when |mean| ≫ std.
    Value sum = createRowSum(
        rewriter, loc, x, accType, {},
        [](OpBuilder &, Location, Value xc, ValueRange) { return xc; });
    Value sumSquaredDeviations = createRowSum(
        rewriter, loc, x, accType, {sum},
        [&](OpBuilder &b, Location l, Value xc, ValueRange row) -> Value {
          Value mean = arith::MulFOp::create(b, l, row[0], inverseExtent);
          Value dev = arith::SubFOp::create(b, l, xc, mean);
          return arith::MulFOp::create(b, l, dev, dev);
        });
    Value eps = arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getFloatAttr(accType, op.getEps().convertToDouble()));

    NormMaps maps = getNormMaps(rewriter, rank);
    SmallVector<Value> inputs{x, sum, sumSquaredDeviations, weight};
    SmallVector<AffineMap> indexingMaps{maps.full, maps.row, maps.row,
                                        maps.last};
    if (bias) {
      inputs.push_back(bias);
      indexingMaps.push_back(maps.last);
    }
    indexingMaps.push_back(maps.full);
    Value init = llmc::createEmptyLike(rewriter, loc, type, x);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, inputs, ValueRange{init},
        indexingMaps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          // (x − mean) · rsqrt(var + eps) · w (+ bias), all in accType.
          Value xc = llmc::convertFloat(b, l, args[0], accType);
          Value mean = arith::MulFOp::create(b, l, args[1], inverseExtent);
          Value var = arith::MulFOp::create(b, l, args[2], inverseExtent);
          Value scale = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, var, eps));
          Value w = llmc::convertFloat(b, l, args[3], accType);
          Value normed = arith::MulFOp::create(
              b, l,
              arith::MulFOp::create(
                  b, l, arith::SubFOp::create(b, l, xc, mean), scale),
              w);
          if (bias)
            normed = arith::AddFOp::create(
                b, l, normed, llmc::convertFloat(b, l, args[4], accType));
          linalg::YieldOp::create(
              b, l, llmc::convertFloat(b, l, normed, elementType));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void llmc::populateNormToLinalgPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<RMSNormOpLowering, LayerNormOpLowering>(converter,
                                                       patterns.getContext());
}
