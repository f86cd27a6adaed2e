// Lowers !llm.kv_cache to a tensor and llm.kv_append / llm.kv_view to tensor slices (contiguous) or page-table gathers and scatters (paged); quantizes and dequantizes the rows of an i8 / f8E4M3FN cache.
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/common/ConvertedLayer.h"
#include "codegen/common/KVQuantization.h"

#include "dialect/LLMOps.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using llmc::getConvertedLayer;
using llmc::kKeysIndex;

namespace {

/// Rank of the converted cache tensor: the K/V plane, the layer and the
/// four dimensions of one layer's keys (values).
constexpr int64_t kCacheRank = 6;

/// The cache operand's type once converted to the 6-d tensor, else null.
RankedTensorType getConvertedCacheType(Value cache) {
  auto type = dyn_cast<RankedTensorType>(cache.getType());
  return type && type.getRank() == kCacheRank ? type : RankedTensorType();
}

/// The cache row of logical position `position` of sequence `batch`: (b, p)
/// for a contiguous cache; (table[b, p / page_size], p mod page_size) for a
/// paged one, the page clamped into the pool (the runtime hands out valid
/// pages; a bad table must still not address memory outside the cache).
std::pair<Value, Value> locateRow(OpBuilder &b, Location loc,
                                  llm::KVCacheType cacheType,
                                  Value pageTable, Value batch,
                                  Value position) {
  if (!cacheType.isPaged())
    return {batch, position};
  Value pageSize =
      arith::ConstantIndexOp::create(b, loc, cacheType.getPageSize());
  Value pageIndex = arith::DivUIOp::create(b, loc, position, pageSize);
  Value slot = arith::RemUIOp::create(b, loc, position, pageSize);
  Value entry = tensor::ExtractOp::create(b, loc, pageTable,
                                          ValueRange{batch, pageIndex});
  Value page = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), entry);
  Value lastPage =
      arith::ConstantIndexOp::create(b, loc, cacheType.getPageCount() - 1);
  page = arith::MinUIOp::create(b, loc, page, lastPage);
  return {page, slot};
}

/// The slices of one (kv_heads, width) cache row: in a (batch, tokens,
/// kv_heads, width) tensor and in the converted cache, each with unit
/// strides.
struct CacheRowSlices {
  RankedTensorType rowType;
  SmallVector<OpFoldResult> sizes4, strides4, sizes6, strides6;

  CacheRowSlices(OpBuilder &b, int64_t kvHeads, int64_t width,
                 Type elementType)
      : rowType(RankedTensorType::get({kvHeads, width}, elementType)),
        strides4(4, b.getIndexAttr(1)), strides6(kCacheRank, b.getIndexAttr(1)) {
    sizes6.assign(kCacheRank - 2, b.getIndexAttr(1));
    sizes6.append({b.getIndexAttr(kvHeads), b.getIndexAttr(width)});
    sizes4.assign(sizes6.begin() + 2, sizes6.end());
  }
};

using utils::IteratorType;

