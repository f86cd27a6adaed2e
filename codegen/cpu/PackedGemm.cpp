// The float GEMM and GEMV as outer products of x elements and weight panels: packed per projection, or stored in interleaved groups.
#include "codegen/cpu/PackedGemm.h"
#include "codegen/cpu/BF16Dot.h"
#include "codegen/cpu/LoweringUtils.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc;

namespace {

/// Alignment of the panel buffer: one cache line.
constexpr int64_t kPanelAlignment = 64;

/// Packs a block of a panel: columns [k0, k0 + elements) of its group of
/// rows `group`, read masked by `mask` (null: whole blocks).
using PackBlockFn = llvm::function_ref<void(OpBuilder &, Location,
                                            int64_t group, Value k0,
                                            int64_t elements, Value mask)>;

/// Calls packBlock for each of `groups` groups of panel rows over K = depth
/// in blocks of blockElements columns: the whole blocks in an scf.for, then
/// the depth % blockElements tail with a mask of that many elements.
void packPanelBlocks(OpBuilder &b, Location loc, int64_t groups, int64_t depth,
                     int64_t blockElements, PackBlockFn packBlock) {
  int64_t depthMain = depth / blockElements * blockElements;
  for (int64_t group = 0; group < groups; ++group) {
    if (depthMain > 0)
      scf::ForOp::create(
          b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, depthMain),
          indexConstant(b, loc, blockElements), ValueRange{},
          [&](OpBuilder &fb, Location floc, Value k0, ValueRange) {
            packBlock(fb, floc, group, k0, blockElements, Value());
            scf::YieldOp::create(fb, floc);
          });
    if (depth > depthMain) {
      Value mask = vector::CreateMaskOp::create(
          b, loc, VectorType::get({blockElements}, b.getI1Type()),
          ValueRange{indexConstant(b, loc, depth - depthMain)});
      packBlock(b, loc, group, indexConstant(b, loc, depthMain),
                depth - depthMain, mask);
    }
  }
}

/// The step of a panel tile's K loop: the sums of the tile's `rows` (x row
/// i's for each of the panel's vectors, row-major) updated with K step `k`.
using PanelStepFn = llvm::function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value k, ArrayRef<Value> rows, ValueRange sums)>;

/// out[m + i, n0 + v·lanes, +lanes) for i < xRows and v < vectors, loaded
/// into registers (or, given initialSums, started from initialSums[v] for
/// every row), carried through an scf.for over the K steps [k0, k1) that
/// `step` accumulates into, and stored back: the frame of both panel
/// kernels.
void accumulatePanelTile(OpBuilder &b, Location loc, Value out, Value m,
                         Value n0, int64_t xRows, int64_t vectors,
                         int64_t lanes, Value k0, Value k1,
                         ValueRange initialSums, PanelStepFn step) {
  assert((initialSums.empty() || (int64_t)initialSums.size() == vectors) &&
         "one initial sum per panel vector");
  auto sumType = VectorType::get({lanes}, b.getF32Type());
  SmallVector<Value> rows, columns;
  for (int64_t i = 0; i < xRows; ++i)
    rows.push_back(
        i == 0 ? m : arith::AddIOp::create(b, loc, m, indexConstant(b, loc, i)));
  for (int64_t v = 0; v < vectors; ++v)
    columns.push_back(
        v == 0 ? n0
               : arith::AddIOp::create(b, loc, n0,
                                       indexConstant(b, loc, v * lanes)));
  SmallVector<Value> sums;
  for (Value row : rows)
    for (auto [v, column] : llvm::enumerate(columns))
      sums.push_back(initialSums.empty()
                         ? vector::LoadOp::create(b, loc, sumType, out,
                                                  ValueRange{row, column})
                               .getResult()
                         : initialSums[v]);
  auto loop = scf::ForOp::create(
      b, loc, k0, k1, indexConstant(b, loc, 1), sums,
      [&](OpBuilder &fb, Location floc, Value k, ValueRange carried) {
        scf::YieldOp::create(fb, floc, step(fb, floc, k, rows, carried));
      });
  for (auto [i, row] : llvm::enumerate(rows))
    for (auto [v, column] : llvm::enumerate(columns))
      vector::StoreOp::create(b, loc, loop.getResult(i * vectors + v), out,
                              ValueRange{row, column});
}

} // namespace

