// The two products of a CPU attention key tile in vector registers: Q·Kᵀ eight
// keys at a time, P·V with a query row's accumulator held across the tile's
// keys.
#include "codegen/cpu/AttentionVectorProducts.h"
#include "codegen/common/Softcap.h"
#include "codegen/cpu/LoweringUtils.h"
#include "codegen/cpu/VectorSums.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;
using llmc::indexConstant;

namespace {

/// f32 lanes per vector of the dot products: one AVX2 register, on every
/// target (packLaneSums reduces 8-lane vectors; an AVX-512 CPU runs these
/// kernels at half its vector width, which is not measured yet).
constexpr int64_t kLanes = 8;
/// Keys whose dot vectors packLaneSums reduces together.
constexpr int64_t kKeysPerGroup = 8;
/// Most accumulator elements of one query row held in registers across a
/// tile's keys: 8 AVX2 registers (4 AVX-512 ones), leaving the rest for the
/// values and the probability.
constexpr int64_t kMaxAccumulatorLanes = 64;

Value getDim(OpBuilder &b, Location loc, Value tensor, int64_t dim) {
  return b.createOrFold<tensor::DimOp>(loc, tensor, dim);
}

/// source[indices] and the `lanes` - 1 elements after it in its last
/// dimension, as a vector<lanes x f32> (widened from a narrower float).
Value readF32(OpBuilder &b, Location loc, Value source, ValueRange indices,
              int64_t lanes) {
  auto type = cast<RankedTensorType>(source.getType());
  Type elementType = type.getElementType();
  Value padding =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 0.0));
  Value vector = vector::TransferReadOp::create(
      b, loc, VectorType::get({lanes}, elementType), source, indices,
      AffineMap::getMinorIdentityMap(type.getRank(), 1, b.getContext()),
      padding, /*mask=*/Value(), b.getBoolArrayAttr({true}));
  if (elementType.isF32())
    return vector;
  return arith::ExtFOp::create(b, loc, VectorType::get({lanes}, b.getF32Type()),
                               vector);
}

Value writeVector(OpBuilder &b, Location loc, Value vector, Value dest,
                  ValueRange indices) {
  auto type = cast<RankedTensorType>(dest.getType());
  return vector::TransferWriteOp::create(
             b, loc, vector, dest, indices,
             AffineMap::getMinorIdentityMap(type.getRank(), 1, b.getContext()),
             ArrayRef<bool>{true})
      .getResult();
}

/// The KV head that query head `head` reads.
Value getKvHead(OpBuilder &b, Location loc, Value head, int64_t group) {
  if (group == 1)
    return head;
  return arith::DivUIOp::create(b, loc, head, indexConstant(b, loc, group));
}

/// Prefetches the lines of columns [column, column + elements) of the row
/// `prefetch.distance` keys after the tile's key `key` (clamped to the last
/// key), in batch `batch` and the tile's KV head `tileKvHead`.
void prefetchRowAhead(OpBuilder &b, Location loc,
                      const llmc::KeyPrefetch &prefetch, Value batch,
                      Value key, Value tileKvHead, Value column,
                      int64_t elements) {
  auto type = cast<MemRefType>(prefetch.buffer.getType());
  Value ahead = b.createOrFold<arith::MinUIOp>(
      loc,
      b.createOrFold<arith::AddIOp>(
          loc, b.createOrFold<arith::AddIOp>(loc, prefetch.tileStart, key),
          indexConstant(b, loc, prefetch.distance)),
      prefetch.lastKey);
  Value kvHead = prefetch.kvHead ? prefetch.kvHead : tileKvHead;
  llmc::prefetchLines(b, loc, prefetch.buffer, {batch, ahead, kvHead, column},
                      elements * type.getElementTypeBitWidth() / 8);
}

using RowBody = function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                ValueRange, ValueRange)>;

