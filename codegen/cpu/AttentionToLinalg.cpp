// Lowers llm.attention to a key-tiled online softmax (scf.for over key tiles;
// vector kernels or linalg.generic inside).
#include "codegen/common/KVQuantization.h"
#include "codegen/common/Softcap.h"
#include "codegen/cpu/AttentionVectorProducts.h"
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/LoweringUtils.h"

#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using llmc::convertFloat;
using llmc::createFilled;
using llmc::isVectorAttentionDepth;

namespace {

/// Keys per tile of the online softmax: the f32 score and probability tiles
/// are B·T·Hq·64 whatever S is, a decode step's last tile reads at most 63
/// keys past max(positions), and 64 is a multiple of every f32 vector width
/// the CPU path targets (16 lanes with AVX-512).
constexpr int64_t kKeyTile = 64;

/// Queries per block of a causal attention over more than one block: each
/// block walks only the key tiles up to its own last position.
constexpr int64_t kQueryBlock = 64;

/// A decode step's keys per chunk, at least (the chunks' count is ⌈S / 64⌉
/// up to kMaxDecodeChunks): a chunk of one KV head's keys is an iteration
/// of the step's scf.forall, so that the threads share a KV head's keys
/// instead of taking whole KV heads (3 of them on 2 threads: 2 against 1).
constexpr int64_t kMinDecodeChunkKeys = 64;
constexpr int64_t kMaxDecodeChunks = 16;

/// Score of a masked key and the initial running maximum. Finite (not -inf)
/// so that exp(m_old - m_new) is exp(0) = 1, never NaN from (-inf) - (-inf),
/// while a row has no visible key yet; far below any real score so that
/// exp(kMaskedScore - m) underflows to 0 once a visible key is seen.
constexpr double kMaskedScore = -1.0e30;

/// Floor of the exponents of the softmax's exp (a masked score minus the
/// maximum is about -1e30): exp(-80) ≈ 1.8e-35 is 0 next to the maximum's
/// weight of 1, while the vector exp (libmvec) leaves its fast path for
/// inputs below about -87 and calls the scalar expf per lane (2-3% of a
/// 480-token prefill went to __expf_fma and its underflow handler).
constexpr double kMinExponent = -80.0;

/// max(x, kMinExponent) by comparison: a NaN x stays NaN.
Value clampExponent(OpBuilder &b, Location loc, Value x) {
  Value floor =
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(kMinExponent));
  Value below =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, floor);
  return arith::SelectOp::create(b, loc, below, floor, x);
}

using utils::IteratorType;
constexpr IteratorType kPar = IteratorType::parallel;
constexpr IteratorType kRed = IteratorType::reduction;

/// Emits the IR of one llm.attention: the running state (m, l, acc) is
/// carried through the tiles; each tile computes its scores, masks them,
/// updates the running maximum and rescales the sum and the accumulator.
/// Query heads, and blocks of a long causal query run, are the iterations
/// of an scf.forall.
class AttentionEmitter {
public:
  AttentionEmitter(llm::AttentionOp op, Value q, Value k, Value v,
                   Value positions, std::optional<llmc::CacheLayer> stored,
                   int64_t minParallelElements, OpBuilder &builder)
      : op(op), loc(op.getLoc()), b(builder), q(q), k(k), v(v),
        positions(positions), stored(std::move(stored)),
        minParallelElements(minParallelElements), ctx(builder.getContext()),
        f32(builder.getF32Type()), group(op.getNumHeads() / op.getNumKvHeads()),
        reductionMath(arith::FastMathFlagsAttr::get(
            builder.getContext(),
            arith::FastMathFlags::reassoc | arith::FastMathFlags::contract)) {}

  Value emit();

private:
  /// The attention of the queries `q` (at `positions`, or without them at
  /// t + positionOffset) over every key tile they see, written into
  /// `destination` (shaped like q) when given.
  Value emitRows(Value positionOffset, Value destination = Value());
  /// The running state (m, l, acc) of the queries `q` after the keys
  /// [begin, end), a tile at a time.
  SmallVector<Value> emitKeyRange(Value begin, Value end);
  /// A decode step split into (KV head, key chunk) iterations.
  Value emitDecodeStep(Value positionOffset);
  /// The attention from the chunks' states, stacked along dimension 1.
  Value combineChunks(Value maxes, Value sums, Value accs);

  llm::AttentionOp op;
  Location loc;
  OpBuilder &b;
  Value q, k, v, positions;
  /// The layer of a paged or quantized cache whose view k and v are: each
  /// tile of both is read from the cache as stored (gathered through the
  /// page table; codes dequantized inside the tile's products) instead of
  /// sliced from k and v.
  std::optional<llmc::CacheLayer> stored;
  /// Work (heads × head_dim × keys) below which a one-block call keeps its
  /// heads on one thread: an OpenMP region costs microseconds.
  int64_t minParallelElements;
  MLIRContext *ctx;
  Type f32;
  /// Query heads per KV head: head h reads KV head h floordiv group (1
  /// while one query head is emitted against its own KV head).
  int64_t group;
  /// While one query head, or the query heads of one KV head, are emitted:
  /// that KV head, the one slice of the KV heads dimension (2) that k and v
  /// tiles (and a cache's rows) are read with. Null: all.
  Value kvHead;
  /// The flags of the sums over keys and head_dim (Q·K, Σ p, Σ p·V):
  /// reassociation lets LLVM vectorize these reductions (several partial
  /// sums), and contraction fuse their multiply-adds.
  arith::FastMathFlagsAttr reductionMath;
  /// (B, T, Hq) of q.
  SmallVector<OpFoldResult> rowSizes;
  /// (B, T, Hq, D) of q.
  SmallVector<OpFoldResult> qSizes;
  Value scale;
  /// S, the number of keys (dimension 1 of k).
  Value keyCount;
  /// p − t for queries without explicit positions: S − T.
  Value implicitPositionOffset;

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value f32Constant(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value emptyF32(ArrayRef<OpFoldResult> sizes) {
    return tensor::EmptyOp::create(b, loc, sizes, f32);
  }
  AffineMap map(unsigned numDims, ArrayRef<AffineExpr> results) {
    return AffineMap::get(numDims, 0, results, ctx);
  }
  AffineExpr dim(unsigned i) { return getAffineDimExpr(i, ctx); }

  Value computeScale();
  std::pair<Value, Value> computeKeyRange();
  SmallVector<Value> emitTile(Value tileStart, OpFoldResult tileLength,
                              ValueRange state);
  Value emitScores(Value kTile, Value kScales,
                   ArrayRef<OpFoldResult> tileSizes);
  Value loadKV(OpBuilder &nb, Location nloc, Value element, Value scale);
  Value emitMaskAndScale(Value scores, Value tileStart);
  std::pair<Value, Value> getVisibleKeys(OpBuilder &nb, Location nloc,
                                         ValueRange row, Value tileStart,
                                         Value tileLength);
  Value emitOutput(Value acc, Value sum, Value destination);
  Value widenToF32(Value tile);
  llmc::KeyPrefetch getKeyPrefetch(Value keys, Value tileStart);
  Value getBalancedBlock(Value i, Value count);
};

Value AttentionEmitter::computeScale() {
  // getEffectiveScale needs a static head dimension; otherwise 1/√D is
  // computed at run time.
  if (op.getScale() ||
      !ShapedType::isDynamic(op.getQ().getType().getDimSize(3)))
    return f32Constant(op.getEffectiveScale());
  Value headDim = tensor::DimOp::create(b, loc, q, 3);
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), headDim);
  Value asFloat = arith::SIToFPOp::create(b, loc, f32, asInt);
  return math::RsqrtOp::create(b, loc, asFloat);
}

