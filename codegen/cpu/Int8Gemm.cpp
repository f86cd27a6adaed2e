// The prefill GEMM's int8 register tile: weight rows of a block format decoded once into int8 codes and
// scales, multiplied with x rounded to int8 by the CPU's integer dot products, several x rows at a time.
#include "codegen/cpu/Int8Gemm.h"
#include "codegen/cpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc;

namespace {

/// One cache line, like the kernels' other buffers.
constexpr int64_t kBufferAlignment = 64;

VectorType bytesType(OpBuilder &b) {
  return VectorType::get({kInt8DotBytes}, b.getI8Type());
}

Value splatBytes(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(bytesType(b), b.getI8IntegerAttr(value)));
}

/// `lanes` elements of row `row` of the 2-D memref `source` from `column` on.
Value readRow(OpBuilder &b, Location loc, Value source, Value row,
              Value column, int64_t lanes) {
  Type element = cast<MemRefType>(source.getType()).getElementType();
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  return vector::TransferReadOp::create(
      b, loc, VectorType::get({lanes}, element), source,
      ValueRange{row, column},
      AffineMap::getMinorIdentityMap(2, 1, b.getContext()), padding,
      /*mask=*/Value(), b.getBoolArrayAttr({true}));
}

} // namespace

WeightCodeTile llmc::decodeWeightCodeTile(OpBuilder &b, Location loc,
                                          const BlockDecoder &blocks, Value n0,
                                          int64_t rows, int64_t depth,
                                          Int8DotKind kind) {
  assert(depth % kInt8DotBytes == 0 && rows % kInt8PanelRows == 0 &&
         "whole 32-element chunks and whole panels");
  int64_t runs = depth / kActivationSumRun;
  bool offsetCodes = blocks.hasSignedCodes() && kind == Int8DotKind::VNNI;
  auto buffer = [&](int64_t lines, Type element) {
    return memref::AllocOp::create(
               b, loc, MemRefType::get({lines, rows}, element), ValueRange{},
               b.getI64IntegerAttr(kBufferAlignment))
        .getResult();
  };
  WeightCodeTile tile;
  tile.rows = rows;
  tile.signedCodes = blocks.hasSignedCodes() && !offsetCodes;
  tile.sixteenElementRuns = blocks.getScaleRun() < kInt8DotBytes;
  tile.codes = buffer(depth / kInt8GroupElements, b.getI32Type());
  tile.multipliers = buffer(runs, b.getF32Type());
  if (!tile.signedCodes)
    tile.addends = buffer(runs, b.getF32Type());

  int64_t blockElements = blocks.getBlockElements();
  auto wordsType =
      VectorType::get({kInt8DotBytes / kInt8GroupElements}, b.getI32Type());
  scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0),
      indexConstant(b, loc, depth / blockElements), indexConstant(b, loc, 1),
      ValueRange{},
      [&](OpBuilder &nb, Location nloc, Value block, ValueRange) {
        Value start = arith::MulIOp::create(
            nb, nloc, block, indexConstant(nb, nloc, blockElements));
        auto at = [&](int64_t element, int64_t per) {
          return arith::DivUIOp::create(
                     nb, nloc,
                     arith::AddIOp::create(nb, nloc, start,
                                           indexConstant(nb, nloc, element)),
                     indexConstant(nb, nloc, per))
              .getResult();
        };
        for (int64_t j = 0; j < rows; ++j) {
          Value tileRow = indexConstant(nb, nloc, j);
          BlockDecoder::Block rowBlock = blocks.loadBlock(
              nb, nloc, nb.createOrFold<arith::AddIOp>(nloc, n0, tileRow),
              block);
          for (int64_t first = 0; first < blockElements;
               first += kInt8DotBytes) {
            Value codes = blocks.decodeCodes(nb, nloc, rowBlock, first);
            if (offsetCodes) // + 128 as unsigned bytes: the sign bit flipped
              codes = arith::XOrIOp::create(
                  nb, nloc, codes, splatBytes(nb, nloc, -kSignedCodeOffset));
            // Each group of 4 codes to its line of the tile.
            Value words = vector::BitCastOp::create(nb, nloc, wordsType, codes);
            for (int64_t q = 0; q < wordsType.getNumElements(); ++q)
              memref::StoreOp::create(
                  nb, nloc, vector::ExtractOp::create(nb, nloc, words, q),
                  tile.codes,
                  ValueRange{at(first + q * kInt8GroupElements,
                                kInt8GroupElements),
                             tileRow});
            for (int64_t element = first; element < first + kInt8DotBytes;
                 element += kActivationSumRun) {
              auto [multiplier, addend] = blocks.getScale(rowBlock, element);
              if (offsetCodes)
                addend = arith::MulFOp::create(
                    nb, nloc, multiplier,
                    arith::ConstantOp::create(
                        nb, nloc,
                        nb.getF32FloatAttr(-double(kSignedCodeOffset))));
              Value run = at(element, kActivationSumRun);
              memref::StoreOp::create(nb, nloc, multiplier, tile.multipliers,
                                      ValueRange{run, tileRow});
              if (tile.addends)
                memref::StoreOp::create(nb, nloc, addend, tile.addends,
                                        ValueRange{run, tileRow});
            }
          }
        }
        scf::YieldOp::create(nb, nloc);
      });
  return tile;
}