/// `body(b, t, h, carried)` for every query row (b, t, h) of the (B, T, H,
/// ...) tensor `rows`, carrying `init` (tensors updated in place once
/// bufferized).
SmallVector<Value> forEachQueryRow(OpBuilder &b, Location loc, Value rows,
                                   ValueRange init, RowBody body) {
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  SmallVector<Value> upper = {getDim(b, loc, rows, 0), getDim(b, loc, rows, 1),
                              getDim(b, loc, rows, 2)};
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, SmallVector<Value>(3, zero), upper,
                         SmallVector<Value>(3, one), init,
                         [&](OpBuilder &nb, Location nloc, ValueRange ivs,
                             ValueRange carried) -> scf::ValueVector {
                           return body(nb, nloc, ivs, carried);
                         });
  return nest.results;
}

/// `rule` applied to the dot products `dots` (a scalar, or a vector of
/// consecutive keys) of the keys from `firstKey`, which the row sees in
/// [begin, end) (when masked).
Value applyScoreRule(OpBuilder &b, Location loc,
                     const llmc::AttentionScoreRule &rule, Value dots,
                     Value firstKey, Value begin, Value end) {
  auto vectorType = dyn_cast<VectorType>(dots.getType());
  auto splat = [&](Value scalar) -> Value {
    if (!vectorType)
      return scalar;
    return vector::BroadcastOp::create(
        b, loc, vectorType.clone(scalar.getType()), scalar);
  };
  Value scores = arith::MulFOp::create(b, loc, dots, splat(rule.scale));
  if (rule.softcap)
    scores = llmc::createSoftcap(b, loc, scores, *rule.softcap);
  if (!rule.visibleKeys)
    return scores;
  Value key = firstKey, low = begin, high = end;
  if (vectorType) {
    // Key offsets as i32 lanes: firstKey + (0, 1, ..., n - 1).
    auto toI32 = [&](Value index) -> Value {
      return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
    };
    auto laneType = VectorType::get(vectorType.getShape(), b.getI32Type());
    SmallVector<int32_t> lanes(vectorType.getNumElements());
    std::iota(lanes.begin(), lanes.end(), 0);
    Value offsets = arith::ConstantOp::create(
        b, loc, laneType,
        DenseElementsAttr::get(laneType, ArrayRef<int32_t>(lanes)));
    key = arith::AddIOp::create(b, loc, splat(toI32(firstKey)), offsets);
    low = splat(toI32(begin));
    high = splat(toI32(end));
  }
  Value seen = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, key, low),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, key, high));
  Value masked =
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(rule.maskedScore));
  return arith::SelectOp::create(b, loc, seen, scores, splat(masked));
}

/// max(a, b), NaN if either is: a NaN score (from a NaN in q or k) makes
/// the row's maximum, and with it the row's output, NaN rather than
/// letting the causal select of the probabilities drop it as if masked.
Value maxPropagatingNaN(OpBuilder &b, Location loc, Value a, Value bValue) {
  return arith::MaximumFOp::create(b, loc, a, bValue);
}

/// The kLanes-wide dot vectors of one query row with `keyCount` key rows
/// from `firstKey`: Σ over D in chunks of kLanes of q chunk × key chunk.
SmallVector<Value> emitDotVectors(OpBuilder &b, Location loc, Value q,
                                  Value keys, ValueRange row, Value kvHead,
                                  Value firstKey, int64_t keyCount,
                                  int64_t depth) {
  auto laneType = VectorType::get({kLanes}, b.getF32Type());
  Value zeros = arith::ConstantOp::create(
      b, loc, laneType, DenseElementsAttr::get(laneType, 0.0f));
  SmallVector<Value> keyRows;
  for (int64_t j = 0; j < keyCount; ++j)
    keyRows.push_back(
        b.createOrFold<arith::AddIOp>(loc, firstKey, indexConstant(b, loc, j)));
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, depth),
      indexConstant(b, loc, kLanes), SmallVector<Value>(keyCount, zeros),
      [&](OpBuilder &nb, Location nloc, Value column, ValueRange accs) {
        Value qChunk =
            readF32(nb, nloc, q, {row[0], row[1], row[2], column}, kLanes);
        SmallVector<Value> next;
        for (auto [key, acc] : llvm::zip(keyRows, accs)) {
          Value kChunk =
              readF32(nb, nloc, keys, {row[0], key, kvHead, column}, kLanes);
          next.push_back(vector::FMAOp::create(nb, nloc, qChunk, kChunk, acc));
        }
        scf::YieldOp::create(nb, nloc, next);
      });
  return SmallVector<Value>(loop.getResults());
}

} // namespace