/// [begin, end) of the keys any query can see. With causal positions the end
/// is max(positions) + 1 (clamped to S), so a decode step over a large cache
/// reads only the written prefix; with a sliding window the begin is
/// min(p) − W + 1 (clamped to 0). Keys outside the range are masked for
/// every query, so skipping them changes nothing. Non-causal attention sees
/// every key, with or without positions: its range is [0, S).
std::pair<Value, Value> AttentionEmitter::computeKeyRange() {
  Value zero = index(0);
  bool causal = op.getCausal();
  std::optional<int64_t> window = op.getSlidingWindow();
  if (!causal)
    return {zero, keyCount};

  Value begin = zero, end = keyCount, minPosition;
  if (positions) {
    // One pass over positions (B, T) into two 0-d tensors: min and max.
    auto intType = cast<IntegerType>(
        cast<RankedTensorType>(positions.getType()).getElementType());
    unsigned width = intType.getWidth();
    auto scalarType = RankedTensorType::get({}, intType);
    auto filled = [&](const APInt &value) {
      Value init =
          tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, intType);
      Value constant =
          arith::ConstantOp::create(b, loc, b.getIntegerAttr(intType, value));
      return linalg::FillOp::create(b, loc, constant, init).getResult(0);
    };
    Value minInit = filled(APInt::getSignedMaxValue(width));
    Value maxInit = filled(APInt::getSignedMinValue(width));
    AffineMap all = map(2, {dim(0), dim(1)});
    AffineMap scalar = map(2, {});
    auto reduce = linalg::GenericOp::create(
        b, loc, TypeRange{scalarType, scalarType}, ValueRange{positions},
        ValueRange{minInit, maxInit}, ArrayRef<AffineMap>{all, scalar, scalar},
        ArrayRef<IteratorType>{kRed, kRed},
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value lo = arith::MinSIOp::create(nb, nloc, args[0], args[1]);
          Value hi = arith::MaxSIOp::create(nb, nloc, args[0], args[2]);
          linalg::YieldOp::create(nb, nloc, ValueRange{lo, hi});
        });
    auto toIndex = [&](Value scalarTensor) -> Value {
      Value element =
          tensor::ExtractOp::create(b, loc, scalarTensor, ValueRange{});
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), element);
    };
    Value maxPosition = toIndex(reduce.getResult(1));
    Value afterLast = b.createOrFold<arith::AddIOp>(loc, maxPosition, index(1));
    end = b.createOrFold<arith::MinSIOp>(loc, afterLast, keyCount);
    minPosition = toIndex(reduce.getResult(0));
  } else {
    // Query t sits at t + S − T: the last query sees every key (end = S),
    // the first one sits at S − T.
    minPosition = implicitPositionOffset;
  }
  if (window) {
    Value first =
        b.createOrFold<arith::SubIOp>(loc, minPosition, index(*window - 1));
    begin = b.createOrFold<arith::MaxSIOp>(loc, first, zero);
  }
  return {begin, end};
}

/// A key or value element in f32: widened, or for a quantized cache its
/// code decoded and multiplied by its row's scale.
Value AttentionEmitter::loadKV(OpBuilder &nb, Location nloc, Value element,
                               Value scale) {
  if (!scale)
    return convertFloat(nb, nloc, element, f32);
  Value value =
      llmc::decodeKVCode(nb, nloc, element, stored->cacheType.getElementType());
  return arith::MulFOp::create(nb, nloc, value, scale);
}

/// scores[b, t, h, s] = Σ_d q[b, t, h, d] · k[b, s, h floordiv G, d] in f32;
/// the floordiv map lets query heads share KV heads without copying K.
/// With `kScales` (b, s, kv head), k holds codes of a quantized cache.
Value AttentionEmitter::emitScores(Value kTile, Value kScales,
                                   ArrayRef<OpFoldResult> tileSizes) {
  Value init = createFilled(b, loc, emptyF32(tileSizes), 0.0);
  // Dims: (b, t, h, s, d).
  AffineMap qMap = map(5, {dim(0), dim(1), dim(2), dim(4)});
  AffineMap kMap = map(5, {dim(0), dim(3), dim(2).floorDiv(group), dim(4)});
  AffineMap outMap = map(5, {dim(0), dim(1), dim(2), dim(3)});
  SmallVector<Value> inputs = {q, kTile};
  SmallVector<AffineMap> maps = {qMap, kMap};
  if (kScales) {
    inputs.push_back(kScales);
    maps.push_back(map(5, {dim(0), dim(3), dim(2).floorDiv(group)}));
  }
  maps.push_back(outMap);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
             ArrayRef<IteratorType>{kPar, kPar, kPar, kPar, kRed},
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value qe = convertFloat(nb, nloc, args[0], f32);
               Value ke =
                   loadKV(nb, nloc, args[1], kScales ? args[2] : Value());
               Value product =
                   arith::MulFOp::create(nb, nloc, qe, ke, reductionMath);
               Value sum = arith::AddFOp::create(nb, nloc, args.back(), product,
                                                 reductionMath);
               linalg::YieldOp::create(nb, nloc, sum);
             })
      .getResult(0);
}