/// The broadcast of x[row, k] widened to f32 across `lanes` lanes.
static Value broadcastElement(OpBuilder &b, Location loc, Value x, Value row,
                              Value k, int64_t lanes) {
  Value element = tensor::ExtractOp::create(b, loc, x, ValueRange{row, k});
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({lanes}, b.getF32Type()),
      convertFloat(b, loc, element, b.getF32Type()));
}

Value llmc::packWeightPanel(OpBuilder &b, Location loc, Value rows, Value n0,
                            int64_t panelRows, int64_t depth, int64_t lanes) {
  assert(panelRows % lanes == 0 && "whole groups of lanes rows");
  Value panel = memref::AllocOp::create(
      b, loc, MemRefType::get({depth, panelRows}, b.getF32Type()),
      ValueRange{}, b.getI64IntegerAttr(kPanelAlignment));
  // Columns [k0, k0 + count) of the panel's rows group * lanes + i.
  auto packBlock = [&](OpBuilder &pb, Location ploc, int64_t group, Value k0,
                       int64_t count, Value mask) {
    SmallVector<Value> vectors;
    for (int64_t i = 0; i < lanes; ++i) {
      Value row = arith::AddIOp::create(
          pb, ploc, n0, indexConstant(pb, ploc, group * lanes + i));
      vectors.push_back(readWidenedRowVector(pb, ploc, rows, row, k0, mask, lanes));
    }
    SmallVector<Value> columns = transposeRows(pb, ploc, vectors);
    for (int64_t t = 0; t < count; ++t) {
      Value k = arith::AddIOp::create(pb, ploc, k0, indexConstant(pb, ploc, t));
      vector::StoreOp::create(
          pb, ploc, columns[t], panel,
          ValueRange{k, indexConstant(pb, ploc, group * lanes)});
    }
  };
  packPanelBlocks(b, loc, panelRows / lanes, depth, lanes, packBlock);
  return panel;
}

void llmc::multiplyPackedPanel(OpBuilder &b, Location loc, Value x,
                               Value panel, Value out, Value m, Value n0,
                               int64_t xRows, int64_t lanes, Value k0,
                               Value k1, ValueRange initialSums) {
  int64_t vectors = cast<MemRefType>(panel.getType()).getDimSize(1) / lanes;
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  accumulatePanelTile(
      b, loc, out, m, n0, xRows, vectors, lanes, k0, k1, initialSums,
      [&](OpBuilder &fb, Location floc, Value k, ArrayRef<Value> rows,
          ValueRange sums) {
        SmallVector<Value> weights;
        for (int64_t v = 0; v < vectors; ++v)
          weights.push_back(vector::LoadOp::create(
              fb, floc, vectorType, panel,
              ValueRange{k, indexConstant(fb, floc, v * lanes)}));
        SmallVector<Value> updated;
        for (Value row : rows) {
          Value broadcast = broadcastElement(fb, floc, x, row, k, lanes);
          for (int64_t v = 0; v < vectors; ++v)
            updated.push_back(vector::FMAOp::create(
                fb, floc, weights[v], broadcast, sums[updated.size()]));
        }
        return updated;
      });
}

/// The offset in a row of interleaved groups' storage of the run that
/// starts at column k (a multiple of the runs' columns): k · R.
static Value getGroupColumnOffset(OpBuilder &b, Location loc, Value k) {
  return arith::MulIOp::create(
      b, loc, k, indexConstant(b, loc, llm::InterleavedFloatType::kGroupRows));
}

/// The bf16 run at `offset` of the interleaved group `group` of `groups`
/// (`columns = 2`): its R rows' two columns, row r's at 2r and 2r + 1, as
/// VDPBF16PS takes an operand.
static Value readGroupPairs(OpBuilder &b, Location loc, Value groups,
                            Value group, Value offset) {
  constexpr int64_t lanes = llm::InterleavedFloatType::kGroupRows;
  Type bf16 = b.getBF16Type();
  return vector::TransferReadOp::create(
      b, loc, VectorType::get({2 * lanes}, bf16), groups,
      ValueRange{group, offset},
      AffineMap::getMinorIdentityMap(2, 1, b.getContext()),
      arith::ConstantOp::create(b, loc, b.getFloatAttr(bf16, 0.0)), Value(),
      b.getBoolArrayAttr({true}));
}

