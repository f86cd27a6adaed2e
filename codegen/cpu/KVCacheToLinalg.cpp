// Lowers !llm.kv_cache (contiguous) to a tensor and llm.kv_append / llm.kv_view to tensor slices.
#include "codegen/cpu/LLMToLinalg.h"

#include "dialect/LLMOps.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// Index of the keys (0) and values (1) in the leading dimension of the
/// converted cache tensor (2, layers, batch, capacity, kv_heads, head_dim).
constexpr int64_t kKeysIndex = 0;
constexpr int64_t kValuesIndex = 1;
/// Rank of the converted cache tensor: the K/V selector plus the five
/// logical dimensions.
constexpr int64_t kCacheRank = 6;

/// The cache operand's type once converted to the 6-d tensor, else null.
RankedTensorType getConvertedCacheType(Value cache) {
  auto type = dyn_cast<RankedTensorType>(cache.getType());
  return type && type.getRank() == kCacheRank ? type : RankedTensorType();
}

/// The op's layer: the converted index operand, or the constant.
template <typename OpTy>
OpFoldResult getConvertedLayer(OpTy op, typename OpTy::Adaptor adaptor) {
  if (op.getLayerIndex())
    return adaptor.getLayerIndex();
  return op.getLayerValue();
}

/// llm.kv_append: for each (b, t), writes keys[b, t] (kv_heads, head_dim) to
/// cache[0, layer, b, positions[b, t]] and values[b, t] to cache[1, ...].
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
    Value keys = adaptor.getKeys(), values = adaptor.getValues();
    Value positions = adaptor.getPositions();
    auto keysType = cast<RankedTensorType>(keys.getType());
    int64_t kvHeads = cacheType.getDimSize(4);
    int64_t headDim = cacheType.getDimSize(5);

    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value zero = index(0), one = index(1);
    Value batch = rewriter.createOrFold<tensor::DimOp>(loc, keys, 0);
    Value tokens = rewriter.createOrFold<tensor::DimOp>(loc, keys, 1);
    OpFoldResult layer = getConvertedLayer(op, adaptor);
    // One (kv_heads, head_dim) row of keys/values per (b, t).
    auto rowType =
        RankedTensorType::get({kvHeads, headDim}, keysType.getElementType());
    SmallVector<OpFoldResult> unitStrides4(4, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> unitStrides6(kCacheRank,
                                           rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> rowSizes4 = {
        rewriter.getIndexAttr(1), rewriter.getIndexAttr(1),
        rewriter.getIndexAttr(kvHeads), rewriter.getIndexAttr(headDim)};
    SmallVector<OpFoldResult> rowSizes6 = {
        rewriter.getIndexAttr(1),       rewriter.getIndexAttr(1),
        rewriter.getIndexAttr(1),       rewriter.getIndexAttr(1),
        rewriter.getIndexAttr(kvHeads), rewriter.getIndexAttr(headDim)};

    auto batchLoop = scf::ForOp::create(
        rewriter, loc, zero, batch, one, ValueRange{cache},
        [&](OpBuilder &b, Location loc, Value bIv, ValueRange batchArgs) {
          auto tokenLoop = scf::ForOp::create(
              b, loc, zero, tokens, one, ValueRange{batchArgs[0]},
              [&](OpBuilder &b, Location loc, Value tIv, ValueRange args) {
                Value position = tensor::ExtractOp::create(
                    b, loc, positions, ValueRange{bIv, tIv});
                Value slot = arith::IndexCastOp::create(
                    b, loc, b.getIndexType(), position);
                SmallVector<OpFoldResult> srcOffsets = {
                    bIv, tIv, b.getIndexAttr(0), b.getIndexAttr(0)};
                Value updated = args[0];
                for (auto [selector, source] :
                     {std::pair{kKeysIndex, keys},
                      std::pair{kValuesIndex, values}}) {
                  Value row = tensor::ExtractSliceOp::create(
                      b, loc, rowType, source, srcOffsets, rowSizes4,
                      unitStrides4);
                  SmallVector<OpFoldResult> dstOffsets = {
                      b.getIndexAttr(selector), layer, bIv, slot,
                      b.getIndexAttr(0),        b.getIndexAttr(0)};
                  updated = tensor::InsertSliceOp::create(
                      b, loc, row, updated, dstOffsets, rowSizes6,
                      unitStrides6);
                }
                scf::YieldOp::create(b, loc, updated);
              });
          scf::YieldOp::create(b, loc, tokenLoop.getResults());
        });
    rewriter.replaceOp(op, batchLoop.getResults());
    return success();
  }
};

/// llm.kv_view: the layer's keys and values as two rank-reducing
/// tensor.extract_slice ops (batch, capacity, kv_heads, head_dim) of the
/// cache; bufferization makes them subviews, so nothing is copied.
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
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(1)};
    for (int64_t extent : viewType.getShape())
      sizes.push_back(rewriter.getIndexAttr(extent));
    SmallVector<OpFoldResult> strides(kCacheRank, rewriter.getIndexAttr(1));
    SmallVector<Value> views;
    for (int64_t selector : {kKeysIndex, kValuesIndex}) {
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
    // A null type (not std::nullopt) so that no other conversion is tried:
    // a paged cache has no tensor form here and must stay illegal.
    if (type.getLayout() != llm::KVCacheLayout::contiguous)
      return Type();
    return RankedTensorType::get({2, type.getLayers(), type.getBatch(),
                                  type.getCapacity(), type.getKvHeads(),
                                  type.getHeadDim()},
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
