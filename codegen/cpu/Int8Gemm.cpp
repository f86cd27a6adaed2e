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

/// `base` · scale + plus, as an index.
Value scaledIndex(OpBuilder &b, Location loc, Value base, int64_t scale,
                  int64_t plus) {
  return arith::AddIOp::create(
             b, loc,
             arith::MulIOp::create(b, loc, base, indexConstant(b, loc, scale)),
             indexConstant(b, loc, plus))
      .getResult();
}

/// Panel p's codes of K group `group`: 4 codes of each of its 8 rows.
Value readPanelCodes(OpBuilder &b, Location loc, const WeightCodeTile &tile,
                     Value group, int64_t p) {
  return vector::BitCastOp::create(
      b, loc, bytesType(b),
      readRow(b, loc, tile.codes, group,
              indexConstant(b, loc, p * kInt8PanelRows), kInt8PanelRows));
}

/// x row `xRow`'s 4 codes of K group `group`, in every lane.
Value broadcastGroupCodes(OpBuilder &b, Location loc,
                          const QuantizedActivations &x, Value xRow,
                          Value group) {
  Value four = readRow(b, loc, x.codes, xRow,
                       scaledIndex(b, loc, group, kInt8GroupElements, 0),
                       kInt8GroupElements);
  Value word = vector::ExtractOp::create(
      b, loc,
      vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()),
                                four),
      0);
  return vector::BitCastOp::create(
      b, loc, bytesType(b),
      vector::BroadcastOp::create(
          b, loc, VectorType::get({kInt8PanelRows}, b.getI32Type()), word));
}

/// The f32 totals of the accumulators of (x row i, panel p), indexed
/// i · panels + p: lane l of each is tile row p · 8 + l.
SmallVector<Value> extractRowTotals(OpBuilder &b, Location loc,
                                    ValueRange accumulators) {
  SmallVector<Value> totals;
  for (Value accumulator : accumulators)
    for (int64_t l = 0; l < kInt8PanelRows; ++l)
      totals.push_back(vector::ExtractOp::create(b, loc, accumulator, l));
  return totals;
}