/// Multiplies by the scale, softcaps (before the mask, as Hugging Face's
/// Gemma-2 does) and, for causal attention, replaces the score of each
/// invisible key (s > p, or p − s ≥ W) by kMaskedScore.
Value AttentionEmitter::emitMaskAndScale(Value scores, Value tileStart) {
  bool causal = op.getCausal();
  std::optional<int64_t> window = op.getSlidingWindow();
  std::optional<double> softcap;
  if (auto cap = op.getSoftcap())
    softcap = cap->convertToDouble();
  AffineMap identity = b.getMultiDimIdentityMap(4);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (causal && positions) {
    inputs.push_back(positions);
    maps.push_back(map(4, {dim(0), dim(1)}));
  }
  maps.push_back(identity);
  Value windowValue = window ? index(*window) : Value();
  Value masked = f32Constant(kMaskedScore);
  return linalg::GenericOp::create(
             b, loc, TypeRange{scores.getType()}, inputs, ValueRange{scores},
             maps, ArrayRef<IteratorType>{kPar, kPar, kPar, kPar},
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value score = args.back();
               Value scaled = arith::MulFOp::create(nb, nloc, score, scale);
               if (softcap)
                 scaled = llmc::createSoftcap(nb, nloc, scaled, *softcap);
               if (!causal) {
                 linalg::YieldOp::create(nb, nloc, scaled);
                 return;
               }
               Value position;
               if (positions) {
                 position = arith::IndexCastOp::create(
                     nb, nloc, nb.getIndexType(), args[0]);
               } else {
                 Value t = linalg::IndexOp::create(nb, nloc, 1);
                 position =
                     arith::AddIOp::create(nb, nloc, t, implicitPositionOffset);
               }
               Value s = linalg::IndexOp::create(nb, nloc, 3);
               Value key = arith::AddIOp::create(nb, nloc, tileStart, s);
               Value visible = arith::CmpIOp::create(
                   nb, nloc, arith::CmpIPredicate::sle, key, position);
               if (window) {
                 Value distance =
                     arith::SubIOp::create(nb, nloc, position, key);
                 Value inWindow =
                     arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt,
                                           distance, windowValue);
                 visible = arith::AndIOp::create(nb, nloc, visible, inWindow);
               }
               Value result =
                   arith::SelectOp::create(nb, nloc, visible, scaled, masked);
               linalg::YieldOp::create(nb, nloc, result);
             })
      .getResult(0);
}

/// The keys [begin, end) of the tile [tileStart, tileStart + tileLength)
/// that causal query row (b, t, h) sees: s ≤ p, and p − s < W with a window
/// (emitMaskAndScale's rule), as offsets into the tile.
std::pair<Value, Value>
AttentionEmitter::getVisibleKeys(OpBuilder &nb, Location nloc, ValueRange row,
                                 Value tileStart, Value tileLength) {
  Value position;
  if (positions) {
    Value stored = tensor::ExtractOp::create(nb, nloc, positions,
                                             ValueRange{row[0], row[1]});
    position = arith::IndexCastOp::create(nb, nloc, nb.getIndexType(), stored);
  } else {
    position = arith::AddIOp::create(nb, nloc, row[1], implicitPositionOffset);
  }
  Value zero = arith::ConstantIndexOp::create(nb, nloc, 0);
  auto clampToTile = [&](Value keyOffset) -> Value {
    Value low = arith::MaxSIOp::create(nb, nloc, keyOffset, zero);
    return arith::MinSIOp::create(nb, nloc, low, tileLength);
  };
  Value offset = arith::SubIOp::create(nb, nloc, position, tileStart);
  Value end = clampToTile(arith::AddIOp::create(
      nb, nloc, offset, arith::ConstantIndexOp::create(nb, nloc, 1)));
  Value begin = zero;
  if (std::optional<int64_t> window = op.getSlidingWindow())
    begin = clampToTile(arith::SubIOp::create(
        nb, nloc, offset,
        arith::ConstantIndexOp::create(nb, nloc, *window - 1)));
  return {begin, end};
}

/// The prefetch of a decode step's tile of `keys` (k or v, read from
/// memory as they are) from `tileStart`: the same rows of the next tile.
llmc::KeyPrefetch AttentionEmitter::getKeyPrefetch(Value keys,
                                                   Value tileStart) {
  auto type = cast<RankedTensorType>(keys.getType());
  auto layout = StridedLayoutAttr::get(
      ctx, ShapedType::kDynamic,
      SmallVector<int64_t>(type.getRank(), ShapedType::kDynamic));
  Value buffer = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType(), layout),
      keys, /*readOnly=*/b.getUnitAttr());
  Value lastKey = b.createOrFold<arith::SubIOp>(
      loc, b.createOrFold<tensor::DimOp>(loc, keys, 1), index(1));
  return {buffer, tileStart, lastKey, kvHead, kKeyTile};
}

/// `tile` (a float K or V tile) in f32: itself, or widened into a new
/// tensor.
Value AttentionEmitter::widenToF32(Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  if (type.getElementType().isF32())
    return tile;
  Value init = emptyF32(tensor::getMixedSizes(b, loc, tile));
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{tile},
             ValueRange{init}, ArrayRef<AffineMap>{identity, identity},
             SmallVector<IteratorType>(type.getRank(), kPar),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       convertFloat(nb, nloc, args[0], f32));
             })
      .getResult(0);
}