/// One position's (kv_heads, head_dim) f32 keys or values of a quantized
/// cache as stored: (kv_heads, row bytes), each head's codes followed by
/// its scale's bytes, scale = max |x| / max code per head (0 for an
/// all-zero head, whose codes are then 0). Built whole, so that storing it
/// is one contiguous copy.
Value quantizeRow(OpBuilder &b, Location loc, Value row,
                  llm::KVCacheType cacheType) {
  MLIRContext *ctx = b.getContext();
  int64_t kvHeads = cacheType.getKvHeads(), headDim = cacheType.getHeadDim();
  int64_t rowBytes = cacheType.getHeadRowBytes();
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  Type codeType = cacheType.getElementType();
  double maxCode = cacheType.getMaxCode();
  AffineMap rowMap = b.getMultiDimIdentityMap(2);
  AffineMap headMap = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  Value largestEmpty =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{kvHeads}, f32);
  Value largestInit =
      linalg::FillOp::create(b, loc, zero, largestEmpty).getResult(0);
  Value largest =
      linalg::GenericOp::create(
          b, loc, TypeRange{largestInit.getType()}, ValueRange{row},
          ValueRange{largestInit}, ArrayRef<AffineMap>{rowMap, headMap},
          ArrayRef<IteratorType>{IteratorType::parallel,
                                 IteratorType::reduction},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value magnitude = math::AbsFOp::create(nb, nloc, args[0]);
            linalg::YieldOp::create(
                nb, nloc,
                arith::MaximumFOp::create(nb, nloc, args[1], magnitude)
                    .getResult());
          })
          .getResult(0);
  // Dims (h, j): byte j of head h's row is code j (j < head_dim), else
  // byte j − head_dim of the scale.
  return linalg::GenericOp::create(
             b, loc, TypeRange{RankedTensorType::get({kvHeads, rowBytes}, i8)},
             ValueRange{largest},
             ValueRange{tensor::EmptyOp::create(
                 b, loc, ArrayRef<int64_t>{kvHeads, rowBytes}, i8)},
             ArrayRef<AffineMap>{headMap, rowMap},
             ArrayRef<IteratorType>{IteratorType::parallel,
                                    IteratorType::parallel},
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value h = linalg::IndexOp::create(nb, nloc, 0);
               Value j = linalg::IndexOp::create(nb, nloc, 1);
               Value dim = arith::ConstantIndexOp::create(nb, nloc, headDim);
               Value isCode = arith::CmpIOp::create(
                   nb, nloc, arith::CmpIPredicate::ult, j, dim);
               Value element = arith::MinUIOp::create(
                   nb, nloc, j,
                   arith::ConstantIndexOp::create(nb, nloc, headDim - 1));
               Value x = tensor::ExtractOp::create(nb, nloc, row,
                                                   ValueRange{h, element});
               llmc::KVRowQuantization quantization =
                   llmc::getKVRowQuantization(nb, nloc, args[0], maxCode);
               Value code = llmc::encodeKVCode(
                   nb, nloc,
                   arith::MulFOp::create(nb, nloc, x,
                                         quantization.codeFactor),
                   codeType);
               Value scale = quantization.scale;
               Value byteIndex = arith::SelectOp::create(
                   nb, nloc, isCode,
                   arith::ConstantIndexOp::create(nb, nloc, 0),
                   arith::SubIOp::create(nb, nloc, j, dim));
               Value scaleByte =
                   llmc::getKVScaleByte(nb, nloc, scale, byteIndex);
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::SelectOp::create(nb, nloc, isCode, code, scaleByte)
                       .getResult());
             })
      .getResult(0);
}

/// Rows read from a quantized cache, (batch, length, kv_heads, row bytes),
/// as f32 keys or values (batch, length, kv_heads, head_dim).
Value dequantizeRows(OpBuilder &b, Location loc, Value rows,
                     llm::KVCacheType cacheType) {
  MLIRContext *ctx = b.getContext();
  Value scales = llmc::decodeRowScales(b, loc, rows, cacheType);
  Value codes = llmc::sliceRowCodes(b, loc, rows, cacheType);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, codes);
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  AffineMap full = b.getMultiDimIdentityMap(4);
  AffineMap row = AffineMap::get(
      4, 0,
      {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
       getAffineDimExpr(2, ctx)},
      ctx);
  Type codeType = cacheType.getElementType();
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{codes, scales},
             ValueRange{init}, ArrayRef<AffineMap>{full, row, full},
             SmallVector<IteratorType>(4, IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value value = llmc::decodeKVCode(nb, nloc, args[0], codeType);
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::MulFOp::create(nb, nloc, value, args[1])
                       .getResult());
             })
      .getResult(0);
}