/// multiplyWeightCodeTile for K-quant tiles (tile.runWeights): per block,
/// the products of each scale run weighted by their rows' run scales and
/// added in int32 over the block, then converted once and scaled by the
/// rows' d times x's scale of the block; the addends meet x's code sums per
/// run. With VNNI, VPDPBUSD sums a whole scale run's products in int32 (32
/// elements, q6_k's 16) and the run's sums are weighted once (VPMULLD):
/// per 32 elements of Q4_K 8 dot instructions and 2 to weight them,
/// instead of 8 pair sums (VPMADDUBSW) each weighted by VPMADDWD. Without
/// it each dot's int16 pair sums (a row's two pairs of a group) are
/// weighted (createWeightedInt8Dot).
SmallVector<Value> multiplyIntegerRuns(OpBuilder &b, Location loc,
                                       const WeightCodeTile &tile,
                                       const QuantizedActivations &x,
                                       ArrayRef<Value> xRows, int64_t depth,
                                       Int8DotKind kind) {
  int64_t panels = tile.rows / kInt8PanelRows;
  size_t count = xRows.size() * panels;
  int64_t blockElements = x.scaleBlock;
  auto accType = VectorType::get({kInt8PanelRows}, b.getF32Type());
  auto sumType = VectorType::get({kInt8PanelRows}, b.getI32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  Value zeroSums = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(sumType, b.getI32IntegerAttr(0)));
  bool wholeRuns = kind == Int8DotKind::VNNI;
  // The stretch of K one weighting covers: a scale run with VNNI (the run
  // weights are stored per 16 elements, equal within a 32-element run),
  // else the 16 elements of a code sum; runs of x's code sums within it.
  int64_t weightedRun = wholeRuns && !tile.sixteenElementRuns
                            ? kInt8DotBytes
                            : kActivationSumRun;
  int64_t weightedRunsPerChunk = kInt8DotBytes / weightedRun;
  int64_t groupsPerWeightedRun = weightedRun / kInt8GroupElements;
  int64_t sumRunsPerWeightedRun = weightedRun / kActivationSumRun;
  // Pair 2r and 2r + 1 of a dot are tile row r's.
  SmallVector<int64_t> rowPairs;
  for (int64_t r = 0; r < kInt8PanelRows; ++r)
    rowPairs.append({r, r});

  auto blockLoop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0),
      indexConstant(b, loc, depth / blockElements), indexConstant(b, loc, 1),
      SmallVector<Value>(count, zero),
      [&](OpBuilder &bb, Location bloc, Value block, ValueRange blockAccs) {
        SmallVector<Value> init(blockAccs);
        init.append(count, zeroSums);
        auto chunkLoop = scf::ForOp::create(
            bb, bloc,
            scaledIndex(bb, bloc, block, blockElements / kInt8DotBytes, 0),
            scaledIndex(bb, bloc, block, blockElements / kInt8DotBytes,
                        blockElements / kInt8DotBytes),
            indexConstant(bb, bloc, 1), init,
            [&](OpBuilder &nb, Location nloc, Value chunk,
                ValueRange carried) {
              SmallVector<Value> accs(carried.take_front(count));
              SmallVector<Value> sums(carried.drop_front(count));
              for (int64_t h = 0; h < weightedRunsPerChunk; ++h) {
                // The first code-sum run of this weighted run.
                Value run = scaledIndex(nb, nloc, chunk,
                                        kInt8DotBytes / kActivationSumRun,
                                        h * sumRunsPerWeightedRun);
                SmallVector<Value> weights, addends;
                for (int64_t p = 0; p < panels; ++p) {
                  Value column = indexConstant(nb, nloc, p * kInt8PanelRows);
                  Value scales = readRow(nb, nloc, tile.runWeights, run,
                                         column, kInt8PanelRows);
                  weights.push_back(
                      wholeRuns
                          ? arith::ExtSIOp::create(nb, nloc, sumType, scales)
                                .getResult()
                          : vector::ShuffleOp::create(nb, nloc, scales,
                                                      scales, rowPairs)
                                .getResult());
                  addends.push_back(readRow(nb, nloc, tile.addends, run,
                                            column, kInt8PanelRows));
                }
                // With VNNI the run's unweighted sums, else `sums` itself.
                SmallVector<Value> runSums(count);
                for (int64_t q = 0; q < groupsPerWeightedRun; ++q) {
                  Value group = scaledIndex(
                      nb, nloc, run, kActivationSumRun / kInt8GroupElements,
                      q);
                  SmallVector<Value> codes;
                  for (int64_t p = 0; p < panels; ++p)
                    codes.push_back(readPanelCodes(nb, nloc, tile, group, p));
                  for (auto [i, xRow] : llvm::enumerate(xRows)) {
                    Value xs = broadcastGroupCodes(nb, nloc, x, xRow, group);
                    for (int64_t p = 0; p < panels; ++p) {
                      size_t index = i * panels + p;
                      if (wholeRuns)
                        runSums[index] = createInt8Dot(nb, nloc, kind, codes[p],
                                                       xs, runSums[index]);
                      else
                        sums[index] = createWeightedInt8Dot(
                            nb, nloc, codes[p], xs, weights[p], sums[index]);
                    }
                  }
                }
                for (auto [i, xRow] : llvm::enumerate(xRows)) {
                  // The run's addends times x's scaled code sum over it.
                  Value xSum;
                  for (int64_t r = 0; r < sumRunsPerWeightedRun; ++r) {
                    Value part = memref::LoadOp::create(
                        nb, nloc, x.sums,
                        ValueRange{xRow, scaledIndex(nb, nloc, run, 1, r)});
                    xSum = xSum ? arith::AddFOp::create(nb, nloc, xSum, part)
                                      .getResult()
                                : part;
                  }
                  xSum = vector::BroadcastOp::create(nb, nloc, accType, xSum);
                  for (int64_t p = 0; p < panels; ++p) {
                    size_t index = i * panels + p;
                    if (wholeRuns)
                      sums[index] = arith::AddIOp::create(
                          nb, nloc, sums[index],
                          arith::MulIOp::create(nb, nloc, runSums[index],
                                                weights[p]));
                    accs[index] = vector::FMAOp::create(
                        nb, nloc, addends[p], xSum, accs[index]);
                  }
                }
              }
              SmallVector<Value> results(accs);
              results.append(sums);
              scf::YieldOp::create(nb, nloc, results);
            });
        // The block's sums times the rows' d and x's scale of the block.
        SmallVector<Value> accs(chunkLoop.getResults().take_front(count));
        SmallVector<Value> blockScales;
        for (int64_t p = 0; p < panels; ++p)
          blockScales.push_back(
              readRow(bb, bloc, tile.blockScales, block,
                      indexConstant(bb, bloc, p * kInt8PanelRows),
                      kInt8PanelRows));
        for (auto [i, xRow] : llvm::enumerate(xRows)) {
          Value scale = vector::BroadcastOp::create(
              bb, bloc, accType,
              loadActivationScale(
                  bb, bloc, x, xRow,
                  scaledIndex(bb, bloc, block, blockElements, 0)));
          for (int64_t p = 0; p < panels; ++p) {
            Value &acc = accs[i * panels + p];
            Value products = arith::SIToFPOp::create(
                bb, bloc, accType, chunkLoop.getResult(count + i * panels + p));
            acc = vector::FMAOp::create(
                bb, bloc, products,
                arith::MulFOp::create(bb, bloc, blockScales[p], scale), acc);
          }
        }
        scf::YieldOp::create(bb, bloc, accs);
      });
  return extractRowTotals(b, loc, blockLoop.getResults());
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
  int64_t blockElements = blocks.getBlockElements();
  bool integerRuns = blocks.getRunsPerBlock() > 1;
  if (integerRuns) {
    tile.runWeights = buffer(runs, b.getI16Type());
    tile.blockScales = buffer(depth / blockElements, b.getF32Type());
  } else {
    tile.multipliers = buffer(runs, b.getF32Type());
  }
  if (!tile.signedCodes)
    tile.addends = buffer(runs, b.getF32Type());

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
        // Per panel of 8 rows: each 32-element chunk's codes of the 8 rows
        // (8 words of 4 codes each) transposed in registers, so that each
        // K group's line gets the panel's 8 words in one store.
        for (int64_t p = 0; p < rows / kInt8PanelRows; ++p) {
          SmallVector<BlockDecoder::Block> rowBlocks;
          // The K-quants: per row its integer run scales and its runs'
          // addends as vectors (converted in vector ops, not per run).
          SmallVector<Value> tileRows, integerScales, runAddends;
          for (int64_t r = 0; r < kInt8PanelRows; ++r) {
            Value tileRow = indexConstant(nb, nloc, p * kInt8PanelRows + r);
            tileRows.push_back(tileRow);
            rowBlocks.push_back(blocks.loadBlock(
                nb, nloc, nb.createOrFold<arith::AddIOp>(nloc, n0, tileRow),
                block));
            if (integerRuns) {
              BlockDecoder::IntegerScales integers =
                  blocks.getIntegerScales(nb, nloc, rowBlocks.back());
              integerScales.push_back(integers.scales);
              runAddends.push_back(
                  blocks.getScaleVectors(nb, nloc, rowBlocks.back(), integers)
                      .second);
              memref::StoreOp::create(
                  nb, nloc, blocks.getSuperBlockScale(rowBlocks.back()),
                  tile.blockScales, ValueRange{block, tileRow});
            }
          }
          for (int64_t first = 0; first < blockElements;
               first += kInt8DotBytes) {
            SmallVector<Value> rowWords;
            for (const BlockDecoder::Block &rowBlock : rowBlocks) {
              Value codes = blocks.decodeCodes(nb, nloc, rowBlock, first);
              if (offsetCodes) // + 128 as unsigned bytes: the sign bit flipped
                codes = arith::XOrIOp::create(
                    nb, nloc, codes, splatBytes(nb, nloc, -kSignedCodeOffset));
              rowWords.push_back(
                  vector::BitCastOp::create(nb, nloc, wordsType, codes));
            }
            SmallVector<Value> lines = transposeRows(nb, nloc, rowWords);
            for (auto [q, line] : llvm::enumerate(lines))
              vector::StoreOp::create(
                  nb, nloc, line, tile.codes,
                  ValueRange{at(first + q * kInt8GroupElements,
                                kInt8GroupElements),
                             tileRows.front()});
            for (auto [r, rowBlock] : llvm::enumerate(rowBlocks)) {
              for (int64_t element = first; element < first + kInt8DotBytes;
                   element += kActivationSumRun) {
                Value run = at(element, kActivationSumRun);
                Value addend;
                if (integerRuns) {
                  int64_t scaleRun = element / blocks.getScaleRun();
                  memref::StoreOp::create(
                      nb, nloc,
                      arith::TruncIOp::create(
                          nb, nloc, nb.getI16Type(),
                          vector::ExtractOp::create(nb, nloc, integerScales[r],
                                                    scaleRun)),
                      tile.runWeights, ValueRange{run, tileRows[r]});
                  if (tile.addends)
                    addend = vector::ExtractOp::create(nb, nloc, runAddends[r],
                                                       scaleRun);
                } else {
                  Value multiplier;
                  std::tie(multiplier, addend) =
                      blocks.getScale(rowBlock, element);
                  if (offsetCodes)
                    addend = arith::MulFOp::create(
                        nb, nloc, multiplier,
                        arith::ConstantOp::create(
                            nb, nloc,
                            nb.getF32FloatAttr(-double(kSignedCodeOffset))));
                  memref::StoreOp::create(nb, nloc, multiplier,
                                          tile.multipliers,
                                          ValueRange{run, tileRows[r]});
                }
                if (tile.addends)
                  memref::StoreOp::create(nb, nloc, addend, tile.addends,
                                          ValueRange{run, tileRows[r]});
              }
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
  if (tile.runWeights)
    return multiplyIntegerRuns(b, loc, tile, x, xRows, depth, kind);
  int64_t panels = tile.rows / kInt8PanelRows;
  size_t count = xRows.size() * panels;
  auto accType = VectorType::get({kInt8PanelRows}, b.getF32Type());
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
        for (int64_t h = 0; h < runsPerChunk; ++h) {
          // Σ over the run's groups in int32, one vector per (x row, panel).
          SmallVector<Value> sums(count);
          for (int64_t q = 0; q < groupsPerRun; ++q) {
            Value group =
                scaledIndex(nb, nloc, chunk, kInt8DotBytes / kInt8GroupElements,
                            h * groupsPerRun + q);
            SmallVector<Value> codes, signs;
            for (int64_t p = 0; p < panels; ++p) {
              Value w = readPanelCodes(nb, nloc, tile, group, p);
              if (tile.signedCodes) {
                signs.push_back(w);
                w = math::AbsIOp::create(nb, nloc, w);
              }
              codes.push_back(w);
            }
            for (auto [i, xRow] : llvm::enumerate(xRows)) {
              Value xs = broadcastGroupCodes(nb, nloc, x, xRow, group);
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
          Value run = scaledIndex(nb, nloc, chunk, sumsPerChunk, h);
          SmallVector<Value> multipliers, addends;
          for (int64_t p = 0; p < panels; ++p) {
            Value column = indexConstant(nb, nloc, p * kInt8PanelRows);
            multipliers.push_back(readRow(nb, nloc, tile.multipliers, run,
                                          column, kInt8PanelRows));
            if (tile.addends)
              addends.push_back(
                  readRow(nb, nloc, tile.addends, run, column, kInt8PanelRows));
          }
          for (auto [i, xRow] : llvm::enumerate(xRows)) {
            Value scale = vector::BroadcastOp::create(
                nb, nloc, accType,
                loadActivationScale(
                    nb, nloc, x, xRow,
                    scaledIndex(nb, nloc, chunk, kInt8DotBytes, 0)));
            Value xSum;
            if (tile.addends) {
              auto load = [&](int64_t k) {
                return memref::LoadOp::create(
                           nb, nloc, x.sums,
                           ValueRange{xRow, scaledIndex(nb, nloc, chunk,
                                                        sumsPerChunk, k)})
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
  return extractRowTotals(b, loc, loop.getResults());
}
