// llm.rope_append → one kernel that rotates the queries and writes rotated keys and values into the cache.
#include "codegen/cuda/KVCacheKernels.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "codegen/cuda/RopeKernels.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace llmc::cuda;
using llmc::getConvertedLayer;

namespace {

/// What one thread of the kernel does with its item, in item order: the
/// queries' pairs, the keys' pairs, the values' elements, then the
/// elements past rotary_dim of the queries and of the keys. For a quantized
/// cache a whole warp quantizes one KV head's row of keys (KeyRow: rotated
/// pairs and the elements past rotary_dim) or of values (ValueRow): those
/// ranges come first, 32 items per head, so that they hold whole warps.
enum class Task {
  QueryPair,
  KeyPair,
  Value,
  QueryCopy,
  KeyCopy,
  KeyRow,
  ValueRow
};

struct TaskRange {
  Task task;
  int64_t count;
};

/// The static parameters of one llm.rope_append.
struct RopeAppendSpec {
  RopeSpec queries, keys;
  llm::KVCacheType cache;
  Type positionType;

  SmallVector<TaskRange> getTasks() const {
    if (cache.isQuantized())
      return {{Task::KeyRow, keys.heads * kWarpSize},
              {Task::ValueRow, keys.heads * kWarpSize},
              {Task::QueryPair, queries.numPairs()},
              {Task::QueryCopy, queries.numPassThrough()}};
    return {{Task::QueryPair, queries.numPairs()},
            {Task::KeyPair, keys.numPairs()},
            {Task::Value, keys.heads * keys.headDim},
            {Task::QueryCopy, queries.numPassThrough()},
            {Task::KeyCopy, keys.numPassThrough()}};
  }
  int64_t getNumItems() const {
    int64_t items = 0;
    for (TaskRange range : getTasks())
      items += range.count;
    return items;
  }

  /// rope_append_<style>_h<H>_kv<Hkv>_d<Dh>_r<rot>_<frequency tag>_<q, k
  /// type>_c<capacity>[_pg<page size>]_to_<cache type>_<position type>.
  std::string getName() const {
    return "rope_append_" + llm::stringifyRopeStyle(queries.style).str() +
           "_h" + std::to_string(queries.heads) + "_kv" +
           std::to_string(keys.heads) + "_d" +
           std::to_string(queries.headDim) + "_r" +
           std::to_string(queries.rotaryDim) + "_" +
           queries.getFrequencyTag() + "_" + getTypeTag(queries.elementType) +
           "_c" + std::to_string(cache.getCapacity()) + getPageTag(cache) +
           "_to_" +
           getTypeTag(cache.getElementType()) + "_" + getTypeTag(positionType);
  }
};

/// The kernel's arguments inside it.
struct RopeAppendArgs {
  Value q, keys, values, positions, invFreq, rotatedQ, cacheKeys, cacheValues;
  PageTable pages;
};

/// Runs the task of `item` (if item < the total): a chain of scf.if on the
/// task ranges, each range's body seeing the item's index within it.
void emitTaskDispatch(DeviceBuilder &d, ArrayRef<TaskRange> ranges,
                      Value item, int64_t first,
                      function_ref<void(Task, Value)> body) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  while (!ranges.empty() && ranges.front().count == 0)
    ranges = ranges.drop_front();
  if (ranges.empty())
    return;
  TaskRange range = ranges.front();
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        item, d.index(first + range.count));
  bool hasMore = llvm::any_of(ranges.drop_front(),
                              [](TaskRange r) { return r.count > 0; });
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/hasMore);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body(range.task, arith::SubIOp::create(b, loc, item, d.index(first)));
  if (hasMore) {
    b.setInsertionPointToStart(ifOp.elseBlock());
    emitTaskDispatch(d, ranges.drop_front(), item, first + range.count, body);
  }
}