/// One key tile [tileStart, tileStart + tileLength): returns the updated
/// (m, l, acc).
SmallVector<Value> AttentionEmitter::emitTile(Value tileStart,
                                              OpFoldResult tileLength,
                                              ValueRange state) {
  Value maxOld = state[0], sumOld = state[1], accOld = state[2];
  Value kTile, vTile, kScales, vScales;
  if (stored) {
    std::tie(kTile, vTile) =
        llmc::readCacheRows(b, loc, *stored, tileStart, tileLength, kvHead);
    // A cache whose values are its keys reads one tile for both.
    bool valuesAreKeys = vTile == kTile;
    if (stored->cacheType.isQuantized()) {
      kScales = llmc::decodeRowScales(b, loc, kTile, stored->cacheType);
      vScales = valuesAreKeys
                    ? kScales
                    : llmc::decodeRowScales(b, loc, vTile, stored->cacheType);
      Value kCodes = llmc::sliceRowCodes(b, loc, kTile, stored->cacheType);
      vTile = valuesAreKeys
                  ? kCodes
                  : llmc::sliceRowCodes(b, loc, vTile, stored->cacheType);
      kTile = kCodes;
    }
  } else {
    SmallVector<OpFoldResult> kvOffsets = {
        b.getIndexAttr(0), tileStart, b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> kvSizes = tensor::getMixedSizes(b, loc, k);
    kvSizes[1] = tileLength;
    if (kvHead) {
      kvOffsets[2] = kvHead;
      kvSizes[2] = b.getIndexAttr(1);
    }
    SmallVector<OpFoldResult> unitStrides(4, b.getIndexAttr(1));
    kTile = tensor::ExtractSliceOp::create(b, loc, k, kvOffsets, kvSizes,
                                           unitStrides);
    vTile = v == k ? kTile
                   : tensor::ExtractSliceOp::create(b, loc, v, kvOffsets,
                                                    kvSizes, unitStrides)
                         .getResult();
  }

  SmallVector<OpFoldResult> tileSizes(rowSizes);
  tileSizes.push_back(tileLength);
  AffineMap full = b.getMultiDimIdentityMap(4);
  AffineMap row = map(4, {dim(0), dim(1), dim(2)});
  auto rowType = cast<RankedTensorType>(maxOld.getType());
  bool causal = op.getCausal();

  // Float K and V tiles and a head dimension of whole vectors take the
  // vector kernels; a quantized cache's codes, or an odd head dimension,
  // linalg.generic loops.
  bool vectorProducts =
      !kScales &&
      isVectorAttentionDepth(
          cast<RankedTensorType>(q.getType()).getDimSize(3)) &&
      isVectorAttentionDepth(
          cast<RankedTensorType>(accOld.getType()).getDimSize(3));
  Value length = getValueOrCreateConstantIndexOp(b, loc, tileLength);
  auto visibleKeys = [&](OpBuilder &nb, Location nloc, ValueRange queryRow) {
    return getVisibleKeys(nb, nloc, queryRow, tileStart, length);
  };
  llmc::VisibleKeys visibleKeysIfCausal =
      causal ? llmc::VisibleKeys(visibleKeys) : llmc::VisibleKeys();

  Value scores, tileMax;
  std::optional<llmc::KeyPrefetch> kPrefetch, vPrefetch;
  if (vectorProducts) {
    // Narrow keys and values of a tile that several query rows read are
    // widened once, into f32 tiles (64 keys × head_dim, in L1), instead of
    // per row and vector: a prefill's block of 64 queries converted each
    // f16 element 64 times (VCVTPH2PS, one per cycle on Zen 3, was the
    // limit of both products). One query row (a decode step) widens in
    // registers.
    auto qType = cast<RankedTensorType>(q.getType());
    bool decodeStep = qType.getDimSize(1) == 1;
    if (!decodeStep) {
      Value wideKeys = widenToF32(kTile);
      vTile = vTile == kTile ? wideKeys : widenToF32(vTile);
      kTile = wideKeys;
    }
    // A decode step over a cache as stored in memory prefetches the next
    // tile's rows (a paged or quantized cache's rows are gathered per
    // tile).
    if (decodeStep && !stored) {
      kPrefetch = getKeyPrefetch(k, tileStart);
      vPrefetch = v == k ? kPrefetch : getKeyPrefetch(v, tileStart);
    }
    std::optional<double> softcap;
    if (auto cap = op.getSoftcap())
      softcap = cap->convertToDouble();
    std::tie(scores, tileMax) = llmc::createAttentionScores(
        b, loc, q, kTile, group,
        {scale, softcap, visibleKeysIfCausal, kMaskedScore},
        emptyF32(tileSizes), emptyF32(rowSizes), kPrefetch);
  } else {
    scores = emitScores(kTile, kScales, tileSizes);
    scores = emitMaskAndScale(scores, tileStart);
    // The tile's own row maximum, into a fresh tensor: m_old is still read
    // below, so it must not be overwritten yet.
    tileMax =
        linalg::GenericOp::create(
            b, loc, TypeRange{rowType}, ValueRange{scores},
            ValueRange{createFilled(b, loc, emptyF32(rowSizes), kMaskedScore)},
            ArrayRef<AffineMap>{full, row},
            ArrayRef<IteratorType>{kPar, kPar, kPar, kRed},
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nloc,
                  arith::MaximumFOp::create(nb, nloc, args[0], args[1])
                      .getResult());
            })
            .getResult(0);
  }

  // m_new = max(m_old, tile max); alpha = exp(m_old − m_new) rescales what
  // earlier tiles accumulated; l_scaled = l_old · alpha. m and l are
  // updated in their own (iter_arg) tensors, so that every value the loop
  // yields bufferizes in place of its iter_arg.
  AffineMap rowIdentity = b.getMultiDimIdentityMap(3);
  auto rescale = linalg::GenericOp::create(
      b, loc, TypeRange{rowType, rowType, rowType}, ValueRange{tileMax},
      ValueRange{maxOld, emptyF32(rowSizes), sumOld},
      ArrayRef<AffineMap>{rowIdentity, rowIdentity, rowIdentity, rowIdentity},
      ArrayRef<IteratorType>{kPar, kPar, kPar},
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value oldMax = args[1];
        Value newMax = arith::MaximumFOp::create(nb, nloc, oldMax, args[0]);
        Value delta = arith::SubFOp::create(nb, nloc, oldMax, newMax);
        Value alpha =
            math::ExpOp::create(nb, nloc, clampExponent(nb, nloc, delta));
        Value scaledSum = arith::MulFOp::create(nb, nloc, args[3], alpha);
        linalg::YieldOp::create(nb, nloc, ValueRange{newMax, alpha, scaledSum});
      });
  Value maxNew = rescale.getResult(0);
  Value alpha = rescale.getResult(1);

  // probs = exp(score − m_new), exactly 0 for masked keys: a row whose keys
  // are all masked so far has m_new = kMaskedScore and would get exp(0).
  Value maskedScore = f32Constant(kMaskedScore);
  Value zero = f32Constant(0.0);
  Value probs =
      linalg::GenericOp::create(
          b, loc, TypeRange{scores.getType()}, ValueRange{scores, maxNew},
          ValueRange{emptyF32(tileSizes)}, ArrayRef<AffineMap>{full, row, full},
          ArrayRef<IteratorType>{kPar, kPar, kPar, kPar},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value shifted = arith::SubFOp::create(nb, nloc, args[0], args[1]);
            Value prob =
                math::ExpOp::create(nb, nloc, clampExponent(nb, nloc, shifted));
            if (causal) {
              Value visible = arith::CmpFOp::create(
                  nb, nloc, arith::CmpFPredicate::OGT, args[0], maskedScore);
              prob = arith::SelectOp::create(nb, nloc, visible, prob, zero);
            }
            linalg::YieldOp::create(nb, nloc, prob);
          })
          .getResult(0);

  // l_new = l_scaled + Σ_s probs.
  Value sumNew =
      linalg::GenericOp::create(
          b, loc, TypeRange{rowType}, ValueRange{probs},
          ValueRange{rescale.getResult(2)}, ArrayRef<AffineMap>{full, row},
          ArrayRef<IteratorType>{kPar, kPar, kPar, kRed},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(
                nb, nloc,
                arith::AddFOp::create(nb, nloc, args[0], args[1], reductionMath)
                    .getResult());
          })
          .getResult(0);

  if (vectorProducts) {
    Value accNew = llmc::createAttentionValueSums(
        b, loc, probs, vTile, alpha, accOld, group, visibleKeysIfCausal,
        vPrefetch);
    return {maxNew, sumNew, accNew};
  }

  // acc_scaled = acc_old · alpha.
  Value accScaled =
      linalg::GenericOp::create(
          b, loc, TypeRange{accOld.getType()}, ValueRange{alpha},
          ValueRange{accOld}, ArrayRef<AffineMap>{row, full},
          ArrayRef<IteratorType>{kPar, kPar, kPar, kPar},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(
                nb, nloc,
                arith::MulFOp::create(nb, nloc, args[1], args[0]).getResult());
          })
          .getResult(0);

  // acc_new[b, t, h, d] = acc_scaled + Σ_s probs[b, t, h, s] ·
  // v[b, s, h floordiv G, d]. Dims: (b, t, h, s, d): the loops follow the
  // dims, so d is innermost, where v and acc are contiguous (with s
  // innermost, v would be read with a stride of kv_heads · head_dim).
  AffineMap probsMap = map(5, {dim(0), dim(1), dim(2), dim(3)});
  AffineMap vMap = map(5, {dim(0), dim(3), dim(2).floorDiv(group), dim(4)});
  AffineMap accMap = map(5, {dim(0), dim(1), dim(2), dim(4)});
  SmallVector<Value> pvInputs = {probs, vTile};
  SmallVector<AffineMap> pvMaps = {probsMap, vMap};
  if (vScales) {
    pvInputs.push_back(vScales);
    pvMaps.push_back(map(5, {dim(0), dim(3), dim(2).floorDiv(group)}));
  }
  pvMaps.push_back(accMap);
  Value accNew =
      linalg::GenericOp::create(
          b, loc, TypeRange{accOld.getType()}, pvInputs, ValueRange{accScaled},
          pvMaps, ArrayRef<IteratorType>{kPar, kPar, kPar, kRed, kPar},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value ve = loadKV(nb, nloc, args[1], vScales ? args[2] : Value());
            // A masked key may be a cache slot never written (unspecified
            // bits, possibly NaN/Inf): 0 · NaN would poison the row, so
            // zero-probability keys contribute p · 0 = 0. The select is on
            // the value, not on the product, so that the multiply and the
            // add still contract into one FMA.
            if (causal) {
              Value used = arith::CmpFOp::create(
                  nb, nloc, arith::CmpFPredicate::OGT, args[0], zero);
              ve = arith::SelectOp::create(nb, nloc, used, ve, zero);
            }
            Value product =
                arith::MulFOp::create(nb, nloc, args[0], ve, reductionMath);
            linalg::YieldOp::create(nb, nloc,
                                    arith::AddFOp::create(nb, nloc, args.back(),
                                                          product,
                                                          reductionMath)
                                        .getResult());
          })
          .getResult(0);
  return {maxNew, sumNew, accNew};
}

