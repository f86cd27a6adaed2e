// Lowers llm.rope (half / interleaved, every scaling kind, partial rotary) to linalg.generic ops.
#include "codegen/common/RopeFrequencies.h"
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/LoweringUtils.h"
#include "dialect/LLMAttrs.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// The sequence length of the call, L = max(positions) + 1, as an f64
/// value: what the per-call kinds choose their frequencies from.
Value createSequenceLength(OpBuilder &b, Location loc, Value positions) {
  MLIRContext *context = b.getContext();
  auto positionsType = cast<RankedTensorType>(positions.getType());
  auto intType = cast<IntegerType>(positionsType.getElementType());

  // max over every position (positions are signed).
  Value lowest = arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(intType, APInt::getSignedMinValue(intType.getWidth())));
  Value maxInit = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, intType);
  maxInit = linalg::FillOp::create(b, loc, lowest, maxInit).getResult(0);
  auto identity = AffineMap::getMultiDimIdentityMap(2, context);
  auto scalarMap = AffineMap::get(2, 0, {}, context);
  Value maxTensor =
      linalg::GenericOp::create(
          b, loc, TypeRange{maxInit.getType()}, ValueRange{positions},
          ValueRange{maxInit}, {identity, scalarMap},
          {utils::IteratorType::reduction, utils::IteratorType::reduction},
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(
                nb, nloc,
                arith::MaxSIOp::create(nb, nloc, args[0], args[1]).getResult());
          })
          .getResult(0);
  Value maxPosition = tensor::ExtractOp::create(b, loc, maxTensor, ValueRange{});
  return arith::AddFOp::create(
      b, loc, arith::SIToFPOp::create(b, loc, b.getF64Type(), maxPosition),
      arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0)));
}

/// The per-call inverse frequencies (d/2,) f32 of dynamic NTK and longrope
/// from the call's sequence length L = max(positions) + 1.
/// Dynamic NTK: θ' = θ·(factor·L/M − factor + 1)^(d/(d−2)) when L > M, θ
/// otherwise; inv_freq[i] = exp(−(2i/d)·ln θ'), in f64 like the static
/// tables. longrope: the short- or long-factor table, both baked in.
Value createPerCallInverseFrequencies(OpBuilder &b, Location loc,
                                      Value positions, double theta,
                                      int64_t rotaryDim,
                                      llm::RopeScalingAttrInterface scaling) {
  MLIRContext *context = b.getContext();
  Type f32 = b.getF32Type();
  Value length = createSequenceLength(b, loc, positions);
  int64_t half = rotaryDim / 2;

  Value logTheta, tables, offset;
  if (auto longrope = dyn_cast<llm::RopeLongropeAttr>(scaling)) {
    SmallVector<float> values =
        llmc::getLongropeInverseFrequencies(theta, rotaryDim, longrope);
    tables = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({2 * half}, f32),
                               ArrayRef<float>(values)));
    offset =
        llmc::createLongropeTableOffset(b, loc, length, rotaryDim, longrope);
  } else {
    logTheta = llmc::createDynamicNtkLogTheta(
        b, loc, length, theta, rotaryDim, cast<llm::RopeDynamicAttr>(scaling));
  }

  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{half}, f32);
  auto vectorMap = AffineMap::getMultiDimIdentityMap(1, context);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{},
             ValueRange{init}, {vectorMap}, {utils::IteratorType::parallel},
             [&](OpBuilder &nb, Location nloc, ValueRange) {
               Value i = linalg::IndexOp::create(nb, nloc, 0);
               Value invFreq;
               if (tables) {
                 invFreq = tensor::ExtractOp::create(
                     nb, nloc, tables,
                     ValueRange{arith::AddIOp::create(nb, nloc, offset, i)});
               } else {
                 invFreq = llmc::createDynamicInverseFrequency(
                     nb, nloc, logTheta,
                     arith::IndexCastOp::create(nb, nloc, nb.getI64Type(), i),
                     rotaryDim);
               }
               linalg::YieldOp::create(nb, nloc, invFreq);
             })
      .getResult(0);
}

