// llm.kv_append → a scatter kernel into the cache (either layout; a quantized cache's rows quantized per head); llm.kv_view → memref.view of one layer.
#include "codegen/cuda/KVCacheKernels.h"
#include "codegen/common/KVQuantization.h"
#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace llmc::cuda;
using llmc::getConvertedLayer;

Value llmc::cuda::viewCacheLayer(OpBuilder &b, Location loc,
                                 llm::KVCacheType cacheType, Value cacheBytes,
                                 OpFoldResult layer, CacheHalf half) {
  // A head row is head_dim elements, or head_dim codes and the scale.
  int64_t layerBytes = cacheType.getBatch() * cacheType.getCapacity() *
                       cacheType.getKvHeads() * cacheType.getHeadRowBytes();
  Value layerIndex = getValueOrCreateConstantIndexOp(b, loc, layer);
  int64_t plane = half == kValues ? cacheType.getValuesPlane() : 0;
  Value slot = arith::AddIOp::create(
      b, loc, indexConstant(b, loc, plane * cacheType.getLayers()), layerIndex);
  Value shift =
      arith::MulIOp::create(b, loc, slot, indexConstant(b, loc, layerBytes));
  bool quantized = cacheType.isQuantized();
  SmallVector<int64_t> shape = {
      cacheType.getBatch(), cacheType.getCapacity(), cacheType.getKvHeads(),
      quantized ? cacheType.getHeadRowBytes() : cacheType.getHeadDim()};
  if (cacheType.isPaged()) {
    shape[0] = cacheType.getPageCount();
    shape[1] = cacheType.getPageSize();
  }
  auto viewType = MemRefType::get(
      shape, quantized ? b.getI8Type() : cacheType.getElementType());
  return memref::ViewOp::create(b, loc, viewType, cacheBytes, shift,
                                ValueRange{});
}

std::string llmc::cuda::getPageTag(llm::KVCacheType cacheType) {
  if (!cacheType.isPaged())
    return "";
  return "_pg" + std::to_string(cacheType.getPageSize());
}

PageTable PageTable::get(llm::KVCacheType cacheType, Value table) {
  if (!cacheType.isPaged())
    return {};
  return {table, cacheType.getPageSize(), cacheType.getPageCount()};
}

std::pair<Value, Value> llmc::cuda::lookupPage(DeviceBuilder &d,
                                               const PageTable &pages,
                                               Value batch, Value position) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value pageSize = d.index(pages.pageSize);
  Value column = arith::DivUIOp::create(b, loc, position, pageSize);
  Value page = d.toIndex(
      memref::LoadOp::create(b, loc, pages.table, ValueRange{batch, column}));
  Value slot = arith::RemUIOp::create(b, loc, position, pageSize);
  return {page, slot};
}

std::pair<Value, Value> llmc::cuda::getCacheReadIndex(DeviceBuilder &d,
                                                      const PageTable &pages,
                                                      Value batch,
                                                      Value position) {
  if (!pages)
    return {batch, position};
  auto [page, slot] = lookupPage(d, pages, batch, position);
  Value clamped = arith::MinUIOp::create(d.builder(), d.location(), page,
                                         d.index(pages.pageCount - 1));
  return {clamped, slot};
}

std::pair<Value, Value> llmc::cuda::emitCacheRow(DeviceBuilder &d,
                                                 int64_t batchSize,
                                                 int64_t capacity,
                                                 Value positions, Value token,
                                                 const PageTable &pages) {
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
  if (!pages) {
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, batch, d.index(capacity)),
        position);
    return {row, valid};
  }
  // The table is read at a position clamped into the capacity: a skipped
  // token's column may lie past the table.
  Value inCapacity =
      arith::MinUIOp::create(b, loc, position, d.index(capacity - 1));
  auto [page, slot] = lookupPage(d, pages, batch, inCapacity);
  Value pageValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          page, d.index(pages.pageCount));
  valid = arith::AndIOp::create(b, loc, valid, pageValid);
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, page, d.index(pages.pageSize)),
      slot);
  return {row, valid};
}

