// Rounds the rows of a projection's input to int8 in 32-element blocks, for the int8 dot products with
// block-quantized weights.
#include "codegen/cpu/ActivationQuantization.h"
#include "codegen/cpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc;

namespace {

/// The largest code: symmetric, so that −x rounds to −code.
constexpr double kMaxCode = 127.0;
/// One cache line, like the kernels' other buffers.
constexpr int64_t kBufferAlignment = 64;

} // namespace

QuantizedActivations llmc::quantizeActivations(OpBuilder &b, Location loc,
                                               Value x, Value rows,
                                               int64_t depth) {
  assert(depth % kActivationBlock == 0 && "rows of whole blocks");
  int64_t blocks = depth / kActivationBlock;
  auto buffer = [&](int64_t columns, Type element) {
    return memref::AllocOp::create(
               b, loc, MemRefType::get({ShapedType::kDynamic, columns}, element),
               ValueRange{rows}, b.getI64IntegerAttr(kBufferAlignment))
        .getResult();
  };
  QuantizedActivations q;
  q.codes = buffer(depth, b.getI8Type());
  q.scales = buffer(blocks, b.getF32Type());
  q.sums = buffer(depth / kActivationSumRun, b.getF32Type());

  Type xElement = cast<ShapedType>(x.getType()).getElementType();
  auto xVector = VectorType::get({kActivationBlock}, xElement);
  auto f32Vector = VectorType::get({kActivationBlock}, b.getF32Type());
  auto i32Vector = VectorType::get({kActivationBlock}, b.getI32Type());
  auto rowMap = AffineMap::getMinorIdentityMap(2, 1, b.getContext());
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  scf::buildLoopNest(
      b, loc, ValueRange{zero, zero},
      ValueRange{rows, indexConstant(b, loc, blocks)}, ValueRange{one, one},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        Value row = ivs[0], block = ivs[1];
        Value column = arith::MulIOp::create(
            nb, nloc, block, indexConstant(nb, nloc, kActivationBlock));
        Value padding = arith::ConstantOp::create(
            nb, nloc, nb.getFloatAttr(xElement, 0.0));
        Value values = vector::TransferReadOp::create(
            nb, nloc, xVector, x, ValueRange{row, column}, rowMap, padding,
            /*mask=*/Value(), nb.getBoolArrayAttr({true}));
        if (!xElement.isF32())
          values = arith::ExtFOp::create(nb, nloc, f32Vector, values);
        Value largest = vector::ReductionOp::create(
            nb, nloc, vector::CombiningKind::MAXNUMF,
            math::AbsFOp::create(nb, nloc, values));
        Value scale = arith::DivFOp::create(
            nb, nloc, largest,
            arith::ConstantOp::create(nb, nloc, nb.getF32FloatAttr(kMaxCode)));
        // 127 / max|x|, or 0 for an all-zero block (whose codes are then 0).
        Value zeroF = arith::ConstantOp::create(nb, nloc, nb.getF32FloatAttr(0));
        Value nonzero = arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::OGT,
                                              largest, zeroF);
        Value inverse = arith::SelectOp::create(
            nb, nloc, nonzero,
            arith::DivFOp::create(
                nb, nloc,
                arith::ConstantOp::create(nb, nloc, nb.getF32FloatAttr(kMaxCode)),
                largest),
            zeroF);
        Value scaled = arith::MulFOp::create(
            nb, nloc, values,
            vector::BroadcastOp::create(nb, nloc, f32Vector, inverse));
        Value codes = arith::FPToSIOp::create(
            nb, nloc, i32Vector, math::RoundEvenOp::create(nb, nloc, scaled));
        Value bytes = arith::TruncIOp::create(
            nb, nloc, VectorType::get({kActivationBlock}, nb.getI8Type()),
            codes);
        vector::TransferWriteOp::create(nb, nloc, bytes, q.codes,
                                        ValueRange{row, column}, rowMap,
                                        ArrayRef<bool>{true});
        memref::StoreOp::create(nb, nloc, scale, q.scales,
                                ValueRange{row, block});
        // scale · Σ codes over each 16-element half.
        for (int64_t half = 0; half < kActivationBlock / kActivationSumRun;
             ++half) {
          Value part = vector::ExtractStridedSliceOp::create(
              nb, nloc, codes, ArrayRef<int64_t>{half * kActivationSumRun},
              ArrayRef<int64_t>{kActivationSumRun}, ArrayRef<int64_t>{1});
          Value sum = vector::ReductionOp::create(
              nb, nloc, vector::CombiningKind::ADD, part);
          Value scaledSum = arith::MulFOp::create(
              nb, nloc,
              arith::SIToFPOp::create(nb, nloc, nb.getF32Type(), sum), scale);
          Value index = arith::AddIOp::create(
              nb, nloc,
              arith::MulIOp::create(
                  nb, nloc, block,
                  indexConstant(nb, nloc,
                                kActivationBlock / kActivationSumRun)),
              indexConstant(nb, nloc, half));
          memref::StoreOp::create(nb, nloc, scaledSum, q.sums,
                                  ValueRange{row, index});
        }
      });
  return q;
}

Value llmc::loadActivationScale(OpBuilder &b, Location loc,
                                const QuantizedActivations &x, Value row,
                                Value column) {
  Value block = arith::DivUIOp::create(
      b, loc, column, indexConstant(b, loc, kActivationBlock));
  return memref::LoadOp::create(b, loc, x.scales, ValueRange{row, block});
}

Value llmc::loadActivationBlockSum(OpBuilder &b, Location loc,
                                   const QuantizedActivations &x, Value row,
                                   Value column) {
  static_assert(kActivationBlock == 2 * kActivationSumRun,
                "a block is two runs of code sums");
  Value first = arith::DivUIOp::create(
      b, loc, column, indexConstant(b, loc, kActivationSumRun));
  Value second = arith::AddIOp::create(b, loc, first, indexConstant(b, loc, 1));
  return arith::AddFOp::create(
      b, loc, memref::LoadOp::create(b, loc, x.sums, ValueRange{row, first}),
      memref::LoadOp::create(b, loc, x.sums, ValueRange{row, second}));
}