/// The run at `offset` (getGroupColumnOffset) of the interleaved group
/// `group` of `groups` ([N / R, R · K]), `columns` columns of its R rows:
/// one vector<R x f32> per column, widened. A bf16 pair's even column is
/// the low half of each 32-bit lane shifted up, its odd column the high
/// half with the low bits cleared: the bits of the f32 values.
static SmallVector<Value> readGroupColumns(OpBuilder &b, Location loc,
                                           Value groups, Value group,
                                           Value offset, int64_t columns) {
  constexpr int64_t lanes = llm::InterleavedFloatType::kGroupRows;
  if (columns == 1)
    return {readWidenedRowVector(b, loc, groups, group, offset, Value(),
                                 lanes)};
  assert(columns == llm::InterleavedFloatType::kBF16PairColumns &&
         "runs of one column, or bf16 pairs");
  auto bitsType = VectorType::get({lanes}, b.getI32Type());
  auto sumType = VectorType::get({lanes}, b.getF32Type());
  Value bits = vector::BitCastOp::create(
      b, loc, bitsType, readGroupPairs(b, loc, groups, group, offset));
  auto splat = [&](int32_t value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(bitsType, b.getI32IntegerAttr(value)));
  };
  Value even = arith::ShLIOp::create(b, loc, bits, splat(16));
  Value odd = arith::AndIOp::create(b, loc, bits,
                                    splat(static_cast<int32_t>(0xFFFF0000u)));
  return {vector::BitCastOp::create(b, loc, sumType, even),
          vector::BitCastOp::create(b, loc, sumType, odd)};
}

/// x[row, k0 + j] for j < columns (a run's columns), each widened to f32 and
/// broadcast to a group's 16 lanes.
static SmallVector<Value> broadcastRun(OpBuilder &b, Location loc, Value x,
                                       Value row, Value k0, int64_t columns) {
  SmallVector<Value> broadcasts;
  for (int64_t j = 0; j < columns; ++j)
    broadcasts.push_back(broadcastElement(
        b, loc, x, row,
        j == 0 ? k0
               : arith::AddIOp::create(b, loc, k0, indexConstant(b, loc, j)),
        llm::InterleavedFloatType::kGroupRows));
  return broadcasts;
}

/// The storage rows of the `panelGroups` interleaved groups from weight row
/// n0 (a multiple of R).
static SmallVector<Value> getPanelGroups(OpBuilder &b, Location loc, Value n0,
                                         int64_t panelGroups) {
  Value first = arith::DivUIOp::create(
      b, loc, n0,
      indexConstant(b, loc, llm::InterleavedFloatType::kGroupRows));
  SmallVector<Value> groups;
  for (int64_t v = 0; v < panelGroups; ++v)
    groups.push_back(v == 0 ? first
                            : arith::AddIOp::create(b, loc, first,
                                                    indexConstant(b, loc, v)));
  return groups;
}

void llmc::multiplyInterleavedPanel(OpBuilder &b, Location loc, Value x,
                                    Value groups, Value out, Value m, Value n0,
                                    int64_t xRows, int64_t panelGroups,
                                    int64_t columns, Value s0, Value s1,
                                    ValueRange initialSums) {
  constexpr int64_t lanes = llm::InterleavedFloatType::kGroupRows;
  SmallVector<Value> panelGroupIndices = getPanelGroups(b, loc, n0, panelGroups);
  accumulatePanelTile(
      b, loc, out, m, n0, xRows, panelGroups, lanes, s0, s1, initialSums,
      [&](OpBuilder &fb, Location floc, Value s, ArrayRef<Value> rows,
          ValueRange sums) {
        Value k0 = columns == 1 ? s
                                : arith::MulIOp::create(
                                      fb, floc, s, indexConstant(fb, floc, columns));
        Value offset = getGroupColumnOffset(fb, floc, k0);
        SmallVector<SmallVector<Value>> weights;
        for (Value group : panelGroupIndices)
          weights.push_back(
              readGroupColumns(fb, floc, groups, group, offset, columns));
        SmallVector<Value> updated;
        for (Value row : rows) {
          SmallVector<Value> broadcasts =
              broadcastRun(fb, floc, x, row, k0, columns);
          for (ArrayRef<Value> run : weights) {
            Value sum = sums[updated.size()];
            for (auto [weight, broadcast] : llvm::zip_equal(run, broadcasts))
              sum = vector::FMAOp::create(fb, floc, weight, broadcast, sum);
            updated.push_back(sum);
          }
        }
        return updated;
      });
}