/// KeyRow: warp `head` of the key-row items quantizes the token's rotated
/// keys of that KV head into the cache row; lane l holds pairs l + 32 · j
/// of the head and its elements rotary_dim + l + 32 · j.
void emitQuantizedKeyRow(DeviceBuilder &d, const RopeAppendSpec &spec,
                         const RopeAppendArgs &args, Value token, Value index,
                         Value cacheRow) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  const RopeSpec &keys = spec.keys;
  Value head = arith::DivUIOp::create(b, loc, index, d.index(kWarpSize));
  Value lane = arith::RemUIOp::create(b, loc, index, d.index(kWarpSize));
  Value headStart = arith::MulIOp::create(b, loc, head, d.index(keys.headDim));
  auto inRow = [&](Value column) {
    return arith::SubIOp::create(b, loc, column, headStart).getResult();
  };
  auto below = [&](Value x, int64_t limit) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 d.index(limit))
        .getResult();
  };
  SmallVector<RowElement> elements;
  for (int64_t j = 0; j * kWarpSize < keys.half(); ++j) {
    Value i = arith::AddIOp::create(b, loc, lane, d.index(j * kWarpSize));
    Value valid = below(i, keys.half());
    Value pair = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, head, d.index(keys.half())),
        arith::MinUIOp::create(b, loc, i, d.index(keys.half() - 1)));
    RotatedPair rotated = rotatePair(d, keys, args.keys, args.positions,
                                     args.invFreq, token, pair);
    elements.push_back({rotated.value0, inRow(rotated.column0), valid});
    elements.push_back({rotated.value1, inRow(rotated.column1), valid});
  }
  int64_t passThrough = keys.headDim - keys.rotaryDim;
  for (int64_t j = 0; j * kWarpSize < passThrough; ++j) {
    Value e = arith::AddIOp::create(b, loc, lane, d.index(j * kWarpSize));
    Value column = arith::AddIOp::create(
        b, loc, arith::MinUIOp::create(b, loc, e, d.index(passThrough - 1)),
        d.index(keys.rotaryDim));
    Value x = d.toF32(memref::LoadOp::create(
        b, loc, args.keys,
        ValueRange{token, arith::AddIOp::create(b, loc, headStart, column)}));
    elements.push_back({x, column, below(e, passThrough)});
  }
  storeQuantizedHeadRow(d, spec.cache, elements, args.cacheKeys, cacheRow,
                        head);
}

/// ValueRow: warp `head` of the value-row items quantizes the token's
/// values of that KV head; lane l holds elements l + 32 · j.
void emitQuantizedValueRow(DeviceBuilder &d, const RopeAppendSpec &spec,
                           const RopeAppendArgs &args, Value token,
                           Value index, Value cacheRow) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  int64_t headDim = spec.keys.headDim;
  Value head = arith::DivUIOp::create(b, loc, index, d.index(kWarpSize));
  Value lane = arith::RemUIOp::create(b, loc, index, d.index(kWarpSize));
  Value headStart = arith::MulIOp::create(b, loc, head, d.index(headDim));
  SmallVector<RowElement> elements;
  for (int64_t j = 0; j * kWarpSize < headDim; ++j) {
    Value column = arith::AddIOp::create(b, loc, lane, d.index(j * kWarpSize));
    Value safe = arith::MinUIOp::create(b, loc, column, d.index(headDim - 1));
    Value x = d.toF32(memref::LoadOp::create(
        b, loc, args.values,
        ValueRange{token, arith::AddIOp::create(b, loc, headStart, safe)}));
    elements.push_back({x, column,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                              column, d.index(headDim))});
  }
  storeQuantizedHeadRow(d, spec.cache, elements, args.cacheValues, cacheRow,
                        head);
}