struct RopeOpLowering : OpConversionPattern<llm::RopeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(llm::RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value x = adaptor.getX(), positions = adaptor.getPositions();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    Type f32 = rewriter.getF32Type();
    Type computeType = llmc::getComputeType(elementType);
    double theta = op.getTheta().convertToDouble();
    int64_t rotaryDim = op.getRotaryDim();
    int64_t half = rotaryDim / 2;
    llm::RopeScalingAttrInterface scaling = op.getScalingAttr();
    bool interleaved = op.getStyle() == llm::RopeStyle::interleaved;

    // NTK exponents d/(d−2) are infinite for a single rotated pair.
    if (llmc::usesNtkExponent(scaling) && rotaryDim == 2)
      return rewriter.notifyMatchFailure(op, "NTK scaling needs rotary_dim > 2");

    // 1. inv_freq (d/2,) f32: a constant table unless it depends on L.
    Value invFreq;
    if (llmc::choosesFrequenciesPerCall(scaling)) {
      invFreq = createPerCallInverseFrequencies(rewriter, loc, positions,
                                                theta, rotaryDim, scaling);
    } else {
      SmallVector<float> values =
          llmc::getStaticInverseFrequencies(theta, rotaryDim, scaling);
      auto tableType = RankedTensorType::get({half}, f32);
      invFreq = arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(tableType, ArrayRef<float>(values)));
    }
    double attentionFactor = llmc::getRopeAttentionFactor(scaling);

    // 2. cos/sin tables (B, T, d/2): one angle per position and frequency,
    // shared by every head and both members of a pair.
    SmallVector<OpFoldResult> tableSizes =
        tensor::getMixedSizes(rewriter, loc, positions);
    tableSizes.push_back(rewriter.getIndexAttr(half));
    Value cosInit = tensor::EmptyOp::create(rewriter, loc, tableSizes, f32);
    Value sinInit = tensor::EmptyOp::create(rewriter, loc, tableSizes, f32);
    auto tableType = cast<RankedTensorType>(cosInit.getType());
    auto bt = AffineMap::get(3, 0,
                             {rewriter.getAffineDimExpr(0),
                              rewriter.getAffineDimExpr(1)},
                             context);
    auto i = AffineMap::get(3, 0, rewriter.getAffineDimExpr(2), context);
    auto bti = AffineMap::getMultiDimIdentityMap(3, context);
    auto tables = linalg::GenericOp::create(
        rewriter, loc, TypeRange{tableType, tableType},
        ValueRange{positions, invFreq}, ValueRange{cosInit, sinInit},
        {bt, i, bti, bti}, SmallVector<utils::IteratorType>(
                               3, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value position = arith::SIToFPOp::create(b, l, f32, args[0]);
          Value angle = arith::MulFOp::create(b, l, position, args[1]);
          Value cos = math::CosOp::create(b, l, angle);
          Value sin = math::SinOp::create(b, l, angle);
          if (attentionFactor != 1.0) { // yarn, longrope
            Value scale = arith::ConstantOp::create(
                b, l, b.getF32FloatAttr(static_cast<float>(attentionFactor)));
            cos = arith::MulFOp::create(b, l, cos, scale);
            sin = arith::MulFOp::create(b, l, sin, scale);
          }
          linalg::YieldOp::create(b, l, ValueRange{cos, sin});
        });
    Value cosTable = tables.getResult(0), sinTable = tables.getResult(1);

    // 3. The rotation, one generic over x: element j pairs with a partner
    // p(j) read by tensor.extract (the pairing is not an affine map of the
    // output index for `half` within the rotary part only).
    bool partial = type.isDynamicDim(3) || type.getDimSize(3) != rotaryDim;
    Value init = llmc::createEmptyLike(rewriter, loc, type, x);
    auto identity = AffineMap::getMultiDimIdentityMap(4, context);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{x}, ValueRange{init},
        {identity, identity},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto index = [&](int64_t value) -> Value {
            return arith::ConstantIndexOp::create(b, l, value);
          };
          Value bIdx = linalg::IndexOp::create(b, l, 0);
          Value tIdx = linalg::IndexOp::create(b, l, 1);
          Value hIdx = linalg::IndexOp::create(b, l, 2);
          Value j = linalg::IndexOp::create(b, l, 3);

          // first: j is the pair member that subtracts partner·sin.
          Value first, freq, partner;
          if (interleaved) {
            Value one = index(1);
            first = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq,
                arith::AndIOp::create(b, l, j, one), index(0));
            freq = arith::DivUIOp::create(b, l, j, index(2));
            partner = arith::XOrIOp::create(b, l, j, one);
          } else {
            Value halfIdx = index(half);
            first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j,
                                          halfIdx);
            Value upper = arith::SubIOp::create(b, l, j, halfIdx);
            freq = arith::SelectOp::create(b, l, first, j, upper);
            partner = arith::SelectOp::create(
                b, l, first, arith::AddIOp::create(b, l, j, halfIdx), upper);
          }
          Value rotated;
          if (partial) {
            // Past rotary_dim: keep table and partner reads in bounds; the
            // element itself is passed through below.
            rotated = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, j,
                                            index(rotaryDim));
            freq = arith::SelectOp::create(b, l, rotated, freq, index(0));
            partner = arith::SelectOp::create(b, l, rotated, partner, j);
          }

          Value cos = tensor::ExtractOp::create(
              b, l, cosTable, ValueRange{bIdx, tIdx, freq});
          Value sin = tensor::ExtractOp::create(
              b, l, sinTable, ValueRange{bIdx, tIdx, freq});
          cos = llmc::convertFloat(b, l, cos, computeType);
          sin = llmc::convertFloat(b, l, sin, computeType);
          Value self = llmc::convertFloat(b, l, args[0], computeType);
          Value other = llmc::convertFloat(
              b, l,
              tensor::ExtractOp::create(b, l, x,
                                        ValueRange{bIdx, tIdx, hIdx, partner}),
              computeType);
          // out = self·cos ∓ other·sin (minus for the first member).
          Value signedSin = arith::SelectOp::create(
              b, l, first, arith::NegFOp::create(b, l, sin), sin);
          Value out = arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, self, cos),
              arith::MulFOp::create(b, l, other, signedSin));
          out = llmc::convertFloat(b, l, out, elementType);
          if (partial)
            out = arith::SelectOp::create(b, l, rotated, out, args[0]);
          linalg::YieldOp::create(b, l, out);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void llmc::populateRopeToLinalgPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<RopeOpLowering>(converter, patterns.getContext());
}