bool llmc::isVectorAttentionDepth(int64_t headDim) {
  return !ShapedType::isDynamic(headDim) && headDim > 0 &&
         headDim % kLanes == 0;
}

std::pair<Value, Value>
llmc::createAttentionScores(OpBuilder &b, Location loc, Value q, Value keys,
                            int64_t group, const AttentionScoreRule &rule,
                            Value scoresInit, Value maxInit,
                            const std::optional<KeyPrefetch> &prefetch) {
  int64_t depth = cast<RankedTensorType>(q.getType()).getDimSize(3);
  assert(isVectorAttentionDepth(depth) && "head_dim not a multiple of 8");
  Value keyCount = getDim(b, loc, keys, 1);
  Value groupSize = indexConstant(b, loc, kKeysPerGroup);
  Value groupedEnd = b.createOrFold<arith::SubIOp>(
      loc, keyCount, b.createOrFold<arith::RemUIOp>(loc, keyCount, groupSize));
  auto groupType = VectorType::get({kKeysPerGroup}, b.getF32Type());
  SmallVector<Value> results = forEachQueryRow(
      b, loc, q, {scoresInit, maxInit},
      [&](OpBuilder &nb, Location nloc, ValueRange row,
          ValueRange tiles) -> SmallVector<Value> {
        Value kvHead = getKvHead(nb, nloc, row[2], group);
        Value begin, end;
        if (rule.visibleKeys)
          std::tie(begin, end) = rule.visibleKeys(nb, nloc, row);
        Value masked = arith::ConstantOp::create(
            nb, nloc, nb.getF32FloatAttr(rule.maskedScore));
        auto grouped = scf::ForOp::create(
            nb, nloc, indexConstant(nb, nloc, 0), groupedEnd, groupSize,
            ValueRange{tiles[0], vector::BroadcastOp::create(
                                     nb, nloc, groupType, masked)},
            [&](OpBuilder &gb, Location gloc, Value firstKey,
                ValueRange state) {
              if (prefetch)
                for (int64_t j = 0; j < kKeysPerGroup; ++j)
                  prefetchRowAhead(
                      gb, gloc, *prefetch, row[0],
                      gb.createOrFold<arith::AddIOp>(
                          gloc, firstKey, indexConstant(gb, gloc, j)),
                      kvHead, indexConstant(gb, gloc, 0), depth);
              SmallVector<Value> dots =
                  emitDotVectors(gb, gloc, q, keys, row, kvHead, firstKey,
                                 kKeysPerGroup, depth);
              Value scores =
                  applyScoreRule(gb, gloc, rule, packLaneSums(gb, gloc, dots),
                                 firstKey, begin, end);
              Value written = writeVector(gb, gloc, scores, state[0],
                                          {row[0], row[1], row[2], firstKey});
              scf::YieldOp::create(
                  gb, gloc,
                  ValueRange{written,
                             maxPropagatingNaN(gb, gloc, state[1], scores)});
            });
        Value groupedMax = vector::ReductionOp::create(
            nb, nloc, vector::CombiningKind::MAXIMUMF, grouped.getResult(1));
        auto rest = scf::ForOp::create(
            nb, nloc, groupedEnd, keyCount, indexConstant(nb, nloc, 1),
            ValueRange{grouped.getResult(0), groupedMax},
            [&](OpBuilder &gb, Location gloc, Value key, ValueRange state) {
              Value dot =
                  emitDotVectors(gb, gloc, q, keys, row, kvHead, key, 1, depth)
                      .front();
              Value score =
                  applyScoreRule(gb, gloc, rule,
                                 vector::ReductionOp::create(
                                     gb, gloc, vector::CombiningKind::ADD, dot),
                                 key, begin, end);
              Value written = tensor::InsertOp::create(
                  gb, gloc, score, state[0],
                  ValueRange{row[0], row[1], row[2], key});
              scf::YieldOp::create(
                  gb, gloc,
                  ValueRange{written,
                             maxPropagatingNaN(gb, gloc, state[1], score)});
            });
        Value rowMax = tensor::InsertOp::create(nb, nloc, rest.getResult(1),
                                                tiles[1], row);
        return {rest.getResult(0), rowMax};
      });
  return {results[0], results[1]};
}