/// result = acc / l in the result element type; a row that saw no visible
/// key (l = 0, e.g. a position past every key of its window) yields 0
/// rather than NaN, a row whose scores held NaN (l is NaN) NaN.
Value AttentionEmitter::emitOutput(Value acc, Value sum, Value destination) {
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  Type elementType = resultType.getElementType();
  Value init = destination
                   ? destination
                   : tensor::EmptyOp::create(b, loc, qSizes, elementType);
  AffineMap full = b.getMultiDimIdentityMap(4);
  AffineMap row = map(4, {dim(0), dim(1), dim(2)});
  Value zero = f32Constant(0.0);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{acc, sum},
             ValueRange{init}, ArrayRef<AffineMap>{full, row, full},
             ArrayRef<IteratorType>{kPar, kPar, kPar, kPar},
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value quotient =
                   arith::DivFOp::create(nb, nloc, args[0], args[1]);
               // Unordered: a NaN sum (a NaN score) gives NaN, not 0.
               Value seen = arith::CmpFOp::create(
                   nb, nloc, arith::CmpFPredicate::UGT, args[1], zero);
               Value value =
                   arith::SelectOp::create(nb, nloc, seen, quotient, zero);
               linalg::YieldOp::create(
                   nb, nloc, convertFloat(nb, nloc, value, elementType));
             })
      .getResult(0);
}