/// for b in [0, batch), t in [0, tokens): accs = body(b, t, accs), starting
/// from `inits` (value semantics: the accumulated tensors are iter_args).
ValueRange buildRowLoops(
    OpBuilder &builder, Location loc, Value batch, Value tokens,
    ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, Value,
                                    ValueRange)>
        body) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto batchLoop = scf::ForOp::create(
      builder, loc, zero, batch, one, inits,
      [&](OpBuilder &b, Location loc, Value bIv, ValueRange batchArgs) {
        auto tokenLoop = scf::ForOp::create(
            b, loc, zero, tokens, one, batchArgs,
            [&](OpBuilder &b, Location loc, Value tIv, ValueRange args) {
              scf::YieldOp::create(b, loc, body(b, loc, bIv, tIv, args));
            });
        scf::YieldOp::create(b, loc, tokenLoop.getResults());
      });
  return batchLoop.getResults();
}

/// `x` (keys or values) in the element type a cache of `cacheType` stores
/// rows of: f32 rounded to a bf16/f16 cache's type (arith.truncf on the
/// tensor, which convert-elementwise-to-linalg and llm-cpu-parallel-rows
/// then lower and spread over a prefill's tokens); a quantized cache's
/// rows are quantized from f32 per row instead (quantizeRow).
Value roundToCache(OpBuilder &b, Location loc, Value x,
                   llm::KVCacheType cacheType) {
  auto type = cast<RankedTensorType>(x.getType());
  Type stored = cacheType.getValueType();
  if (cacheType.isQuantized() || type.getElementType() == stored)
    return x;
  return arith::TruncFOp::create(b, loc, type.clone(stored), x);
}

/// llm.kv_append: for each (b, t), writes keys[b, t] (kv_heads, head_dim) to
/// cache[0, layer, row(b, positions[b, t])] and values[b, t] to
/// cache[1, ...] (none for a cache whose values are its keys), where row is
/// locateRow's (b, p) or (page, slot); f32 keys and values are first
/// rounded to the cache's element type (roundToCache).
/// The cache is threaded through the loops as an iter_arg so that the IR
/// stays in value semantics; one-shot bufferization turns each
/// tensor.insert_slice into a copy into the (in-place) cache buffer.
struct KVAppendLowering : OpConversionPattern<llm::KVAppendOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(llm::KVAppendOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value cache = adaptor.getCache();
    auto cacheType = getConvertedCacheType(cache);
    if (!cacheType)
      return rewriter.notifyMatchFailure(op, "cache was not converted");
    auto logicalType = cast<llm::KVCacheType>(op.getCache().getType());
    Value keys = roundToCache(rewriter, loc, adaptor.getKeys(), logicalType);
    Value values = adaptor.getValues();
    if (values)
      values = roundToCache(rewriter, loc, values, logicalType);
    Value positions = adaptor.getPositions();
    auto keysType = cast<RankedTensorType>(keys.getType());
    Value pageTable = adaptor.getPageTable();
    int64_t kvHeads = logicalType.getKvHeads();
    int64_t headDim = logicalType.getHeadDim();

    Value batch = rewriter.createOrFold<tensor::DimOp>(loc, keys, 0);
    Value tokens = rewriter.createOrFold<tensor::DimOp>(loc, keys, 1);
    OpFoldResult layer = getConvertedLayer(op, adaptor);
    // One (kv_heads, head_dim) row of keys/values per (b, t).
    CacheRowSlices slices(rewriter, kvHeads, headDim,
                          keysType.getElementType());
    // The row as stored: a quantized cache's codes and scale bytes.
    CacheRowSlices stored(rewriter, kvHeads, cacheType.getDimSize(5),
                          cacheType.getElementType());
    Value updatedCache = buildRowLoops(
        rewriter, loc, batch, tokens, cache,
        [&](OpBuilder &b, Location loc, Value bIv, Value tIv,
            ValueRange accs) -> SmallVector<Value> {
          Value acc = accs[0];
          Value position = tensor::ExtractOp::create(b, loc, positions,
                                                     ValueRange{bIv, tIv});
          Value logical =
              arith::IndexCastOp::create(b, loc, b.getIndexType(), position);
          auto [outer, inner] =
              locateRow(b, loc, logicalType, pageTable, bIv, logical);
          SmallVector<OpFoldResult> srcOffsets = {
              bIv, tIv, b.getIndexAttr(0), b.getIndexAttr(0)};
          SmallVector<std::pair<int64_t, Value>, 2> planes = {
              {kKeysIndex, keys}};
          if (values)
            planes.push_back({logicalType.getValuesPlane(), values});
          for (auto [selector, source] : planes) {
            Value row = tensor::ExtractSliceOp::create(
                b, loc, slices.rowType, source, srcOffsets, slices.sizes4,
                slices.strides4);
            SmallVector<OpFoldResult> dstOffsets = {
                b.getIndexAttr(selector), layer, outer, inner,
                b.getIndexAttr(0),        b.getIndexAttr(0)};
            if (logicalType.isQuantized())
              row = quantizeRow(b, loc, row, logicalType);
            acc = tensor::InsertSliceOp::create(b, loc, row, acc, dstOffsets,
                                                stored.sizes6,
                                                stored.strides6);
          }
          return {acc};
        })[0];
    rewriter.replaceOp(op, updatedCache);
    return success();
  }
};