Value llmc::createAttentionValueSums(
    OpBuilder &b, Location loc, Value probs, Value values, Value rescale,
    Value acc, int64_t group, VisibleKeys visibleKeys,
    const std::optional<KeyPrefetch> &prefetch) {
  int64_t depth = cast<RankedTensorType>(acc.getType()).getDimSize(3);
  assert(isVectorAttentionDepth(depth) && "head_dim not a multiple of 8");
  // The widest run of accumulator lanes (a power of two from kLanes up to
  // kMaxAccumulatorLanes) that divides the head dimension.
  int64_t lanes = kLanes;
  while (lanes * 2 <= kMaxAccumulatorLanes && depth % (lanes * 2) == 0)
    lanes *= 2;
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  Value keyCount = getDim(b, loc, probs, 3);
  auto rowSums = [&](OpBuilder &nb, Location nloc, ValueRange row,
                     ValueRange rowsAcc) -> SmallVector<Value> {
    Value kvHead = getKvHead(nb, nloc, row[2], group);
    Value factor = vector::BroadcastOp::create(
        nb, nloc, vectorType,
        tensor::ExtractOp::create(nb, nloc, rescale, row));
    Value firstKey = indexConstant(nb, nloc, 0), endKey = keyCount;
    if (visibleKeys)
      std::tie(firstKey, endKey) = visibleKeys(nb, nloc, row);
    // One run of `lanes` accumulator elements at a time, in registers
    // across the keys.
    auto runs = scf::ForOp::create(
        nb, nloc, indexConstant(nb, nloc, 0), indexConstant(nb, nloc, depth),
        indexConstant(nb, nloc, lanes), rowsAcc,
        [&](OpBuilder &cb, Location cloc, Value column, ValueRange accTile) {
          SmallVector<Value> at = {row[0], row[1], row[2], column};
          Value start = arith::MulFOp::create(
              cb, cloc, readF32(cb, cloc, accTile[0], at, lanes), factor);
          auto keysLoop = scf::ForOp::create(
              cb, cloc, firstKey, endKey, indexConstant(cb, cloc, 1),
              ValueRange{start},
              [&](OpBuilder &kb, Location kloc, Value key, ValueRange sum) {
                if (prefetch)
                  prefetchRowAhead(kb, kloc, *prefetch, row[0], key, kvHead,
                                   column, lanes);
                Value prob = tensor::ExtractOp::create(
                    kb, kloc, probs, ValueRange{row[0], row[1], row[2], key});
                Value value = readF32(kb, kloc, values,
                                      {row[0], key, kvHead, column}, lanes);
                Value weight =
                    vector::BroadcastOp::create(kb, kloc, vectorType, prob);
                scf::YieldOp::create(
                    kb, kloc,
                    vector::FMAOp::create(kb, kloc, weight, value, sum[0])
                        .getResult());
              });
          scf::YieldOp::create(
              cb, cloc,
              writeVector(cb, cloc, keysLoop.getResult(0), accTile[0], at));
        });
    return {runs.getResult(0)};
  };
  return forEachQueryRow(b, loc, acc, acc, rowSums).front();
}