/// The kernel (named by RopeAppendSpec::getName): grid (tokens, ceil(items
/// / 128)), block 128; thread t of block (token, g)
/// takes item g·128 + t (getTasks' order). Cache writes go to the token's
/// row of the layer (emitCacheRow: batch · capacity + positions[token], or
/// its page's slot through the page table, the last argument of a paged
/// kernel), converted to the cache's type (a quantized cache: a warp per
/// KV head row, storeQuantizedHeadRow); tokens past the capacity or on
/// a page outside the pool are not written, the queries are always
/// rotated.
gpu::GPUFuncOp getRopeAppendKernel(KernelModule &kernels,
                                   const RopeAppendSpec &spec,
                                   ArrayRef<Type> argTypes) {
  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      spec.getName(), argTypes, [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location loc = func.getLoc();
        DeviceBuilder d(b, loc);
        unsigned arg = 0;
        RopeAppendArgs args;
        args.q = func.getArgument(arg++);
        args.keys = func.getArgument(arg++);
        args.values = func.getArgument(arg++);
        args.positions = func.getArgument(arg++);
        Value dynamicTable =
            spec.queries.isDynamic() ? func.getArgument(arg++) : Value();
        args.rotatedQ = func.getArgument(arg++);
        args.cacheKeys = func.getArgument(arg++);
        args.cacheValues = func.getArgument(arg++);
        if (spec.cache.isPaged())
          args.pages = PageTable::get(spec.cache, func.getArgument(arg++));
        args.invFreq = getInverseFrequencies(b, loc, kernels, spec.queries,
                                             dynamicTable);
        Value token = d.blockId(gpu::Dimension::x);
        Value item = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, d.blockId(gpu::Dimension::y),
                                  d.index(kRopeBlockSize)),
            d.threadId());
        auto [cacheRow, inCache] =
            emitCacheRow(d, spec.cache.getBatch(), spec.cache.getCapacity(),
                         args.positions, token, args.pages);

        // A cache write only for a row inside the capacity.
        auto intoCache = [&](function_ref<void()> write) {
          auto guard = scf::IfOp::create(b, loc, inCache, /*withElse=*/false);
          OpBuilder::InsertionGuard insertion(b);
          b.setInsertionPointToStart(guard.thenBlock());
          write();
        };
        emitTaskDispatch(
            d, spec.getTasks(), item, 0, [&](Task task, Value index) {
              switch (task) {
              case Task::QueryPair:
                emitRotatePair(d, spec.queries, args.q, args.positions,
                               args.invFreq, token, index, args.rotatedQ,
                               token);
                return;
              case Task::KeyPair:
                intoCache([&] {
                  emitRotatePair(d, spec.keys, args.keys, args.positions,
                                 args.invFreq, token, index, args.cacheKeys,
                                 cacheRow);
                });
                return;
              case Task::Value:
                intoCache([&] {
                  Value v = memref::LoadOp::create(b, loc, args.values,
                                                   ValueRange{token, index});
                  v = d.fromF32(d.toF32(v), spec.cache.getElementType());
                  memref::StoreOp::create(b, loc, v, args.cacheValues,
                                          ValueRange{cacheRow, index});
                });
                return;
              case Task::QueryCopy:
                emitPassThrough(d, spec.queries, args.q, token, index,
                                args.rotatedQ, token);
                return;
              case Task::KeyCopy:
                intoCache([&] {
                  emitPassThrough(d, spec.keys, args.keys, token, index,
                                  args.cacheKeys, cacheRow);
                });
                return;
              case Task::KeyRow:
                intoCache([&] {
                  emitQuantizedKeyRow(d, spec, args, token, index, cacheRow);
                });
                return;
              case Task::ValueRow:
                intoCache([&] {
                  emitQuantizedValueRow(d, spec, args, token, index, cacheRow);
                });
                return;
              }
            });
      });
  kernel.setKnownBlockSize(
      ArrayRef<int32_t>{static_cast<int32_t>(kRopeBlockSize), 1, 1});
  return kernel;
}

