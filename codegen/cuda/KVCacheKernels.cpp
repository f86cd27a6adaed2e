// llm.kv_append → a scatter kernel into the cache; llm.kv_view → memref.view of one layer.
#include "codegen/cuda/KVCacheKernels.h"
#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace llmc::cuda;

Value llmc::cuda::viewCacheLayer(OpBuilder &b, Location loc,
                                 llm::KVCacheType cacheType, Value cacheBytes,
                                 OpFoldResult layer, CacheHalf half) {
  int64_t layerElements = cacheType.getBatch() * cacheType.getCapacity() *
                          cacheType.getKvHeads() * cacheType.getHeadDim();
  int64_t elementBytes = cacheType.getElementType().getIntOrFloatBitWidth() / 8;
  Value layerIndex = getValueOrCreateConstantIndexOp(b, loc, layer);
  Value slot = arith::AddIOp::create(
      b, loc, indexConstant(b, loc, half * cacheType.getLayers()), layerIndex);
  Value shift = arith::MulIOp::create(
      b, loc, slot, indexConstant(b, loc, layerElements * elementBytes));
  auto viewType = MemRefType::get(
      {cacheType.getBatch(), cacheType.getCapacity(), cacheType.getKvHeads(),
       cacheType.getHeadDim()},
      cacheType.getElementType());
  return memref::ViewOp::create(b, loc, viewType, cacheBytes, shift,
                                ValueRange{});
}

std::pair<Value, Value> llmc::cuda::emitCacheRow(DeviceBuilder &d,
                                                 int64_t batchSize,
                                                 int64_t capacity,
                                                 Value positions,
                                                 Value token) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value tokens = memref::DimOp::create(b, loc, positions, 0);
  // Tokens are (batch, seq) row-major: batch = token / seq.
  Value seq = arith::DivUIOp::create(b, loc, tokens, d.index(batchSize));
  Value batch = arith::DivUIOp::create(b, loc, token, seq);
  Value position =
      d.toIndex(memref::LoadOp::create(b, loc, positions, token));
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      position, d.index(capacity));
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, batch, d.index(capacity)),
      position);
  return {row, valid};
}

Value llmc::cuda::collapseHeads(OpBuilder &b, Location loc, Value buffer) {
  return memref::CollapseShapeOp::create(
      b, loc, buffer, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
}

namespace {

/// Threads per block of the append kernel (one block per token).
constexpr int64_t kAppendBlockSize = 256;

/// kv_append_<rowElements>_<type>: block i copies token i's keys and values
/// (kv_heads · head_dim f32 each) to cache row (b, positions[i]); rows past
/// the capacity are skipped (the runtime checks positions before a call).
gpu::GPUFuncOp getAppendKernel(KernelModule &kernels, llm::KVCacheType cache,
                               Type sourceType) {
  Type elementType = cache.getElementType();
  int64_t row = cache.getKvHeads() * cache.getHeadDim();
  int64_t capacity = cache.getCapacity();
  std::string name = "kv_append_r" + std::to_string(row) + "_c" +
                     std::to_string(capacity) + "_" + getTypeTag(sourceType) +
                     "_to_" + getTypeTag(elementType);
  MLIRContext *context = elementType.getContext();
  auto dyn = ShapedType::kDynamic;
  auto source = MemRefType::get({dyn, row}, sourceType);
  auto positions = MemRefType::get({dyn}, IntegerType::get(context, 32));
  auto target = MemRefType::get({cache.getBatch() * capacity, row}, elementType);
  return kernels.getOrCreate(
      name, {source, source, positions, target, target},
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location loc = func.getLoc();
        DeviceBuilder d(b, loc);
        Value keys = func.getArgument(0), values = func.getArgument(1);
        Value pos = func.getArgument(2);
        Value cacheK = func.getArgument(3), cacheV = func.getArgument(4);
        Value token = d.blockId();
        auto [dest, valid] =
            emitCacheRow(d, cache.getBatch(), capacity, pos, token);
        auto guard = scf::IfOp::create(b, loc, valid, false);
        b.setInsertionPointToStart(guard.thenBlock());
        auto loop = scf::ForOp::create(b, loc, d.threadId(), d.index(row),
                                       d.index(kAppendBlockSize));
        b.setInsertionPointToStart(loop.getBody());
        Value col = loop.getInductionVar();
        for (auto [from, to] : {std::pair{keys, cacheK}, {values, cacheV}}) {
          Value v = memref::LoadOp::create(b, loc, from, ValueRange{token, col});
          v = d.fromF32(d.toF32(v), elementType);
          memref::StoreOp::create(b, loc, v, to, ValueRange{dest, col});
        }
      });
}

struct KVAppendLowering : KernelPattern<llm::KVAppendOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::KVAppendOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto cacheType = cast<llm::KVCacheType>(op.getCache().getType());
    if (cacheType.getLayout() != llm::KVCacheLayout::contiguous)
      return rewriter.notifyMatchFailure(op, "paged cache");
    Value cache = adaptor.getCache();
    OpFoldResult layer = getLayer(op, adaptor);
    auto rows = [&](Value buffer) { return collapseHeads(rewriter, loc, buffer); };
    auto flatCache = rows;
    // (batch, seq, kv_heads, head_dim) → (batch·seq, kv_heads·head_dim).
    Value keys = rows(adaptor.getKeys()), values = rows(adaptor.getValues());
    Value positions = memref::CollapseShapeOp::create(
        rewriter, loc, adaptor.getPositions(),
        SmallVector<ReassociationIndices>{{0, 1}});
    Value cacheK = flatCache(viewCacheLayer(rewriter, loc, cacheType, cache, layer, kKeys));
    Value cacheV =
        flatCache(viewCacheLayer(rewriter, loc, cacheType, cache, layer, kValues));
    Type sourceType = cast<MemRefType>(keys.getType()).getElementType();
    gpu::GPUFuncOp kernel = getAppendKernel(kernels, cacheType, sourceType);
    LaunchShape shape;
    shape.grid[0] = memref::DimOp::create(rewriter, loc, positions, 0);
    shape.block = {kAppendBlockSize, 1, 1};
    emitLaunch(rewriter, loc, kernel, shape,
               {keys, values, positions, cacheK, cacheV});
    rewriter.replaceOp(op, cache);
    return success();
  }
};

struct KVViewLowering : OpConversionPattern<llm::KVViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::KVViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto cacheType = cast<llm::KVCacheType>(op.getCache().getType());
    if (cacheType.getLayout() != llm::KVCacheLayout::contiguous)
      return rewriter.notifyMatchFailure(op, "paged cache");
    OpFoldResult layer = getLayer(op, adaptor);
    Location loc = op.getLoc();
    Value keys = viewCacheLayer(rewriter, loc, cacheType, adaptor.getCache(), layer, kKeys);
    Value values =
        viewCacheLayer(rewriter, loc, cacheType, adaptor.getCache(), layer, kValues);
    rewriter.replaceOp(op, {keys, values});
    return success();
  }
};

} // namespace

void llmc::cuda::populateKVCacheKernelPatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               KernelModule &kernels) {
  patterns.add<KVAppendLowering>(converter, patterns.getContext(), kernels);
  patterns.add<KVViewLowering>(converter, patterns.getContext());
}