Value AttentionEmitter::emit() {
  scale = computeScale();
  keyCount = b.createOrFold<tensor::DimOp>(loc, k, 1);
  Value queryCount = b.createOrFold<tensor::DimOp>(loc, q, 1);
  Value offset = b.createOrFold<arith::SubIOp>(loc, keyCount, queryCount);
  std::optional<int64_t> staticQueries = getConstantIntValue(queryCount);
  // Causal attention over many queries: one block of kQueryBlock queries at
  // a time, each over the keys its own positions see, so that a prefill
  // reads about half the key tiles that all queries at once would.
  bool blocked =
      op.getCausal() && !(staticQueries && *staticQueries <= kQueryBlock);
  // Query heads are independent too, one at a time against its own KV
  // head (whose rows alone are read from a paged or quantized cache): the
  // attention of a few queries (one block) runs on every thread instead of
  // one, and a prefill's blocks of unequal cost (block i sees i + 1 key
  // blocks) split evenly; a decode step splits by KV head and key chunk
  // (emitDecodeStep). One block splits only when its work at full capacity
  // (heads × head_dim × keys, dynamic extents counted as large) is worth an
  // OpenMP region: not for stories260K's 8 heads of 8.
  int64_t heads = op.getNumHeads();
  auto qType = cast<RankedTensorType>(q.getType());
  auto kType = cast<RankedTensorType>(k.getType());
  bool smallWork =
      !qType.isDynamicDim(3) && !kType.isDynamicDim(1) &&
      heads * qType.getDimSize(3) * kType.getDimSize(1) < minParallelElements;
  if (staticQueries == 1 && !smallWork)
    return emitDecodeStep(offset);
  bool splitHeads = heads > 1 && (blocked || !smallWork);
  if (!blocked && !splitHeads)
    return emitRows(offset);

  // Blocks and heads are independent: an scf.forall, which becomes an
  // OpenMP region (llm-parallel-to-openmp). Heads outermost: its threads
  // take contiguous runs of the iterations, so a run holds whole heads
  // (every block of each).
  Value fullQ = q, fullPositions = positions;
  int64_t fullGroup = group;
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, fullQ);
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, resultType.getElementType());
  SmallVector<OpFoldResult> unitStrides(4, b.getIndexAttr(1));
  Value blockCount;
  SmallVector<OpFoldResult> upperBounds;
  if (splitHeads)
    upperBounds.push_back(b.getIndexAttr(heads));
  if (blocked) {
    blockCount = b.createOrFold<arith::DivUIOp>(
        loc,
        b.createOrFold<arith::AddIOp>(loc, queryCount, index(kQueryBlock - 1)),
        index(kQueryBlock));
    upperBounds.push_back(blockCount);
  }
  auto loop = scf::ForallOp::create(
      b, loc, SmallVector<OpFoldResult>(upperBounds.size(), b.getIndexAttr(0)),
      upperBounds,
      SmallVector<OpFoldResult>(upperBounds.size(), b.getIndexAttr(1)),
      ValueRange{init}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getTerminator());
  SmallVector<Value> ivs = loop.getInductionVars();
  SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0));
  SmallVector<OpFoldResult> blockSizes(sizes);
  Value start = index(0);
  if (splitHeads) {
    Value head = ivs.front();
    offsets[2] = head;
    blockSizes[2] = b.getIndexAttr(1);
    kvHead = b.createOrFold<arith::DivUIOp>(loc, head, index(group));
    group = 1;
  }
  if (blocked) {
    start = arith::MulIOp::create(
        b, loc, getBalancedBlock(ivs.back(), blockCount), index(kQueryBlock));
    offsets[1] = start;
    blockSizes[1] = b.createOrFold<arith::MinSIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, queryCount, start),
        index(kQueryBlock));
  }
  q = tensor::ExtractSliceOp::create(b, loc, fullQ, offsets, blockSizes,
                                     unitStrides);
  if (fullPositions && blocked)
    positions = tensor::ExtractSliceOp::create(
        b, loc, fullPositions, ArrayRef<OpFoldResult>(offsets).take_front(2),
        ArrayRef<OpFoldResult>(blockSizes).take_front(2),
        ArrayRef<OpFoldResult>(unitStrides).take_front(2));
  // The iteration's rows are computed into their slice of the result
  // (destination passing), so that bufferization writes them in place
  // instead of copying a dynamically shaped block.
  Value shared = loop.getRegionIterArgs()[0];
  Value destination = tensor::ExtractSliceOp::create(b, loc, shared, offsets,
                                                     blockSizes, unitStrides);
  Value rows =
      emitRows(b.createOrFold<arith::AddIOp>(loc, offset, start), destination);
  b.setInsertionPointToStart(loop.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, rows, shared, offsets,
                                        blockSizes, unitStrides);
  q = fullQ;
  positions = fullPositions;
  group = fullGroup;
  kvHead = Value();
  return loop.getResult(0);
}

