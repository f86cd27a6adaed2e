// Prefill llm.attention: a flash-attention kernel (K/V tiles in shared memory, online softmax in registers).
//
// A block serves kRowTile rows = (query position, query head) pairs: up to
// headsPerBlock heads of one GQA group × the positions of one query tile,
// so each K/V tile it stages in shared memory (converted to f32) is reused
// by every head of the group without copying K/V per head. `lanes`
// consecutive threads own a row's head_dim slice: the query and the
// accumulator live in their registers, scores are dot products reduced
// with shfl.sync.bfly, and the softmax runs online over blocks of
// kKeyBlock keys (running max and sum per row, accumulator rescaled); a
// head wider than 256 (multi-head latent attention's 576) takes one key per
// update and one row per lane group (FlashTiling).
// The block scans only the keys some row sees: [min begin, max end) over
// its rows (causal: up to max(position) + 1, from the first key of the
// earliest window). SIMT f32 FMA, no tensor cores. K/V of a paged cache
// are its layer's page pools: each staged key is read from page
// table[b, s / page_size] (clamped into the pool), slot s % page_size. A
// quantized cache's codes are decoded and multiplied by their row's scale
// as they are staged (the shared tiles stay f32): 32-bit loads, the widest
// a row of head_dim + 4 bytes allows.
#include "codegen/cuda/AttentionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace llmc::cuda;
using namespace llmc::cuda::attention;

namespace {

/// Rows (query position, head) per block: 64 amortizes each staged K/V tile
/// over many rows while a short prompt still fills the grid.
constexpr int64_t kRowTile = 64;
/// Most threads per block: 8 warps, so blocks of large head_dim keep 64
/// rows with two rows per lane group.
constexpr int64_t kMaxThreads = 256;
/// head_dim elements per thread the lane groups aim for (16 f32 of query and
/// 16 of accumulator per row), bounding registers and shuffle rounds.
constexpr int64_t kElementsPerLane = 16;
/// Shared memory for the f32 K and V tiles: 32 KiB, under the 48 KiB of
/// static shared memory a block can have, leaving room for 2 blocks per SM.
constexpr int64_t kStageBytes = 32 * 1024;
/// The blocks per SM the kernel is built for (.minnctapersm): 128
/// registers per thread at 256 threads.
constexpr int32_t kBlocksPerSM = 2;
/// Most keys per tile (at small head_dim the stage budget allows more).
constexpr int64_t kMaxKeyTile = 64;
/// Keys per online-softmax update (one accumulator rescale each): with 8,
/// the K/V slices of all its keys, hoisted into registers, made ptxas spill
/// at head_dim 64.
constexpr int64_t kKeyBlock = 4;

/// The widest head the standard tiling (two rows per lane group from 8
/// lanes, kKeyBlock keys per update, kBlocksPerSM) takes: Gemma's 256
/// assembles without spills; wider heads get the wide tiling (FlashTiling).
constexpr int64_t kMaxStandardHeadDim = 256;

/// Codes one thread stages per item from a quantized row: 4 32-bit loads
/// and one of the row's scale.
constexpr int64_t kQuantizedRun = 16;

/// The static tiling of one prefill kernel.
struct FlashTiling {
  Slice slice;
  /// Rows each lane group handles (2 when the slices are short enough to
  /// hold two rows, so each shared K/V read serves both).
  int64_t rowsPerGroup;
  int64_t threads;
  int64_t rows;
  /// Query positions per block: rows / headsPerBlock.
  int64_t queryTile;
  int64_t keyTile;
  /// Keys per online-softmax update, and the blocks per SM the kernel is
  /// built for: kKeyBlock and kBlocksPerSM, or for a head wider than
  /// kMaxStandardHeadDim (multi-head latent attention's 576: 36 elements
  /// per lane at 16 lanes) one key and one block, whose 255 registers hold
  /// the row's query, accumulator and one key's K and V slices (with two
  /// rows or four keys ptxas spilled 920 bytes at 128 registers).
  int64_t keyBlock;
  int32_t blocksPerSM;
  /// Elements one thread stages per item: one global K/V load (16 bytes
  /// when head_dim allows), or a run of quantized codes.
  int64_t stageVector;

