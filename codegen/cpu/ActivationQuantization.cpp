// Rounds the rows of a projection's input to int8 in blocks of 32 elements (or of a K-quant's 256) sharing one
// scale, for the int8 dot products with block-quantized weights.
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
                                               int64_t depth,
                                               int64_t scaleBlock) {
  assert(scaleBlock % kActivationBlock == 0 && depth % scaleBlock == 0 &&
         "rows of whole scale blocks of whole blocks");
  int64_t chunks = scaleBlock / kActivationBlock;
  auto buffer = [&](int64_t columns, Type element) {
    return memref::AllocOp::create(
               b, loc, MemRefType::get({ShapedType::kDynamic, columns}, element),
               ValueRange{rows}, b.getI64IntegerAttr(kBufferAlignment))
        .getResult();
  };
  QuantizedActivations q;
  q.codes = buffer(depth, b.getI8Type());
  q.scales = buffer(depth / scaleBlock, b.getF32Type());
  q.sums = buffer(depth / kActivationSumRun, b.getF32Type());
  q.scaleBlock = scaleBlock;

  Type xElement = cast<ShapedType>(x.getType()).getElementType();
  auto xVector = VectorType::get({kActivationBlock}, xElement);
  auto f32Vector = VectorType::get({kActivationBlock}, b.getF32Type());
  auto i32Vector = VectorType::get({kActivationBlock}, b.getI32Type());
  auto rowMap = AffineMap::getMinorIdentityMap(2, 1, b.getContext());
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  scf::buildLoopNest(
      b, loc, ValueRange{zero, zero},
      ValueRange{rows, indexConstant(b, loc, depth / scaleBlock)},
      ValueRange{one, one},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        Value row = ivs[0], block = ivs[1];
        auto f32Constant = [&](double value) {
          return arith::ConstantOp::create(nb, nloc, nb.getF32FloatAttr(value))
              .getResult();
        };
        // The first column of the scale block's chunk c.
        auto chunkColumn = [&](int64_t c) {
          return arith::AddIOp::create(
                     nb, nloc,
                     arith::MulIOp::create(nb, nloc, block,
                                           indexConstant(nb, nloc, scaleBlock)),
                     indexConstant(nb, nloc, c * kActivationBlock))
              .getResult();
        };
        auto readChunk = [&](int64_t c) {
          Value padding = arith::ConstantOp::create(
              nb, nloc, nb.getFloatAttr(xElement, 0.0));
          Value values = vector::TransferReadOp::create(
              nb, nloc, xVector, x, ValueRange{row, chunkColumn(c)}, rowMap,
              padding, /*mask=*/Value(), nb.getBoolArrayAttr({true}));
          if (!xElement.isF32())
            values = arith::ExtFOp::create(nb, nloc, f32Vector, values);
          return values;
        };
        // max|x| over the scale block's chunks (read again below, from L1).
        Value largest;
        for (int64_t c = 0; c < chunks; ++c) {
          Value chunkLargest = vector::ReductionOp::create(
              nb, nloc, vector::CombiningKind::MAXNUMF,
              math::AbsFOp::create(nb, nloc, readChunk(c)));
          largest = largest ? arith::MaxNumFOp::create(nb, nloc, largest,
                                                       chunkLargest)
                                  .getResult()
                            : chunkLargest;
        }
        Value scale =
            arith::DivFOp::create(nb, nloc, largest, f32Constant(kMaxCode));
        // 127 / max|x|, or 0 for an all-zero block (whose codes are then 0).
        Value nonzero = arith::CmpFOp::create(
            nb, nloc, arith::CmpFPredicate::OGT, largest, f32Constant(0));
        Value inverse = arith::SelectOp::create(
            nb, nloc, nonzero,
            arith::DivFOp::create(nb, nloc, f32Constant(kMaxCode), largest),
            f32Constant(0));
        memref::StoreOp::create(nb, nloc, scale, q.scales,
                                ValueRange{row, block});
        for (int64_t c = 0; c < chunks; ++c) {
          Value column = chunkColumn(c);
          Value scaled = arith::MulFOp::create(
              nb, nloc, readChunk(c),
              vector::BroadcastOp::create(nb, nloc, f32Vector, inverse));
          Value codes = arith::FPToSIOp::create(
              nb, nloc, i32Vector, math::RoundEvenOp::create(nb, nloc, scaled));
          Value bytes = arith::TruncIOp::create(
              nb, nloc, VectorType::get({kActivationBlock}, nb.getI8Type()),
              codes);
          vector::TransferWriteOp::create(nb, nloc, bytes, q.codes,
                                          ValueRange{row, column}, rowMap,
                                          ArrayRef<bool>{true});
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
            Value index = arith::DivUIOp::create(
                nb, nloc,
                arith::AddIOp::create(
                    nb, nloc, column,
                    indexConstant(nb, nloc, half * kActivationSumRun)),
                indexConstant(nb, nloc, kActivationSumRun));
            memref::StoreOp::create(nb, nloc, scaledSum, q.sums,
                                    ValueRange{row, index});
          }
        }
      });
  return q;
}

Value llmc::loadActivationScale(OpBuilder &b, Location loc,
                                const QuantizedActivations &x, Value row,
                                Value column) {
  Value block = arith::DivUIOp::create(b, loc, column,
                                      indexConstant(b, loc, x.scaleBlock));
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

QuantizedActivations QuantizedActivationCache::getOrQuantize(
    OpBuilder &b, Location loc, Value x, Value rows2d, Value rows,
    int64_t depth, int64_t scaleBlock) {
  auto [entry, inserted] = quantized.try_emplace({x, scaleBlock});
  if (!inserted) {
    // Usable where its buffers (written right after they were allocated)
    // come before the insertion point in the same block.
    Operation *codes = entry->second.codes.getDefiningOp();
    Block *block = b.getInsertionBlock();
    if (codes && codes->getBlock() == block &&
        (b.getInsertionPoint() == block->end() ||
         codes->isBeforeInBlock(&*b.getInsertionPoint())))
      return entry->second;
  }
  entry->second = quantizeActivations(b, loc, rows2d, rows, depth, scaleBlock);
  return entry->second;
}