/// A decode step (one query per head) as flash-decoding does it: the
/// iterations of an scf.forall are (KV head, chunk of keys), each the
/// online softmax of the KV head's query heads over its chunk, and the
/// chunks' states (m, l, acc) are combined after it.
/// - By KV head, with the query heads that share it in one iteration: each
///   K and V tile is read from memory once for all of them and then from
///   L1 (per query head, the group's other heads read it again from L2 or
///   memory; a KV head's whole context outgrows L2 at a few thousand keys).
/// - By chunks of keys: the threads share each KV head's keys, where whole
///   KV heads split unevenly (SmolLM2's 3 on 2 threads: 2 against 1) or not
///   at all (MQA's one), and a chunk's share of the run-time key range
///   shrinks with the context.
/// The chunks are stacked along dimension 1 of the states (the one query's
/// dimension).
Value AttentionEmitter::emitDecodeStep(Value positionOffset) {
  qSizes = tensor::getMixedSizes(b, loc, q);
  implicitPositionOffset = positionOffset;
  auto [begin, end] = computeKeyRange();
  Value zero = index(0);
  Value span = b.createOrFold<arith::MaxSIOp>(
      loc, b.createOrFold<arith::SubIOp>(loc, end, begin), zero);
  // ⌈span / kMinDecodeChunkKeys⌉ chunks, at least 1 and at most
  // kMaxDecodeChunks, of ⌈span / chunks⌉ keys (the last one shorter).
  Value chunks = b.createOrFold<arith::CeilDivSIOp>(
      loc, span, index(kMinDecodeChunkKeys));
  chunks = b.createOrFold<arith::MaxSIOp>(loc, chunks, index(1));
  chunks = b.createOrFold<arith::MinSIOp>(loc, chunks, index(kMaxDecodeChunks));
  Value chunkLength = b.createOrFold<arith::CeilDivSIOp>(loc, span, chunks);

  SmallVector<OpFoldResult> stateSizes(qSizes);
  stateSizes[1] = chunks;
  SmallVector<OpFoldResult> stateRowSizes(stateSizes.begin(),
                                          stateSizes.begin() + 3);
  SmallVector<Value> shared = {emptyF32(stateRowSizes),
                               emptyF32(stateRowSizes), emptyF32(stateSizes)};
  int64_t kvHeads = op.getNumKvHeads();
  auto loop = scf::ForallOp::create(
      b, loc, SmallVector<OpFoldResult>(2, b.getIndexAttr(0)),
      SmallVector<OpFoldResult>{b.getIndexAttr(kvHeads), chunks},
      SmallVector<OpFoldResult>(2, b.getIndexAttr(1)), shared,
      /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getTerminator());
  Value fullQ = q;
  SmallVector<OpFoldResult> fullQSizes(qSizes);
  // Query heads [kvHead · group, (kvHead + 1) · group), whose rows all read
  // the one KV head of the tiles (row h of the slice: h floordiv group = 0).
  kvHead = loop.getInductionVars()[0];
  Value chunk = loop.getInductionVars()[1];
  SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0));
  offsets[2] = b.createOrFold<arith::MulIOp>(loc, kvHead, index(group));
  SmallVector<OpFoldResult> sliceSizes(qSizes);
  sliceSizes[2] = b.getIndexAttr(group);
  SmallVector<OpFoldResult> unitStrides(4, b.getIndexAttr(1));
  q = tensor::ExtractSliceOp::create(b, loc, fullQ, offsets, sliceSizes,
                                     unitStrides);
  qSizes = tensor::getMixedSizes(b, loc, q);
  rowSizes.assign(qSizes.begin(), qSizes.begin() + 3);
  Value chunkBegin = b.createOrFold<arith::AddIOp>(
      loc, begin, b.createOrFold<arith::MulIOp>(loc, chunk, chunkLength));
  Value chunkEnd = b.createOrFold<arith::MinSIOp>(
      loc, b.createOrFold<arith::AddIOp>(loc, chunkBegin, chunkLength), end);
  SmallVector<Value> state = emitKeyRange(chunkBegin, chunkEnd);

  // Each state into the chunk's row of its stack.
  offsets[1] = chunk;
  b.setInsertionPointToStart(loop.getTerminator().getBody());
  for (auto [value, stack] : llvm::zip(state, loop.getRegionIterArgs())) {
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    tensor::ParallelInsertSliceOp::create(
        b, loc, value, stack, ArrayRef<OpFoldResult>(offsets).take_front(rank),
        tensor::getMixedSizes(b, loc, value),
        ArrayRef<OpFoldResult>(unitStrides).take_front(rank));
  }
  b.setInsertionPointAfter(loop);
  q = fullQ;
  qSizes = fullQSizes;
  rowSizes.assign(qSizes.begin(), qSizes.begin() + 3);
  kvHead = Value();
  return combineChunks(loop.getResult(0), loop.getResult(1),
                       loop.getResult(2));
}

/// With M = max_c m_c and w_c = exp(m_c − M): l = Σ_c w_c · l_c and
/// acc = Σ_c w_c · acc_c, the state of one pass over every chunk's keys,
/// then acc / l (emitOutput). A chunk without a visible key (m_c =
/// kMaskedScore, l_c = 0, acc_c = 0) adds nothing; a NaN anywhere stays.
Value AttentionEmitter::combineChunks(Value maxes, Value sums, Value accs) {
  // A linalg.generic that folds `step` (of the inputs' elements and the
  // running value, last) over the chunks into `init`.
  using Step = function_ref<Value(OpBuilder &, Location, ValueRange)>;
  auto reduceChunks = [&](Value init, ValueRange inputs,
                          ArrayRef<AffineMap> maps,
                          ArrayRef<IteratorType> iterators, Step step) {
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
               maps, iterators,
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 linalg::YieldOp::create(nb, nloc, step(nb, nloc, args));
               })
        .getResult(0);
  };
  auto maximumStep = [](OpBuilder &nb, Location nloc,
                        ValueRange args) -> Value {
    return arith::MaximumFOp::create(nb, nloc, args[1], args[0]);
  };
  auto weightedSumStep = [&](OpBuilder &nb, Location nloc,
                             ValueRange args) -> Value {
    Value term =
        arith::MulFOp::create(nb, nloc, args[0], args[1], reductionMath);
    return arith::AddFOp::create(nb, nloc, args[2], term, reductionMath);
  };
  // M: dims (b, 0, h, c), the chunks a reduction into the query's row.
  AffineMap stateRow = map(4, {dim(0), dim(3), dim(2)});
  AffineMap row = map(4, {dim(0), dim(1), dim(2)});
  SmallVector<IteratorType> rowReduction = {kPar, kPar, kPar, kRed};
  Value maximum = reduceChunks(
      createFilled(b, loc, emptyF32(rowSizes), kMaskedScore), {maxes},
      {stateRow, row}, rowReduction, maximumStep);
  // w_c, once per chunk and row.
  AffineMap identity = b.getMultiDimIdentityMap(3);
  AffineMap firstRow = map(3, {dim(0), getAffineConstantExpr(0, ctx), dim(2)});
  Value weights =
      linalg::GenericOp::create(
          b, loc, TypeRange{maxes.getType()}, ValueRange{maxes, maximum},
          ValueRange{emptyF32(tensor::getMixedSizes(b, loc, maxes))},
          ArrayRef<AffineMap>{identity, firstRow, identity},
          ArrayRef<IteratorType>{kPar, kPar, kPar},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value delta = arith::SubFOp::create(nb, nloc, args[0], args[1]);
            linalg::YieldOp::create(
                nb, nloc,
                math::ExpOp::create(nb, nloc, clampExponent(nb, nloc, delta))
                    .getResult());
          })
          .getResult(0);
  Value sum = reduceChunks(createFilled(b, loc, emptyF32(rowSizes), 0.0),
                           {weights, sums}, {stateRow, stateRow, row},
                           rowReduction, weightedSumStep);
  // Dims (b, 0, h, c, d): d innermost, where acc is contiguous.
  Value acc = reduceChunks(createFilled(b, loc, emptyF32(qSizes), 0.0),
                           {weights, accs},
                           {map(5, {dim(0), dim(3), dim(2)}),
                            map(5, {dim(0), dim(3), dim(2), dim(4)}),
                            map(5, {dim(0), dim(1), dim(2), dim(4)})},
                           {kPar, kPar, kPar, kRed, kPar}, weightedSumStep);
  return emitOutput(acc, sum, /*destination=*/Value());
}