SmallVector<Value> llmc::multiplyWeightCodeTile(
    OpBuilder &b, Location loc, const WeightCodeTile &tile,
    const QuantizedActivations &x, ArrayRef<Value> xRows, int64_t depth,
    Int8DotKind kind) {
  int64_t panels = tile.rows / kInt8PanelRows;
  size_t count = xRows.size() * panels;
  auto accType = VectorType::get({kInt8PanelRows}, b.getF32Type());
  auto wordsType = VectorType::get({kInt8PanelRows}, b.getI32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  // Scale runs per 32-element chunk, and K groups per run.
  int64_t runsPerChunk = tile.sixteenElementRuns ? 2 : 1;
  int64_t groupsPerRun =
      kInt8DotBytes / kInt8GroupElements / runsPerChunk;
  int64_t sumsPerChunk = kInt8DotBytes / kActivationSumRun;

  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0),
      indexConstant(b, loc, depth / kInt8DotBytes), indexConstant(b, loc, 1),
      SmallVector<Value>(count, zero),
      [&](OpBuilder &nb, Location nloc, Value chunk, ValueRange carried) {
        SmallVector<Value> accs(carried);
        auto offset = [&](Value base, int64_t scale, int64_t plus) {
          return arith::AddIOp::create(
                     nb, nloc,
                     arith::MulIOp::create(nb, nloc, base,
                                           indexConstant(nb, nloc, scale)),
                     indexConstant(nb, nloc, plus))
              .getResult();
        };
        for (int64_t h = 0; h < runsPerChunk; ++h) {
          // Σ over the run's groups in int32, one vector per (x row, panel).
          SmallVector<Value> sums(count);
          for (int64_t q = 0; q < groupsPerRun; ++q) {
            Value group = offset(chunk, kInt8DotBytes / kInt8GroupElements,
                                 h * groupsPerRun + q);
            SmallVector<Value> codes, signs;
            for (int64_t p = 0; p < panels; ++p) {
              Value w = vector::BitCastOp::create(
                  nb, nloc, bytesType(nb),
                  readRow(nb, nloc, tile.codes, group,
                          indexConstant(nb, nloc, p * kInt8PanelRows),
                          kInt8PanelRows));
              if (tile.signedCodes) {
                signs.push_back(w);
                w = math::AbsIOp::create(nb, nloc, w);
              }
              codes.push_back(w);
            }
            for (auto [i, xRow] : llvm::enumerate(xRows)) {
              // x's 4 codes of the group, in every lane.
              Value four = readRow(
                  nb, nloc, x.codes, xRow,
                  arith::MulIOp::create(
                      nb, nloc, group,
                      indexConstant(nb, nloc, kInt8GroupElements)),
                  kInt8GroupElements);
              Value word = vector::ExtractOp::create(
                  nb, nloc,
                  vector::BitCastOp::create(
                      nb, nloc, VectorType::get({1}, nb.getI32Type()), four),
                  0);
              Value xs = vector::BitCastOp::create(
                  nb, nloc, bytesType(nb),
                  vector::BroadcastOp::create(nb, nloc, wordsType, word));
              for (int64_t p = 0; p < panels; ++p) {
                Value signedXs = xs;
                if (tile.signedCodes) // |w| times x with w's sign
                  signedXs = applyWeightSigns(nb, nloc, kind, xs, signs[p]);
                Value &sum = sums[i * panels + p];
                sum = createInt8Dot(nb, nloc, kind, codes[p], signedXs, sum);
              }
            }
          }
          // The run's sums times the weight rows' multipliers and x's scale,
          // plus the addends times x's scaled code sums over the run.
          Value run = offset(chunk, sumsPerChunk, h);
          SmallVector<Value> multipliers, addends;
          for (int64_t p = 0; p < panels; ++p) {
            Value column = indexConstant(nb, nloc, p * kInt8PanelRows);
            multipliers.push_back(readRow(nb, nloc, tile.multipliers, run,
                                          column, kInt8PanelRows));
            if (tile.addends)
              addends.push_back(readRow(nb, nloc, tile.addends, run, column,
                                        kInt8PanelRows));
          }
          for (auto [i, xRow] : llvm::enumerate(xRows)) {
            Value scale = vector::BroadcastOp::create(
                nb, nloc, accType,
                loadActivationScale(nb, nloc, x, xRow,
                                    offset(chunk, kInt8DotBytes, 0)));
            Value xSum;
            if (tile.addends) {
              auto load = [&](int64_t k) {
                return memref::LoadOp::create(
                           nb, nloc, x.sums,
                           ValueRange{xRow, offset(chunk, sumsPerChunk, k)})
                    .getResult();
              };
              xSum = tile.sixteenElementRuns
                         ? load(h)
                         : arith::AddFOp::create(nb, nloc, load(0), load(1))
                               .getResult();
              xSum = vector::BroadcastOp::create(nb, nloc, accType, xSum);
            }
            for (int64_t p = 0; p < panels; ++p) {
              Value &acc = accs[i * panels + p];
              Value products = arith::SIToFPOp::create(
                  nb, nloc, accType, sums[i * panels + p]);
              acc = vector::FMAOp::create(
                  nb, nloc, products,
                  arith::MulFOp::create(nb, nloc, multipliers[p], scale), acc);
              if (tile.addends)
                acc = vector::FMAOp::create(nb, nloc, addends[p], xSum, acc);
            }
          }
        }
        scf::YieldOp::create(nb, nloc, accs);
      });

  // Lane l of (x row i, panel p) is tile row p · 8 + l.
  SmallVector<Value> totals;
  for (size_t i = 0; i < xRows.size(); ++i)
    for (int64_t p = 0; p < panels; ++p)
      for (int64_t l = 0; l < kInt8PanelRows; ++l)
        totals.push_back(vector::ExtractOp::create(
            b, loc, loop.getResult(i * panels + p), l));
  return totals;
}