Value llmc::cuda::collapseHeads(OpBuilder &b, Location loc, Value buffer) {
  return memref::CollapseShapeOp::create(
      b, loc, buffer, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
}

void llmc::cuda::storeQuantizedHeadRow(DeviceBuilder &d,
                                       llm::KVCacheType cacheType,
                                       ArrayRef<RowElement> elements,
                                       Value cacheRows, Value row,
                                       Value head) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value zero = d.f32(0.0);
  Value largest = zero;
  for (const RowElement &element : elements)
    largest = arith::MaximumFOp::create(
        b, loc, largest,
        arith::SelectOp::create(b, loc, element.valid,
                                math::AbsFOp::create(b, loc, element.value),
                                zero));
  largest = d.warpReduce(largest, ReduceKind::Max);
  llmc::KVRowQuantization quantization =
      llmc::getKVRowQuantization(b, loc, largest, cacheType.getMaxCode());
  Value rowStart =
      arith::MulIOp::create(b, loc, head, d.index(cacheType.getHeadRowBytes()));
  for (const RowElement &element : elements) {
    Value code = llmc::encodeKVCode(
        b, loc,
        arith::MulFOp::create(b, loc, element.value, quantization.codeFactor),
        cacheType.getElementType());
    auto store = scf::IfOp::create(b, loc, element.valid, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(store.thenBlock());
    memref::StoreOp::create(
        b, loc, code, cacheRows,
        ValueRange{row, arith::AddIOp::create(b, loc, rowStart, element.column)});
  }
  // Lanes 0..3 store the scale's bytes after the codes.
  Value lane = d.laneId();
  auto scaleByte = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                            d.index(cacheType.getScaleBytes())),
      false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(scaleByte.thenBlock());
  Value column = arith::AddIOp::create(
      b, loc, rowStart,
      arith::AddIOp::create(b, loc, d.index(cacheType.getHeadDim()), lane));
  memref::StoreOp::create(b, loc,
                          llmc::getKVScaleByte(b, loc, quantization.scale, lane),
                          cacheRows, ValueRange{row, column});
}

namespace {

/// Threads per block of the append kernel (one block per token).
constexpr int64_t kAppendBlockSize = 256;

/// Quantized append: warp w of the block quantizes KV heads w, w + 8, ...
/// of the token's keys, then of its values (storeQuantizedHeadRow); lane l
/// holds elements l + 32 · j of the head row.
void emitQuantizedAppend(DeviceBuilder &d, llm::KVCacheType cache, Value token,
                         Value dest, ArrayRef<std::pair<Value, Value>> halves) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  int64_t headDim = cache.getHeadDim();
  int64_t warps = kAppendBlockSize / kWarpSize;
  Value lane = d.laneId();
  for (auto [from, to] : halves) {
    auto heads = scf::ForOp::create(b, loc, d.warpId(),
                                    d.index(cache.getKvHeads()),
                                    d.index(warps));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(heads.getBody());
    Value head = heads.getInductionVar();
    Value headStart = arith::MulIOp::create(b, loc, head, d.index(headDim));
    SmallVector<RowElement> elements;
    for (int64_t j = 0; j * kWarpSize < headDim; ++j) {
      Value column = arith::AddIOp::create(b, loc, lane, d.index(j * kWarpSize));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          column, d.index(headDim));
      Value safe =
          arith::MinUIOp::create(b, loc, column, d.index(headDim - 1));
      Value x = d.toF32(memref::LoadOp::create(
          b, loc, from,
          ValueRange{token, arith::AddIOp::create(b, loc, headStart, safe)}));
      elements.push_back({x, column, valid});
    }
    storeQuantizedHeadRow(d, cache, elements, to, dest, head);
  }
}