Value llmc::sumInterleavedGroup(OpBuilder &b, Location loc, Value x,
                                Value groups, Value m, Value group,
                                int64_t depth, int64_t columns, int64_t chains,
                                Value initial) {
  constexpr int64_t lanes = llm::InterleavedFloatType::kGroupRows;
  assert(chains % columns == 0 && depth % columns == 0 &&
         "chains and K in whole runs");
  auto sumType = VectorType::get({lanes}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(sumType, b.getF32FloatAttr(0.0f)));
  // Chain c sums the columns k ≡ c (mod chains); the first starts from
  // `initial`. A loop over sums.size() chains accumulates the columns
  // [k0, k0 + sums.size()), a run at a time.
  SmallVector<Value> init(chains, zero);
  init.front() = initial;
  auto accumulateColumns = [&](OpBuilder &fb, Location floc, Value k0,
                               ValueRange sums) {
    SmallVector<Value> updated;
    for (int64_t c = 0; c < (int64_t)sums.size(); c += columns) {
      Value runStart =
          c == 0 ? k0
                 : arith::AddIOp::create(fb, floc, k0, indexConstant(fb, floc, c));
      SmallVector<Value> broadcasts =
          broadcastRun(fb, floc, x, m, runStart, columns);
      SmallVector<Value> run =
          readGroupColumns(fb, floc, groups, group,
                           getGroupColumnOffset(fb, floc, runStart), columns);
      for (auto [column, broadcast] : llvm::zip_equal(run, broadcasts))
        updated.push_back(vector::FMAOp::create(fb, floc, column, broadcast,
                                                sums[updated.size()]));
    }
    return updated;
  };
  int64_t depthMain = depth / chains * chains;
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, depthMain),
      indexConstant(b, loc, chains), init,
      [&](OpBuilder &fb, Location floc, Value k0, ValueRange sums) {
        scf::YieldOp::create(fb, floc, accumulateColumns(fb, floc, k0, sums));
      });
  SmallVector<Value> sums(loop.getResults());
  // The runs left below a multiple of the chains, one at a time, into the
  // first `columns` chains.
  if (depth > depthMain) {
    auto tail = scf::ForOp::create(
        b, loc, indexConstant(b, loc, depthMain), indexConstant(b, loc, depth),
        indexConstant(b, loc, columns), ArrayRef<Value>(sums).take_front(columns),
        [&](OpBuilder &fb, Location floc, Value k, ValueRange first) {
          scf::YieldOp::create(fb, floc, accumulateColumns(fb, floc, k, first));
        });
    llvm::copy(tail.getResults(), sums.begin());
  }
  Value total = sums.front();
  for (Value sum : ArrayRef<Value>(sums).drop_front())
    total = arith::AddFOp::create(b, loc, total, sum);
  return total;
}