  explicit FlashTiling(const AttentionShape &shape) {
    int64_t headDim = shape.headDim;
    int64_t lanes = getLanesPerVector(headDim, kElementsPerLane);
    slice = Slice{lanes, kChunk, headDim};
    bool wide = headDim > kMaxStandardHeadDim;
    keyBlock = wide ? 1 : kKeyBlock;
    blocksPerSM = wide ? 1 : kBlocksPerSM;
    rowsPerGroup = lanes >= 8 && !wide ? 2 : 1;
    threads = std::min(kMaxThreads, kRowTile * lanes / rowsPerGroup);
    rows = threads / lanes * rowsPerGroup;
    queryTile = rows / shape.headsPerBlock;
    keyTile = llvm::bit_floor(static_cast<uint64_t>(
        std::min(kMaxKeyTile, kStageBytes / (2 * 4 * headDim))));
    keyTile = std::max(keyTile, keyBlock);
    // Quantized rows: runs of up to kQuantizedRun codes (32-bit loads)
    // share one load of their row's scale.
    stageVector = shape.quantized ? kQuantizedRun
                                  : 128 / shape.kvType.getIntOrFloatBitWidth();
    while (headDim % stageVector != 0)
      stageVector /= 2;
  }
};

/// Builds the kernel body; see the file comment.
class FlashKernelBuilder {
public:
  FlashKernelBuilder(OpBuilder &b, gpu::GPUFuncOp func,
                     const AttentionShape &shape, const FlashTiling &tiling)
      : b(b), loc(func.getLoc()), d(b, loc), func(func), shape(shape),
        tiling(tiling) {}

  void build();

private:
  /// One row of the block owned by this thread's lane group.
  struct Row {
    Value valid;
    Value t;
    Value head;
    SmallVector<Value> query;
    KeyRange keys;
  };

  OpBuilder &b;
  Location loc;
  DeviceBuilder d;
  gpu::GPUFuncOp func;
  const AttentionShape &shape;
  const FlashTiling &tiling;

  Value q, k, v, positions, out;
  ScoreTransform score;
  PageTable pages;
  Value kTile, vTile;
  Value batch, kvHead, firstQuery, queryCount, keyCount, lane;
  SmallVector<Row> rows;

  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }

  KeyRange getRowKeys(Value valid, Value t);
  void setUpRows();
  KeyRange getBlockKeys();
  void stageTile(Value tileStart, Value blockEnd);
  SmallVector<SoftmaxState> processKeyBlock(Value tileStart, Value key,
                                            ArrayRef<SoftmaxState> states);
  size_t getAccSize() const { return tiling.slice.getChunks(); }
};

KeyRange FlashKernelBuilder::getRowKeys(Value valid, Value t) {
  Value safeT = arith::MinUIOp::create(
      b, loc, t, arith::SubIOp::create(b, loc, queryCount, d.index(1)));
  Value position =
      getQueryPosition(d, positions, batch, safeT, keyCount, queryCount);
  KeyRange keys = getVisibleKeys(d, shape, position, keyCount);
  // A row past the prompt sees nothing (and is not stored).
  Value zero = d.index(0);
  return {select(valid, keys.begin, zero), select(valid, keys.end, zero)};
}

void FlashKernelBuilder::setUpRows() {
  int64_t lanes = tiling.slice.lanes;
  Value group = arith::DivUIOp::create(b, loc, d.threadId(), d.index(lanes));
  lane = arith::RemUIOp::create(b, loc, d.threadId(), d.index(lanes));
  Value headBase =
      mul(d.blockId(gpu::Dimension::y), d.index(shape.headsPerBlock));
  int64_t usedRows = tiling.queryTile * shape.headsPerBlock;
  for (int64_t i = 0; i < tiling.rowsPerGroup; ++i) {
    Row row;
    Value r = add(mul(group, d.index(tiling.rowsPerGroup)), d.index(i));
    Value tq = arith::DivUIOp::create(b, loc, r, d.index(shape.headsPerBlock));
    row.head =
        add(headBase,
            arith::RemUIOp::create(b, loc, r, d.index(shape.headsPerBlock)));
    row.t = add(firstQuery, tq);
    row.valid = arith::AndIOp::create(
        b, loc, cmp(arith::CmpIPredicate::ult, r, d.index(usedRows)),
        cmp(arith::CmpIPredicate::ult, row.t, queryCount));
    Value safeT = arith::MinUIOp::create(
        b, loc, row.t, arith::SubIOp::create(b, loc, queryCount, d.index(1)));
    row.query = loadSlice(d, tiling.slice, q,
                          {batch, safeT, row.head, d.index(0)}, lane);
    row.keys = getRowKeys(row.valid, row.t);
    rows.push_back(std::move(row));
  }
}