/// llm.kv_view: the layer's keys and values. Of a contiguous cache, two
/// rank-reducing tensor.extract_slice ops (batch, capacity, kv_heads,
/// head_dim), one when the values are the keys (both results); bufferization
/// makes them subviews, so nothing is copied. Of a paged cache, one gather
/// of both in logical order (readCacheRows over the whole capacity). A
/// quantized cache's rows are then dequantized.
/// llm.attention reads paged and quantized caches a tile at a time itself
/// (getCacheLayer), which leaves the gather or dequantization dead where it
/// is the user.
struct KVViewLowering : OpConversionPattern<llm::KVViewOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(llm::KVViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value cache = adaptor.getCache();
    if (!getConvertedCacheType(cache))
      return rewriter.notifyMatchFailure(op, "cache was not converted");
    auto viewType = op.getKeys().getType();
    llm::KVCacheType cacheType = op.getCache().getType();
    SmallVector<Value> views;
    if (op.getPageTable() || cacheType.isQuantized()) {
      llmc::CacheLayer layer{cache, adaptor.getPageTable(),
                             getConvertedLayer(op, adaptor), cacheType};
      auto [keys, values] = llmc::readCacheRows(
          rewriter, loc, layer, arith::ConstantIndexOp::create(rewriter, loc, 0),
          rewriter.getIndexAttr(viewType.getDimSize(1)));
      if (cacheType.isQuantized()) {
        Value stored = keys;
        keys = dequantizeRows(rewriter, loc, keys, cacheType);
        values = values == stored
                     ? keys
                     : dequantizeRows(rewriter, loc, values, cacheType);
      }
      rewriter.replaceOp(op, {keys, values});
      return success();
    }
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(1)};
    for (int64_t extent : viewType.getShape())
      sizes.push_back(rewriter.getIndexAttr(extent));
    SmallVector<OpFoldResult> strides(kCacheRank, rewriter.getIndexAttr(1));
    for (int64_t selector : {kKeysIndex, cacheType.getValuesPlane()}) {
      if (selector == kKeysIndex && !views.empty()) {
        views.push_back(views.front()); // The values are the keys.
        continue;
      }
      SmallVector<OpFoldResult> offsets(kCacheRank, rewriter.getIndexAttr(0));
      offsets[0] = rewriter.getIndexAttr(selector);
      offsets[1] = getConvertedLayer(op, adaptor);
      views.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, viewType, cache, offsets, sizes, strides));
    }
    rewriter.replaceOp(op, views);
    return success();
  }
};

} // namespace