struct RopeAppendLowering : KernelPattern<llm::RopeAppendOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::RopeAppendOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto cacheType = cast<llm::KVCacheType>(op.getCache().getType());
    auto qType = dyn_cast<MemRefType>(adaptor.getQ().getType());
    auto keysType = dyn_cast<MemRefType>(adaptor.getKeys().getType());
    auto positionsType = dyn_cast<MemRefType>(adaptor.getPositions().getType());
    if (!qType || !keysType || !positionsType)
      return rewriter.notifyMatchFailure(op, "operands are not buffers");
    std::string reason;
    auto makeSpec = [&](MemRefType type) {
      return getRopeSpec(type, op.getStyle(), op.getTheta().convertToDouble(),
                         op.getRotaryDim(), op.getScalingAttr(), reason);
    };
    std::optional<RopeSpec> querySpec = makeSpec(qType);
    std::optional<RopeSpec> keySpec =
        querySpec ? makeSpec(keysType) : std::nullopt;
    if (!querySpec || !keySpec)
      return rewriter.notifyMatchFailure(op, reason);
    RopeAppendSpec spec{*querySpec, *keySpec, cacheType,
                        positionsType.getElementType()};

    // Rows: q, keys, values (tokens, heads·head_dim), positions (tokens),
    // the layer's keys and values (batch·capacity, kv_heads·head_dim; paged:
    // pages·page_size), then a paged cache's table.
    Value q = collapseHeads(rewriter, loc, adaptor.getQ());
    Value keys = collapseHeads(rewriter, loc, adaptor.getKeys());
    Value values = collapseHeads(rewriter, loc, adaptor.getValues());
    Value positions = memref::CollapseShapeOp::create(
        rewriter, loc, adaptor.getPositions(),
        SmallVector<ReassociationIndices>{{0, 1}});
    Value rotated = allocateResult(
        rewriter, loc, qType, getDynamicSizes(rewriter, loc, adaptor.getQ()));
    OpFoldResult layer = getConvertedLayer(op, adaptor);
    Value cache = adaptor.getCache();
    Value cacheKeys = collapseHeads(
        rewriter, loc,
        viewCacheLayer(rewriter, loc, cacheType, cache, layer, kKeys));
    Value cacheValues = collapseHeads(
        rewriter, loc,
        viewCacheLayer(rewriter, loc, cacheType, cache, layer, kValues));

    SmallVector<Value> args{q, keys, values, positions};
    if (Value table = launchDynamicFrequencies(rewriter, loc, kernels,
                                               spec.queries, positions))
      args.push_back(table);
    llvm::append_range(args,
                       ValueRange{collapseHeads(rewriter, loc, rotated),
                                  cacheKeys, cacheValues});
    if (cacheType.isPaged())
      args.push_back(adaptor.getPageTable());
    // Token rows with a dynamic count, so that prefill and decode share the
    // kernel (emitLaunch casts the static decode buffers).
    auto dyn = ShapedType::kDynamic;
    auto rowsOf = [&](const RopeSpec &rope) {
      return MemRefType::get({dyn, rope.heads * rope.headDim},
                             rope.elementType);
    };
    auto cacheRows = cast<MemRefType>(cacheKeys.getType());
    SmallVector<Type> argTypes{rowsOf(spec.queries), rowsOf(spec.keys),
                               rowsOf(spec.keys),
                               MemRefType::get({dyn}, spec.positionType)};
    if (spec.queries.isDynamic())
      argTypes.push_back(
          MemRefType::get({spec.queries.half()}, rewriter.getF32Type()));
    llvm::append_range(argTypes, ArrayRef<Type>{rowsOf(spec.queries),
                                                cacheRows, cacheRows});
    if (cacheType.isPaged())
      argTypes.push_back(adaptor.getPageTable().getType());
    gpu::GPUFuncOp kernel = getRopeAppendKernel(kernels, spec, argTypes);
    LaunchShape shape;
    shape.grid[0] = memref::DimOp::create(rewriter, loc, positions, 0);
    shape.grid[1] = indexConstant(
        rewriter, loc, llvm::divideCeil(spec.getNumItems(), kRopeBlockSize));
    shape.block = {kRopeBlockSize, 1, 1};
    emitLaunch(rewriter, loc, kernel, shape, args);
    rewriter.replaceOp(op, {rotated, cache});
    return success();
  }
};

} // namespace

void llmc::cuda::populateRopeAppendKernelPatterns(TypeConverter &converter,
                                                  RewritePatternSet &patterns,
                                                  KernelModule &kernels) {
  patterns.add<RopeAppendLowering>(converter, patterns.getContext(), kernels);
}