/// The query block that iteration `i` of `count` computes: 0, count − 1, 1,
/// count − 2, ... A block's work grows with its index (it sees the keys up
/// to its own queries), so pairing cheap and expensive blocks evens out the
/// work of the contiguous runs of iterations that the threads take
/// (llm-parallel-to-openmp's chunks).
Value AttentionEmitter::getBalancedBlock(Value i, Value count) {
  Value pair = arith::DivUIOp::create(b, loc, i, index(2));
  Value second = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::RemUIOp::create(b, loc, i, index(2)), index(0));
  Value fromEnd = arith::SubIOp::create(
      b, loc, arith::SubIOp::create(b, loc, count, index(1)), pair);
  return arith::SelectOp::create(b, loc, second, fromEnd, pair);
}

Value AttentionEmitter::emitRows(Value positionOffset, Value destination) {
  qSizes = tensor::getMixedSizes(b, loc, q);
  rowSizes.assign(qSizes.begin(), qSizes.begin() + 3);
  implicitPositionOffset = positionOffset;
  auto [begin, end] = computeKeyRange();
  SmallVector<Value> state = emitKeyRange(begin, end);
  return emitOutput(/*acc=*/state[2], /*sum=*/state[1], destination);
}

SmallVector<Value> AttentionEmitter::emitKeyRange(Value begin, Value end) {
  SmallVector<Value> state = {
      createFilled(b, loc, emptyF32(rowSizes), kMaskedScore),
      createFilled(b, loc, emptyF32(rowSizes), 0.0),
      createFilled(b, loc, emptyF32(qSizes), 0.0)};

  // Split [begin, end) into full tiles of kKeyTile keys (static tile shapes)
  // and one partial tail tile. Index arithmetic is folded so that static
  // shapes drop the loop or the tail when they cannot run.
  Value zero = index(0), tile = index(kKeyTile);
  Value span = b.createOrFold<arith::MaxSIOp>(
      loc, b.createOrFold<arith::SubIOp>(loc, end, begin), zero);
  Value tailLength = b.createOrFold<arith::RemSIOp>(loc, span, tile);
  Value fullEnd = b.createOrFold<arith::SubIOp>(
      loc, b.createOrFold<arith::AddIOp>(loc, begin, span), tailLength);

  std::optional<int64_t> staticSpan = getConstantIntValue(span);
  if (!staticSpan || *staticSpan >= kKeyTile) {
    auto tileLoop = scf::ForOp::create(
        b, loc, begin, fullEnd, tile, state,
        [&](OpBuilder &nb, Location nloc, Value start, ValueRange args) {
          scf::YieldOp::create(nb, nloc,
                               emitTile(start, b.getIndexAttr(kKeyTile), args));
        });
    state.assign(tileLoop.getResults().begin(), tileLoop.getResults().end());
  }

  std::optional<int64_t> staticTail = getConstantIntValue(tailLength);
  if (staticTail) {
    if (*staticTail > 0)
      state = emitTile(fullEnd, b.getIndexAttr(*staticTail), state);
  } else {
    Value hasTail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                          tailLength, zero);
    auto tail = scf::IfOp::create(
        b, loc, hasTail,
        [&](OpBuilder &nb, Location nloc) {
          scf::YieldOp::create(nb, nloc, emitTile(fullEnd, tailLength, state));
        },
        [&](OpBuilder &nb, Location nloc) {
          scf::YieldOp::create(nb, nloc, state);
        });
    state.assign(tail.getResults().begin(), tail.getResults().end());
  }
  return state;
}

struct AttentionLowering : OpConversionPattern<llm::AttentionOp> {
  AttentionLowering(TypeConverter &converter, MLIRContext *context,
                    int64_t minParallelElements)
      : OpConversionPattern(converter, context),
        minParallelElements(minParallelElements) {}

  LogicalResult
  matchAndRewrite(llm::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Keys and values of a paged or quantized cache are read a tile at a
    // time as stored (the view's own gather or dequantization is then left
    // unused).
    AttentionEmitter emitter(
        op, adaptor.getQ(), adaptor.getK(), adaptor.getV(),
        adaptor.getPositions(),
        llmc::getCacheLayer(op.getK(), op.getV(), rewriter),
        minParallelElements, rewriter);
    rewriter.replaceOp(op, emitter.emit());
    return success();
  }

  int64_t minParallelElements;
};

} // namespace

void llmc::populateAttentionToLinalgPatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             int64_t minParallelElements) {
  patterns.add<AttentionLowering>(converter, patterns.getContext(),
                                  minParallelElements);
}