void llmc::addKVCacheTypeConversion(TypeConverter &converter) {
  converter.addConversion([](llm::KVCacheType type) -> std::optional<Type> {
    // The same elements in either layout: a layer's rows are (batch,
    // capacity) or (pages, page_size).
    // A quantized cache's rows are bytes: head_dim codes, then the scale.
    // One plane (keys) when the values are the keys, else two.
    int64_t outer = type.isPaged() ? type.getPageCount() : type.getBatch();
    int64_t inner = type.isPaged() ? type.getPageSize() : type.getCapacity();
    int64_t planes = type.getPlaneCount();
    if (type.isQuantized())
      return RankedTensorType::get({planes, type.getLayers(), outer, inner,
                                    type.getKvHeads(), type.getHeadRowBytes()},
                                   IntegerType::get(type.getContext(), 8));
    return RankedTensorType::get({planes, type.getLayers(), outer, inner,
                                  type.getKvHeads(), type.getHeadDim()},
                                 type.getElementType());
  });
  // Where a cache value crosses IR this pass does not rewrite (a cast made
  // by a test or by the runtime glue), the two forms meet through
  // unrealized_conversion_cast pairs that reconcile-unrealized-casts folds.
  auto castTo = [](OpBuilder &builder, Type type, ValueRange inputs,
                   Location loc) -> Value {
    if (inputs.size() != 1)
      return Value();
    return UnrealizedConversionCastOp::create(builder, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(
      [castTo](OpBuilder &builder, llm::KVCacheType type, ValueRange inputs,
               Location loc) { return castTo(builder, type, inputs, loc); });
  converter.addTargetMaterialization(
      [castTo](OpBuilder &builder, RankedTensorType type, ValueRange inputs,
               Location loc) -> Value {
        if (inputs.size() != 1 || !isa<llm::KVCacheType>(inputs[0].getType()))
          return Value();
        return castTo(builder, type, inputs, loc);
      });
}

void llmc::populateKVCacheToLinalgPatterns(TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<KVAppendLowering, KVViewLowering>(converter,
                                                 patterns.getContext());
}

std::optional<llmc::CacheLayer>
llmc::getCacheLayer(Value keys, Value values,
                    ConversionPatternRewriter &rewriter) {
  auto op = keys.getDefiningOp<llm::KVViewOp>();
  if (!op || keys != op.getKeys() || values != op.getValues() ||
      (!op.getPageTable() && !op.getCache().getType().isQuantized()))
    return std::nullopt;
  Value cache = rewriter.getRemappedValue(op.getCache());
  Value pageTable;
  if (op.getPageTable()) {
    pageTable = rewriter.getRemappedValue(op.getPageTable());
    if (!pageTable)
      return std::nullopt;
  }
  OpFoldResult layer = getConvertedLayer(op, rewriter);
  if (!cache || !getConvertedCacheType(cache) || !layer)
    return std::nullopt;
  return CacheLayer{cache, pageTable, layer, op.getCache().getType()};
}

std::pair<Value, Value> llmc::readCacheRows(OpBuilder &b, Location loc,
                                            const CacheLayer &layer,
                                            Value start, OpFoldResult length,
                                            Value kvHead) {
  llm::KVCacheType cacheType = layer.cacheType;
  auto storedType = getConvertedCacheType(layer.cache);
  int64_t kvHeads = kvHead ? 1 : storedType.getDimSize(4);
  int64_t width = storedType.getDimSize(5);
  OpFoldResult firstHead =
      kvHead ? OpFoldResult(kvHead) : OpFoldResult(b.getIndexAttr(0));
  Type elementType = storedType.getElementType();
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(cacheType.getBatch()),
                                     length, b.getIndexAttr(kvHeads),
                                     b.getIndexAttr(width)};
  // The planes read: keys and values, or the keys alone (returned as both)
  // when they are the values.
  SmallVector<int64_t, 2> planes = {kKeysIndex};
  if (!cacheType.valuesAreKeys())
    planes.push_back(cacheType.getValuesPlane());
  auto asPair = [](ValueRange read) {
    return std::pair{read.front(), read.back()};
  };
  if (!layer.pageTable) {
    // Contiguous: (batch, capacity) rows, sliced in place.
    SmallVector<Value> halves;
    SmallVector<OpFoldResult> sizes6 = {b.getIndexAttr(1), b.getIndexAttr(1)};
    sizes6.append(sizes);
    SmallVector<OpFoldResult> strides(kCacheRank, b.getIndexAttr(1));
    auto type = RankedTensorType::get(
        {cacheType.getBatch(), getConstantIntValue(length).value_or(
                                   ShapedType::kDynamic),
         kvHeads, width},
        elementType);
    for (int64_t plane : planes) {
      SmallVector<OpFoldResult> offsets = {
          b.getIndexAttr(plane), layer.layer, b.getIndexAttr(0),
          start,                 firstHead,   b.getIndexAttr(0)};
      halves.push_back(tensor::ExtractSliceOp::create(
          b, loc, type, layer.cache, offsets, sizes6, strides));
    }
    return asPair(halves);
  }
  Value init = tensor::EmptyOp::create(b, loc, sizes, elementType);
  CacheRowSlices slices(b, kvHeads, width, elementType);
  // One (kv_heads, head_dim) row of keys and one of values per (sequence,
  // key): the page lookup is done once for both, and each row is a
  // contiguous copy (a memcpy once bufferized).
  Value batch = arith::ConstantIndexOp::create(b, loc, cacheType.getBatch());
  ValueRange gathered = buildRowLoops(
      b, loc, batch, getValueOrCreateConstantIndexOp(b, loc, length),
      SmallVector<Value, 2>(planes.size(), init),
      [&](OpBuilder &kb, Location kloc, Value bIv, Value sIv,
          ValueRange accs) -> SmallVector<Value> {
        Value key = arith::AddIOp::create(kb, kloc, start, sIv);
        auto [page, slot] =
            locateRow(kb, kloc, cacheType, layer.pageTable, bIv, key);
        SmallVector<OpFoldResult> to = {bIv, sIv, kb.getIndexAttr(0),
                                        kb.getIndexAttr(0)};
        SmallVector<Value> updated;
        for (auto [half, acc] : llvm::zip_equal(planes, accs)) {
          SmallVector<OpFoldResult> from = {kb.getIndexAttr(half),
                                            layer.layer,
                                            page,
                                            slot,
                                            firstHead,
                                            kb.getIndexAttr(0)};
          Value row = tensor::ExtractSliceOp::create(
              kb, kloc, slices.rowType, layer.cache, from, slices.sizes6,
              slices.strides6);
          updated.push_back(tensor::InsertSliceOp::create(
              kb, kloc, row, acc, to, slices.sizes4, slices.strides4));
        }
        return updated;
      });
  return asPair(gathered);
}

Value llmc::decodeRowScales(OpBuilder &b, Location loc, Value rows,
                            llm::KVCacheType cacheType) {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, rows);
  sizes.pop_back();
  Value init = tensor::EmptyOp::create(b, loc, sizes, b.getF32Type());
  // Dims (b, s, h): the scale's byte j is row element head_dim + j.
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (int64_t j = 0; j < cacheType.getScaleBytes(); ++j) {
    inputs.push_back(rows);
    maps.push_back(AffineMap::get(
        3, 0,
        {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
         getAffineDimExpr(2, ctx),
         getAffineConstantExpr(cacheType.getHeadDim() + j, ctx)},
        ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(3));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
             maps, SmallVector<utils::IteratorType>(
                       3, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc, llmc::assembleKVScale(nb, nloc, args.drop_back()));
             })
      .getResult(0);
}

Value llmc::sliceRowCodes(OpBuilder &b, Location loc, Value rows,
                          llm::KVCacheType cacheType) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, rows);
  sizes.back() = b.getIndexAttr(cacheType.getHeadDim());
  return tensor::ExtractSliceOp::create(
      b, loc, rows, SmallVector<OpFoldResult>(4, b.getIndexAttr(0)), sizes,
      SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
}