/// [min begin, max end) over the block's query positions that see a key;
/// every thread computes it (a few cached loads), so it is uniform without
/// a barrier.
KeyRange FlashKernelBuilder::getBlockKeys() {
  if (!shape.causal)
    return {d.index(0), keyCount};
  auto loop = scf::ForOp::create(
      b, loc, d.index(0), d.index(tiling.queryTile), d.index(1),
      ValueRange{keyCount, d.index(0)},
      [&](OpBuilder &nb, Location nloc, Value tq, ValueRange range) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        Value t = add(firstQuery, tq);
        Value valid = cmp(arith::CmpIPredicate::ult, t, queryCount);
        KeyRange keys = getRowKeys(valid, t);
        Value seesKeys = cmp(arith::CmpIPredicate::slt, keys.begin, keys.end);
        Value begin = arith::MinSIOp::create(
            b, loc, range[0], select(seesKeys, keys.begin, keyCount));
        Value end = arith::MaxSIOp::create(
            b, loc, range[1], select(seesKeys, keys.end, d.index(0)));
        scf::YieldOp::create(b, loc, ValueRange{begin, end});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

/// Copies keys [tileStart, tileStart + keyTile) of the KV head to the
/// shared tiles as f32; keys at or past `blockEnd` (no row sees them, and
/// they may be past S) become zeros. All loads are issued before the
/// stores.
void FlashKernelBuilder::stageTile(Value tileStart, Value blockEnd) {
  int64_t headDim = shape.headDim;
  int64_t vectorsPerKey = headDim / tiling.stageVector;
  int64_t items = tiling.keyTile * vectorsPerKey;
  int64_t perThread = llvm::divideCeil(items, tiling.threads);
  auto nativeType = VectorType::get({tiling.stageVector}, shape.kvType);
  auto f32Type = VectorType::get({tiling.stageVector}, b.getF32Type());
  Value lastKey = arith::SubIOp::create(b, loc, blockEnd, d.index(1));
  Value zeros =
      arith::ConstantOp::create(b, loc, f32Type, b.getZeroAttr(f32Type));
  struct Staged {
    Value inRange, offset, key, value;
  };
  SmallVector<Staged> staged;
  for (int64_t i = 0; i < perThread; ++i) {
    Value item = add(d.threadId(), d.index(i * tiling.threads));
    // The last round may have fewer items than threads: clamp the item
    // (a duplicate load) and skip its store.
    Value inRange = items % tiling.threads == 0 || i + 1 < perThread
                        ? Value()
                        : cmp(arith::CmpIPredicate::ult, item, d.index(items));
    if (inRange)
      item = arith::MinUIOp::create(b, loc, item, d.index(items - 1));
    Value keyInTile =
        arith::DivUIOp::create(b, loc, item, d.index(vectorsPerKey));
    Value column =
        mul(arith::RemUIOp::create(b, loc, item, d.index(vectorsPerKey)),
            d.index(tiling.stageVector));
    Value key = add(tileStart, keyInTile);
    Value seen = cmp(arith::CmpIPredicate::slt, key, blockEnd);
    Value safeKey = arith::MinSIOp::create(b, loc, key, lastKey);
    auto [first, second] = getCacheReadIndex(d, pages, batch, safeKey);
    SmallVector<Value> index = {first, second, kvHead, column};
    Value kValue, vValue;
    if (shape.quantized) {
      SmallVector<Value> row = {first, second, kvHead};
      KVCodes keyCodes{shape.kvType, loadRowScale(d, shape, k, row)};
      KVCodes valueCodes{shape.kvType, loadRowScale(d, shape, v, row)};
      kValue = loadDecodedCodes(d, k, row, column, tiling.stageVector, keyCodes);
      vValue =
          loadDecodedCodes(d, v, row, column, tiling.stageVector, valueCodes);
    } else {
      kValue = d.toF32(d.loadVector(nativeType, k, index));
      vValue = d.toF32(d.loadVector(nativeType, v, index));
    }
    Value offset = add(mul(keyInTile, d.index(headDim)), column);
    staged.push_back({inRange, offset, select(seen, kValue, zeros),
                      select(seen, vValue, zeros)});
  }
  for (const Staged &s : staged) {
    std::optional<OpBuilder::InsertionGuard> guard;
    if (s.inRange) {
      guard.emplace(b);
      auto ifOp = scf::IfOp::create(b, loc, s.inRange, false);
      b.setInsertionPointToStart(ifOp.thenBlock());
    }
    d.storeVector(s.key, kTile, s.offset);
    d.storeVector(s.value, vTile, s.offset);
  }
}

/// Keys tileStart + [key, key + keyBlock) from the shared tiles: scores of
/// every row of the lane group, then one online-softmax update per row.
SmallVector<SoftmaxState>
FlashKernelBuilder::processKeyBlock(Value tileStart, Value key,
                                    ArrayRef<SoftmaxState> states) {
  int64_t headDim = shape.headDim;
  Value masked = d.f32(kMaskedScore);
  SmallVector<SmallVector<Value>> scores(rows.size()), visible(rows.size());
  SmallVector<SmallVector<Value>> values;
  for (int64_t j = 0; j < tiling.keyBlock; ++j) {
    Value inTile = add(key, d.index(j));
    Value base = mul(inTile, d.index(headDim));
    SmallVector<Value> keyChunks =
        loadSlice(d, tiling.slice, kTile, {base}, lane);
    values.push_back(loadSlice(d, tiling.slice, vTile, {base}, lane));
    Value s = add(tileStart, inTile);
    for (size_t i = 0; i < rows.size(); ++i) {
      Value dot = groupSum(d, dotChunks(d, rows[i].query, keyChunks),
                           tiling.slice.lanes);
      Value scaled = score.apply(d, dot);
      Value isVisible = arith::AndIOp::create(
          b, loc, cmp(arith::CmpIPredicate::sle, rows[i].keys.begin, s),
          cmp(arith::CmpIPredicate::slt, s, rows[i].keys.end));
      scores[i].push_back(select(isVisible, scaled, masked));
      visible[i].push_back(isVisible);
    }
  }
  SmallVector<SoftmaxState> next;
  for (size_t i = 0; i < rows.size(); ++i)
    next.push_back(accumulate(d, states[i], scores[i], visible[i], values));
  return next;
}

void FlashKernelBuilder::build() {
  bool hasPositions = static_cast<bool>(shape.positionType);
  unsigned arg = 0;
  q = func.getArgument(arg++);
  k = func.getArgument(arg++);
  v = func.getArgument(arg++);
  if (shape.isPaged())
    pages = shape.getPageTable(func.getArgument(arg++));
  if (hasPositions)
    positions = func.getArgument(arg++);
  out = func.getArgument(arg++);
  score = ScoreTransform::fromKernel(func, arg, shape);
  kTile = func.getWorkgroupAttributions()[0];
  vTile = func.getWorkgroupAttributions()[1];

  batch = d.blockId(gpu::Dimension::z);
  kvHead = arith::DivUIOp::create(
      b, loc, mul(d.blockId(gpu::Dimension::y), d.index(shape.headsPerBlock)),
      d.index(shape.groupSize));
  firstQuery = mul(d.blockId(gpu::Dimension::x), d.index(tiling.queryTile));
  queryCount = memref::DimOp::create(b, loc, q, 1);
  keyCount = ShapedType::isDynamic(shape.keyCount)
                 ? memref::DimOp::create(b, loc, k, 1).getResult()
                 : d.index(shape.keyCount);
  setUpRows();
  KeyRange blockKeys = getBlockKeys();

  SmallVector<Type> accTypes(getAccSize(),
                             VectorType::get({kChunk}, b.getF32Type()));
  SmallVector<Value> init;
  for (size_t i = 0; i < rows.size(); ++i)
    SoftmaxState::getEmpty(d, accTypes).appendTo(init);
  auto unpack = [&](ValueRange values) {
    SmallVector<SoftmaxState> states;
    for (size_t i = 0; i < rows.size(); ++i)
      states.push_back(SoftmaxState::take(values, getAccSize()));
    return states;
  };
  auto pack = [&](ArrayRef<SoftmaxState> states) {
    SmallVector<Value> values;
    for (const SoftmaxState &state : states)
      state.appendTo(values);
    return values;
  };

  // Key tiles: the bounds are uniform over the block, so the barriers
  // around the shared tiles are reached by every thread.
  auto tileLoop = scf::ForOp::create(
      b, loc, blockKeys.begin, blockKeys.end, d.index(tiling.keyTile), init,
      [&](OpBuilder &nb, Location, Value tileStart, ValueRange iterArgs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        stageTile(tileStart, blockKeys.end);
        d.barrier();
        Value remaining =
            arith::SubIOp::create(b, loc, blockKeys.end, tileStart);
        Value count =
            arith::MinSIOp::create(b, loc, remaining, d.index(tiling.keyTile));
        auto keyLoop = scf::ForOp::create(
            b, loc, d.index(0), count, d.index(tiling.keyBlock), iterArgs,
            [&](OpBuilder &ib, Location, Value key, ValueRange state) {
              OpBuilder::InsertionGuard innerGuard(b);
              b.setInsertionPoint(ib.getInsertionBlock(),
                                  ib.getInsertionPoint());
              scf::YieldOp::create(
                  b, loc, pack(processKeyBlock(tileStart, key, unpack(state))));
            });
        // The next tile overwrites the shared tiles.
        d.barrier();
        scf::YieldOp::create(b, loc, keyLoop.getResults());
      });

  SmallVector<SoftmaxState> states = unpack(tileLoop.getResults());
  for (size_t i = 0; i < rows.size(); ++i) {
    auto store = scf::IfOp::create(b, loc, rows[i].valid, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(store.thenBlock());
    SmallVector<Value> result;
    for (Value chunk : states[i].acc)
      result.push_back(normalize(d, chunk, states[i].sum));
    storeSlice(d, tiling.slice, result, out,
               {batch, rows[i].t, rows[i].head, d.index(0)}, lane);
  }
}

} // namespace

Value llmc::cuda::attention::emitFlashAttention(OpBuilder &b, Location loc,
                                                KernelModule &kernels,
                                                const AttentionShape &shape,
                                                MemRefType resultType, Value q,
                                                Value k, Value v,
                                                Value pageTable,
                                                Value positions) {
  FlashTiling tiling(shape);
  auto dynamicRows = [&](Value buffer) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    if (type.isDynamicDim(1))
      return buffer;
    SmallVector<int64_t> dims(type.getShape());
    dims[1] = ShapedType::kDynamic;
    return memref::CastOp::create(b, loc, type.clone(dims), buffer);
  };
  Value result = allocateResult(b, loc, resultType, getDynamicSizes(b, loc, q));
  SmallVector<Value> args = {dynamicRows(q), k, v};
  if (pageTable)
    args.push_back(pageTable);
  if (positions)
    args.push_back(dynamicRows(positions));
  args.push_back(dynamicRows(result));
  llvm::append_range(args, ScoreTransform::getArgs(b, loc, shape));

  std::string name = "attention_prefill_" + shape.getNameSuffix();
  SmallVector<Type> argTypes;
  for (Value arg : args)
    argTypes.push_back(arg.getType());
  int64_t tileElements = tiling.keyTile * shape.headDim;
  auto tileType = getSharedBufferType({tileElements}, b.getF32Type());
  gpu::GPUFuncOp kernel =
      kernels.getOrCreate(name, argTypes,
                          [&](OpBuilder &kb, gpu::GPUFuncOp func) {
                            FlashKernelBuilder(kb, func, shape, tiling).build();
                          },
                          {tileType, tileType});
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(tiling.threads), 1, 1}));
  // The 2 blocks per SM the stage is sized for, told to ptxas: its own
  // occupancy heuristic capped SmolLM2's kernel (head_dim 64) at 80
  // registers and spilled 4 bytes; with the target it takes 96, no spill.
  kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(tiling.blocksPerSM));

  LaunchShape launch;
  Value queries = memref::DimOp::create(b, loc, q, 1);
  launch.grid = {ceilDiv(b, loc, queries, tiling.queryTile),
                 indexConstant(b, loc, shape.numHeads / shape.headsPerBlock),
                 indexConstant(b, loc, shape.batch)};
  launch.block = {tiling.threads, 1, 1};
  emitLaunch(b, loc, kernel, launch, args);
  return result;
}