/// kv_append[_keys]_r<row>_c<capacity>[_pg<page size>]_<source>_to_<type>:
/// block i copies token i's keys and values (kv_heads · head_dim each) to
/// its cache row (emitCacheRow: (b, positions[i]), or its page's slot
/// through the page table, the last argument of a paged kernel); tokens
/// past the capacity or on a page outside the pool are skipped (the runtime
/// checks positions and the table before a call). A quantized cache's rows
/// (kv_heads · (head_dim + 4) bytes) take each head's codes and scale
/// (emitQuantizedAppend). `_keys`: a cache whose values are its keys, whose
/// kernel takes and stores the keys only (no values and no values' rows
/// among its arguments).
gpu::GPUFuncOp getAppendKernel(KernelModule &kernels, llm::KVCacheType cache,
                               Type sourceType) {
  Type elementType = cache.getElementType();
  int64_t row = cache.getKvHeads() * cache.getHeadDim();
  int64_t capacity = cache.getCapacity();
  bool keysOnly = cache.valuesAreKeys();
  std::string name = std::string(keysOnly ? "kv_append_keys" : "kv_append") +
                     "_r" + std::to_string(row) + "_c" +
                     std::to_string(capacity) + getPageTag(cache) + "_" +
                     getTypeTag(sourceType) + "_to_" +
                     getTypeTag(elementType);
  MLIRContext *context = elementType.getContext();
  auto dyn = ShapedType::kDynamic;
  auto source = MemRefType::get({dyn, row}, sourceType);
  auto positions = MemRefType::get({dyn}, IntegerType::get(context, 32));
  auto target =
      cache.isQuantized()
          ? MemRefType::get({cache.getBatch() * capacity,
                             cache.getKvHeads() * cache.getHeadRowBytes()},
                            IntegerType::get(context, 8))
          : MemRefType::get({cache.getBatch() * capacity, row}, elementType);
  // (keys, [values,] positions, cache keys' rows, [cache values' rows,]
  // [page table]).
  SmallVector<Type> argTypes =
      keysOnly ? SmallVector<Type>{source, positions, target}
               : SmallVector<Type>{source, source, positions, target, target};
  if (cache.isPaged())
    argTypes.push_back(MemRefType::get(cache.getPageTableType().getShape(),
                                       IntegerType::get(context, 32)));
  return kernels.getOrCreate(
      name, argTypes,
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location loc = func.getLoc();
        DeviceBuilder d(b, loc);
        ValueRange args = func.getArguments();
        // (source, cache rows) of the keys, then of the values if stored.
        SmallVector<std::pair<Value, Value>, 2> halves;
        Value pos;
        if (keysOnly) {
          pos = args[1];
          halves.push_back({args[0], args[2]});
        } else {
          pos = args[2];
          halves.append({{args[0], args[3]}, {args[1], args[4]}});
        }
        PageTable pages = PageTable::get(
            cache, cache.isPaged() ? args.back() : Value());
        Value token = d.blockId();
        auto [dest, valid] =
            emitCacheRow(d, cache.getBatch(), capacity, pos, token, pages);
        auto guard = scf::IfOp::create(b, loc, valid, false);
        b.setInsertionPointToStart(guard.thenBlock());
        if (cache.isQuantized()) {
          emitQuantizedAppend(d, cache, token, dest, halves);
          return;
        }
        auto loop = scf::ForOp::create(b, loc, d.threadId(), d.index(row),
                                       d.index(kAppendBlockSize));
        b.setInsertionPointToStart(loop.getBody());
        Value col = loop.getInductionVar();
        for (auto [from, to] : halves) {
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
    Value cache = adaptor.getCache();
    OpFoldResult layer = getConvertedLayer(op, adaptor);
    auto rows = [&](Value buffer) { return collapseHeads(rewriter, loc, buffer); };
    auto flatCache = rows;
    // (batch, seq, kv_heads, head_dim) → (batch·seq, kv_heads·head_dim).
    // A cache whose values are its keys takes none (getAppendKernel).
    Value keys = rows(adaptor.getKeys());
    Value values = adaptor.getValues() ? rows(adaptor.getValues()) : Value();
    Value positions = memref::CollapseShapeOp::create(
        rewriter, loc, adaptor.getPositions(),
        SmallVector<ReassociationIndices>{{0, 1}});
    // The layer's rows: (batch·capacity) or, paged, (pages·page_size).
    Value cacheK = flatCache(viewCacheLayer(rewriter, loc, cacheType, cache, layer, kKeys));
    Value cacheV;
    if (values)
      cacheV = flatCache(
          viewCacheLayer(rewriter, loc, cacheType, cache, layer, kValues));
    Type sourceType = cast<MemRefType>(keys.getType()).getElementType();
    gpu::GPUFuncOp kernel = getAppendKernel(kernels, cacheType, sourceType);
    LaunchShape shape;
    shape.grid[0] = memref::DimOp::create(rewriter, loc, positions, 0);
    shape.block = {kAppendBlockSize, 1, 1};
    SmallVector<Value> args =
        values ? SmallVector<Value>{keys, values, positions, cacheK, cacheV}
               : SmallVector<Value>{keys, positions, cacheK};
    if (cacheType.isPaged())
      args.push_back(adaptor.getPageTable());
    emitLaunch(rewriter, loc, kernel, shape, args);
    rewriter.replaceOp(op, cache);
    return success();
  }
};

/// A paged or quantized view has no buffer of its logical (batch, capacity)
/// f32 order: its users, llm.attention (verifyStoredKVViews checked that
/// there are no others), read the pages through the table and decode the
/// codes themselves, so the view is dropped.
struct KVViewLowering : OpConversionPattern<llm::KVViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::KVViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto cacheType = cast<llm::KVCacheType>(op.getCache().getType());
    if (isStoredView(cacheType)) {
      rewriter.eraseOp(op);
      return success();
    }
    OpFoldResult layer = getConvertedLayer(op, adaptor);
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

bool llmc::cuda::isStoredView(llm::KVCacheType cacheType) {
  return cacheType.isPaged() || cacheType.isQuantized();
}

bool llmc::cuda::isAttentionOnStoredView(llm::KVViewOp view,
                                         llm::AttentionOp attention) {
  return isStoredView(view.getCache().getType()) &&
         attention.getK() == view.getKeys() &&
         attention.getV() == view.getValues() &&
         attention.getQ().getDefiningOp() != view.getOperation();
}

LogicalResult llmc::cuda::verifyStoredKVViews(Operation *root) {
  WalkResult result = root->walk([](llm::KVViewOp view) {
    llm::KVCacheType cacheType = view.getCache().getType();
    if (!isStoredView(cacheType))
      return WalkResult::advance();
    for (Operation *user : view->getUsers()) {
      auto attention = dyn_cast<llm::AttentionOp>(user);
      if (!attention || !isAttentionOnStoredView(view, attention)) {
        view.emitOpError()
            << "of a " << (cacheType.isPaged() ? "paged" : "quantized")
            << " KV cache: the CUDA lowering reads it only as the keys and "
               "values (in that order) of llm.attention, "
            << (cacheType.isPaged() ? "through the page table"
                                    : "decoding its codes and scales")
            << "; here it is used by '" << user->getName() << "'";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