Value llmc::packWeightPairPanel(OpBuilder &b, Location loc, Value rows,
                                Value n0, int64_t panelRows, int64_t depth) {
  constexpr int64_t lanes = kBF16DotLanes; // panel rows per group, pairs per block
  constexpr int64_t blockElements = 2 * lanes;
  assert(panelRows % lanes == 0 && "whole groups of 16 rows");
  Type bf16 = b.getBF16Type();
  int64_t pairs = llvm::divideCeil(depth, 2);
  Value panel = memref::AllocOp::create(
      b, loc, MemRefType::get({pairs, 2 * panelRows}, bf16), ValueRange{},
      b.getI64IntegerAttr(kPanelAlignment));
  auto rowType = VectorType::get({blockElements}, bf16);
  auto pairsType = VectorType::get({lanes}, b.getI32Type());
  // Elements [k0, k0 + elements) of the panel's rows group * 16 + i.
  auto packBlock = [&](OpBuilder &pb, Location ploc, int64_t group, Value k0,
                       int64_t elements, Value mask) {
    Value padding = arith::ConstantOp::create(pb, ploc, pb.getFloatAttr(bf16, 0.0));
    SmallVector<Value> vectors;
    for (int64_t i = 0; i < lanes; ++i) {
      Value row = arith::AddIOp::create(
          pb, ploc, n0, indexConstant(pb, ploc, group * lanes + i));
      Value rowPart = vector::TransferReadOp::create(
          pb, ploc, rowType, rows, ValueRange{row, k0},
          AffineMap::getMinorIdentityMap(2, 1, pb.getContext()), padding, mask,
          pb.getBoolArrayAttr({true}));
      vectors.push_back(vector::BitCastOp::create(pb, ploc, pairsType, rowPart));
    }
    SmallVector<Value> columns = transposeRows(pb, ploc, vectors);
    Value p0 = arith::DivUIOp::create(pb, ploc, k0, indexConstant(pb, ploc, 2));
    for (int64_t t = 0, pairs = llvm::divideCeil(elements, 2); t < pairs; ++t) {
      Value p = arith::AddIOp::create(pb, ploc, p0, indexConstant(pb, ploc, t));
      vector::StoreOp::create(
          pb, ploc, vector::BitCastOp::create(pb, ploc, rowType, columns[t]),
          panel, ValueRange{p, indexConstant(pb, ploc, group * blockElements)});
    }
  };
  packPanelBlocks(b, loc, panelRows / lanes, depth, blockElements, packBlock);
  return panel;
}

Value llmc::packRowsAsBF16Pairs(OpBuilder &b, Location loc, Value x,
                                Value rows, int64_t depth) {
  constexpr int64_t lanes = kBF16DotLanes;
  Type bf16 = b.getBF16Type();
  int64_t width = 2 * llvm::divideCeil(depth, 2);
  Value pairs = memref::AllocOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic, width}, bf16),
      ValueRange{rows}, b.getI64IntegerAttr(kPanelAlignment));
  auto roundedType = VectorType::get({lanes}, bf16);
  int64_t depthMain = depth / lanes * lanes;
  scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), rows, indexConstant(b, loc, 1),
      ValueRange{}, [&](OpBuilder &rb, Location rloc, Value m, ValueRange) {
        if (depthMain > 0)
          scf::ForOp::create(
              rb, rloc, indexConstant(rb, rloc, 0),
              indexConstant(rb, rloc, depthMain), indexConstant(rb, rloc, lanes),
              ValueRange{}, [&](OpBuilder &kb, Location kloc, Value k, ValueRange) {
                Value values =
                    readWidenedRowVector(kb, kloc, x, m, k, Value(), lanes);
                vector::StoreOp::create(
                    kb, kloc,
                    arith::TruncFOp::create(kb, kloc, roundedType, values), pairs,
                    ValueRange{m, k});
                scf::YieldOp::create(kb, kloc);
              });
        if (depth > depthMain) {
          // The tail read masked (zeros past K), written up to the buffer's
          // width: an odd depth's padding column gets one of the zeros.
          Value k = indexConstant(rb, rloc, depthMain);
          Value mask = vector::CreateMaskOp::create(
              rb, rloc, VectorType::get({lanes}, rb.getI1Type()),
              ValueRange{indexConstant(rb, rloc, depth - depthMain)});
          Value values = readWidenedRowVector(rb, rloc, x, m, k, mask, lanes);
          vector::TransferWriteOp::create(
              rb, rloc, arith::TruncFOp::create(rb, rloc, roundedType, values),
              pairs, ValueRange{m, k}, ArrayRef<bool>{false});
        }
        scf::YieldOp::create(rb, rloc);
      });
  return pairs;
}

/// Loads the `vectors` weight operands (vector<32xbf16>) of pair step p.
using PairLoadFn = llvm::function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                         Value p)>;

/// The tile of both pair-panel kernels: x's pairs broadcast and multiplied
/// in VDPBF16PS with the `vectors` operands loadWeights gives per step.
static void multiplyPairTile(OpBuilder &b, Location loc, Value xPairs,
                             Value out, Value m, Value n0, int64_t xRows,
                             int64_t vectors, Value p0, Value p1,
                             ValueRange initialSums, PairLoadFn loadWeights) {
  constexpr int64_t lanes = kBF16DotLanes;
  auto operandType = VectorType::get({2 * lanes}, b.getBF16Type());
  auto pairType = VectorType::get({2}, b.getBF16Type());
  auto bitsType = VectorType::get({1}, b.getI32Type());
  auto broadcastType = VectorType::get({lanes}, b.getI32Type());
  accumulatePanelTile(
      b, loc, out, m, n0, xRows, vectors, lanes, p0, p1, initialSums,
      [&](OpBuilder &fb, Location floc, Value p, ArrayRef<Value> rows,
          ValueRange sums) {
        SmallVector<Value> weights = loadWeights(fb, floc, p);
        Value k = arith::MulIOp::create(fb, floc, p, indexConstant(fb, floc, 2));
        SmallVector<Value> updated;
        for (Value row : rows) {
          // The row's pair p as one 32-bit lane, in every lane.
          Value pair = vector::LoadOp::create(fb, floc, pairType, xPairs,
                                              ValueRange{row, k});
          Value bits = vector::ExtractOp::create(
              fb, floc, vector::BitCastOp::create(fb, floc, bitsType, pair),
              ArrayRef<int64_t>{0});
          Value broadcast = vector::BitCastOp::create(
              fb, floc, operandType,
              vector::BroadcastOp::create(fb, floc, broadcastType, bits));
          for (Value weight : weights)
            updated.push_back(createBF16Dot(fb, floc, sums[updated.size()],
                                            broadcast, weight));
        }
        return updated;
      });
}

void llmc::multiplyPackedPairPanel(OpBuilder &b, Location loc, Value xPairs,
                                   Value panel, Value out, Value m, Value n0,
                                   int64_t xRows, Value p0, Value p1,
                                   ValueRange initialSums) {
  constexpr int64_t lanes = kBF16DotLanes;
  int64_t vectors = cast<MemRefType>(panel.getType()).getDimSize(1) / (2 * lanes);
  auto operandType = VectorType::get({2 * lanes}, b.getBF16Type());
  multiplyPairTile(b, loc, xPairs, out, m, n0, xRows, vectors, p0, p1,
                   initialSums, [&](OpBuilder &fb, Location floc, Value p) {
                     SmallVector<Value> weights;
                     for (int64_t v = 0; v < vectors; ++v)
                       weights.push_back(vector::LoadOp::create(
                           fb, floc, operandType, panel,
                           ValueRange{p, indexConstant(fb, floc, v * 2 * lanes)}));
                     return weights;
                   });
}

void llmc::multiplyInterleavedPairPanel(OpBuilder &b, Location loc,
                                        Value xPairs, Value groups, Value out,
                                        Value m, Value n0, int64_t xRows,
                                        int64_t panelGroups, Value p0,
                                        Value p1, ValueRange initialSums) {
  static_assert(kBF16DotLanes == llm::InterleavedFloatType::kGroupRows,
                "a group's run is one VDPBF16PS operand");
  SmallVector<Value> panelGroupIndices = getPanelGroups(b, loc, n0, panelGroups);
  multiplyPairTile(
      b, loc, xPairs, out, m, n0, xRows, panelGroups, p0, p1, initialSums,
      [&](OpBuilder &fb, Location floc, Value p) {
        Value offset = getGroupColumnOffset(
            fb, floc,
            arith::MulIOp::create(fb, floc, p, indexConstant(fb, floc, 2)));
        SmallVector<Value> weights;
        for (Value group : panelGroupIndices)
          weights.push_back(readGroupPairs(fb, floc, groups, group, offset));
        return weights;
      });
}

SmallVector<Value> llmc::getPanelInitialSums(OpBuilder &b, Location loc,
                                             Value bias, Value n0,
                                             int64_t panelRows, int64_t lanes) {
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  SmallVector<Value> initial;
  for (int64_t first = 0; first < panelRows; first += lanes) {
    if (!bias) {
      initial.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vectorType, b.getF32FloatAttr(0.0f))));
      continue;
    }
    Type elementType = cast<ShapedType>(bias.getType()).getElementType();
    Value column =
        arith::AddIOp::create(b, loc, n0, indexConstant(b, loc, first));
    Value vector = vector::TransferReadOp::create(
        b, loc, VectorType::get({lanes}, elementType), bias,
        ValueRange{column},
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0.0)),
        ArrayRef<bool>{true});
    initial.push_back(elementType.isF32()
                          ? vector
                          : arith::ExtFOp::create(b, loc, vectorType, vector)
                                .getResult());
  }
  return initial;
}
