// Decode llm.attention (one query row): split-K partial softmax kernel over key chunks, then a combine kernel.
//
// The grid is fixed by the capacity S (ceil(S / kSplitKeys) splits), so a
// decode step can be replayed as a CUDA graph whatever the position; the
// position is read on the device, and a split whose chunk holds no visible
// key returns at once. A block serves one split of one sequence for up to
// 8 query heads of one GQA group: each K/V row it loads serves all of them.
// `lanes` consecutive threads share a key (128-bit loads,
// dot products reduced with shfl.sync.bfly); each lane group keeps its own
// online softmax over its keys, then groups are merged in the warp with
// shuffles and warps through shared memory, giving the split's partial
// (max, sum, acc[head_dim]) per head. The combine kernel merges, per
// (sequence, head), exactly the splits that hold visible keys. K/V of a
// paged cache are its layer's page pools: key s is read from page
// table[b, s / page_size] (clamped into the pool), slot s % page_size; the
// combine kernel, which reads only the partials, is the contiguous one (and
// the same with a softcap, which only the split kernel applies). A
// quantized cache's rows are read as 32-bit loads of 4 codes (all a row of
// head_dim + 4 bytes allows) and its scale, each code decoded and
// multiplied by the scale in registers before the products.
#include "codegen/cuda/AttentionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc::cuda;
using namespace llmc::cuda::attention;

namespace {

/// Keys per split: a decode step at position p runs ceil((p + 1) / 128)
/// busy blocks per head group, and S = 8192 needs 64 partials per head.
/// At position 1023 of LLaMA-3-8B this halves the step (15 µs against 28
/// with 256-key splits, H200): more blocks share the scan.
constexpr int64_t kSplitKeys = 128;
/// Threads of a split block: 4 warps.
constexpr int64_t kThreads = 128;
constexpr int64_t kWarps = kThreads / kWarpSize;
/// head_dim elements per lane of a key: 8 (one 16-byte bf16 load, two f32
/// ones), so that 2 to 16 lanes share a key and a warp has several keys in
/// flight.
constexpr int64_t kElementsPerLane = 8;
/// Key elements a lane loads ahead per loop step (over its keys), for
/// memory-level parallelism: 4 keys at 8 elements. Measured on an H200
/// (LLaMA-3-8B, bf16 cache, position 8191): 25 µs per step against 33 µs
/// with 2 keys and 512-key splits.
constexpr int64_t kElementsInFlight = 32;
/// f32 registers per lane for the query and accumulator slices of the
/// block's heads (at most kHeadRegisters: fewer heads per block when the
/// slices are long) plus the K and V slices in flight (fewer keys ahead for
/// larger groups), so that no configuration spills.
constexpr int64_t kSliceRegisters = 160;
constexpr int64_t kHeadRegisters = 128;

/// The static layout of one decode kernel.
struct DecodeTiling {
  Slice slice;
  /// Lane groups of the block, each on its own keys.
  int64_t groups;
  /// Keys each group loads per loop step.
  int64_t unroll;
  /// Query heads of a block (of one GQA group).
  int64_t heads;
  int64_t splits;

  explicit DecodeTiling(const AttentionShape &shape) {
    int64_t headDim = shape.headDim;
    int64_t lanes = getLanesPerVector(headDim, kElementsPerLane);
    int64_t elements = headDim / lanes;
    slice = Slice{lanes, getKVLoadVector(shape, elements), headDim};
    groups = kThreads / lanes;
    heads = getHeadsPerBlock(
        shape.groupSize, std::clamp<int64_t>(kHeadRegisters / (2 * elements), 1,
                                             kMaxHeadsPerBlock));
    int64_t stateRegisters = 2 * heads * elements;
    unroll = std::clamp<int64_t>(
        (kSliceRegisters - stateRegisters) / (2 * elements), 1,
        std::max<int64_t>(1, kElementsInFlight / elements));
    splits = llvm::divideCeil(shape.keyCount, kSplitKeys);
  }
};

/// Keys of `split` that a query at `position` sees: [lo, hi), empty when
/// lo ≥ hi.
KeyRange getSplitKeys(DeviceBuilder &d, const KeyRange &visible, Value split) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value first = arith::MulIOp::create(b, loc, split, d.index(kSplitKeys));
  Value last = arith::AddIOp::create(b, loc, first, d.index(kSplitKeys));
  return {arith::MaxSIOp::create(b, loc, visible.begin, first),
          arith::MinSIOp::create(b, loc, visible.end, last)};
}

/// Builds the split kernel body; see the file comment.
class SplitKernelBuilder {
public:
  SplitKernelBuilder(OpBuilder &b, gpu::GPUFuncOp func,
                     const AttentionShape &shape, const DecodeTiling &tiling)
      : b(b), loc(func.getLoc()), d(b, loc), func(func), shape(shape),
        tiling(tiling) {}

  void build();

private:
  OpBuilder &b;
  Location loc;
  DeviceBuilder d;
  gpu::GPUFuncOp func;
  const AttentionShape &shape;
  const DecodeTiling &tiling;

  Value q, k, v, positions, partMax, partSum, partAcc;
  ScoreTransform score;
  PageTable pages;
  Value batch, split, headBase, kvHead, lane, group;

  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }

  SmallVector<SoftmaxState> scanKeys(KeyRange keys,
                                     ArrayRef<SmallVector<Value>> queries);
  void writePartials(ArrayRef<SoftmaxState> states);
};

/// Each lane group's online softmax over keys lo + group + i · groups.
SmallVector<SoftmaxState>
SplitKernelBuilder::scanKeys(KeyRange keys,
                             ArrayRef<SmallVector<Value>> queries) {
  int64_t heads = tiling.heads;
  size_t accSize = tiling.slice.getChunks();
  SmallVector<Type> accTypes(accSize,
                             VectorType::get({kChunk}, b.getF32Type()));
  SmallVector<Value> init;
  for (int64_t h = 0; h < heads; ++h)
    SoftmaxState::getEmpty(d, accTypes).appendTo(init);
  Value masked = d.f32(kMaskedScore);
  Value lastKey = arith::SubIOp::create(b, loc, keys.end, d.index(1));
  auto loop = scf::ForOp::create(
      b, loc, keys.begin, keys.end, d.index(tiling.groups * tiling.unroll),
      init, [&](OpBuilder &nb, Location, Value base, ValueRange iterArgs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        // Loads first, for all the group's keys of this step: a key past
        // the split re-reads the last visible one and is masked.
        SmallVector<Value> visible;
        SmallVector<SmallVector<Value>> keyChunks, values;
        for (int64_t u = 0; u < tiling.unroll; ++u) {
          Value key = add(add(base, d.index(u * tiling.groups)), group);
          visible.push_back(cmp(arith::CmpIPredicate::slt, key, keys.end));
          Value safeKey = arith::MinSIOp::create(b, loc, key, lastKey);
          auto [first, second] = getCacheReadIndex(d, pages, batch, safeKey);
          SmallVector<Value> index = {first, second, kvHead, d.index(0)};
          if (!shape.quantized) {
            keyChunks.push_back(loadSlice(d, tiling.slice, k, index, lane));
            values.push_back(loadSlice(d, tiling.slice, v, index, lane));
            continue;
          }
          // Quantized rows: each row's scale (one 32-bit load, the same
          // address for the lanes of the group), then its codes.
          ArrayRef<Value> row = ArrayRef<Value>(index).drop_back();
          KVCodes keyCodes{shape.kvType, loadRowScale(d, shape, k, row)};
          KVCodes valueCodes{shape.kvType, loadRowScale(d, shape, v, row)};
          keyChunks.push_back(
              loadSlice(d, tiling.slice, k, index, lane, &keyCodes));
          values.push_back(
              loadSlice(d, tiling.slice, v, index, lane, &valueCodes));
        }
        SmallVector<Value> next;
        for (int64_t h = 0; h < heads; ++h) {
          SmallVector<Value> scores;
          for (int64_t u = 0; u < tiling.unroll; ++u) {
            Value dot = groupSum(d, dotChunks(d, queries[h], keyChunks[u]),
                                 tiling.slice.lanes);
            Value scaled = score.apply(d, dot);
            scores.push_back(
                arith::SelectOp::create(b, loc, visible[u], scaled, masked));
          }
          ValueRange state = iterArgs.slice(h * (2 + accSize), 2 + accSize);
          accumulate(d, SoftmaxState::take(state, accSize), scores, visible,
                     values)
              .appendTo(next);
        }
        scf::YieldOp::create(b, loc, next);
      });
  SmallVector<SoftmaxState> states;
  ValueRange results = loop.getResults();
  for (int64_t h = 0; h < heads; ++h)
    states.push_back(SoftmaxState::take(results, accSize));
  return states;
}

/// Merges the lane groups' states (shuffles within each warp, then the
/// warps through shared memory) and writes the split's partials.
void SplitKernelBuilder::writePartials(ArrayRef<SoftmaxState> groupStates) {
  int64_t heads = tiling.heads;
  int64_t headDim = shape.headDim;
  int64_t lanes = tiling.slice.lanes;
  SmallVector<SoftmaxState> states(groupStates);
  // Lanes with the same position in their groups hold the same elements.
  for (int64_t offset = lanes; offset < kWarpSize; offset *= 2) {
    for (SoftmaxState &state : states) {
      SoftmaxState other{shuffleXor(d, state.max, offset),
                         shuffleXor(d, state.sum, offset),
                         {}};
      for (Value chunk : state.acc)
        other.acc.push_back(shuffleXor(d, chunk, offset));
      state = merge(d, state, other);
    }
  }

  auto attributions = func.getWorkgroupAttributions();
  Value warpMax = attributions[0], warpSum = attributions[1];
  Value warpAcc = attributions[2];
  Value warp = d.warpId(), laneInWarp = d.laneId();
  auto firstGroup = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::ult, laneInWarp, d.index(lanes)),
      false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(firstGroup.thenBlock());
    Value isFirstLane = cmp(arith::CmpIPredicate::eq, laneInWarp, d.index(0));
    for (int64_t h = 0; h < heads; ++h) {
      Value slot = add(mul(warp, d.index(heads)), d.index(h));
      storeSlice(d, tiling.slice, states[h].acc, warpAcc,
                 {mul(slot, d.index(headDim))}, lane);
      auto first = scf::IfOp::create(b, loc, isFirstLane, false);
      OpBuilder::InsertionGuard innerGuard(b);
      b.setInsertionPointToStart(first.thenBlock());
      memref::StoreOp::create(b, loc, states[h].max, warpMax, slot);
      memref::StoreOp::create(b, loc, states[h].sum, warpSum, slot);
    }
  }
  d.barrier();

  // One thread per (head, element) merges the warps and writes.
  auto loop = scf::ForOp::create(b, loc, d.threadId(), d.index(heads * headDim),
                                 d.index(kThreads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value item = loop.getInductionVar();
  Value h = arith::DivUIOp::create(b, loc, item, d.index(headDim));
  Value element = arith::RemUIOp::create(b, loc, item, d.index(headDim));
  Type f32 = b.getF32Type();
  SoftmaxState state = SoftmaxState::getEmpty(d, TypeRange(f32));
  for (int64_t w = 0; w < kWarps; ++w) {
    Value slot = add(d.index(w * heads), h);
    Value accIndex = add(mul(slot, d.index(headDim)), element);
    SoftmaxState partial{memref::LoadOp::create(b, loc, warpMax, slot),
                         memref::LoadOp::create(b, loc, warpSum, slot),
                         {memref::LoadOp::create(b, loc, warpAcc, accIndex)}};
    state = merge(d, state, partial);
  }
  Value head = add(headBase, h);
  memref::StoreOp::create(b, loc, state.acc[0], partAcc,
                          ValueRange{batch, head, split, element});
  auto firstElement = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, element, d.index(0)), false);
  b.setInsertionPointToStart(firstElement.thenBlock());
  memref::StoreOp::create(b, loc, state.max, partMax,
                          ValueRange{batch, head, split});
  memref::StoreOp::create(b, loc, state.sum, partSum,
                          ValueRange{batch, head, split});
}

void SplitKernelBuilder::build() {
  unsigned arg = 0;
  q = func.getArgument(arg++);
  k = func.getArgument(arg++);
  v = func.getArgument(arg++);
  if (shape.isPaged())
    pages = shape.getPageTable(func.getArgument(arg++));
  if (shape.positionType)
    positions = func.getArgument(arg++);
  partMax = func.getArgument(arg++);
  partSum = func.getArgument(arg++);
  partAcc = func.getArgument(arg++);
  score = ScoreTransform::fromKernel(func, arg, shape);

  split = d.blockId(gpu::Dimension::x);
  headBase = mul(d.blockId(gpu::Dimension::y), d.index(tiling.heads));
  batch = d.blockId(gpu::Dimension::z);
  kvHead = arith::DivUIOp::create(b, loc, headBase, d.index(shape.groupSize));
  lane =
      arith::RemUIOp::create(b, loc, d.threadId(), d.index(tiling.slice.lanes));
  group =
      arith::DivUIOp::create(b, loc, d.threadId(), d.index(tiling.slice.lanes));

  Value keyCount = d.index(shape.keyCount);
  Value position =
      getQueryPosition(d, positions, batch, d.index(0), keyCount, d.index(1));
  KeyRange keys =
      getSplitKeys(d, getVisibleKeys(d, shape, position, keyCount), split);
  // The condition is uniform over the block: the barrier inside is safe.
  auto busy = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::slt, keys.begin, keys.end), false);
  b.setInsertionPointToStart(busy.thenBlock());
  SmallVector<SmallVector<Value>> queries;
  for (int64_t h = 0; h < tiling.heads; ++h)
    queries.push_back(loadSlice(
        d, tiling.slice, q,
        {batch, d.index(0), add(headBase, d.index(h)), d.index(0)}, lane));
  writePartials(scanKeys(keys, queries));
}

/// Builds the combine kernel body: thread e of block (head, batch) merges
/// element e of the partials of the splits that hold visible keys.
void buildCombineKernel(OpBuilder &b, gpu::GPUFuncOp func,
                        const AttentionShape &shape) {
  Location loc = func.getLoc();
  DeviceBuilder d(b, loc);
  unsigned arg = 0;
  Value positions = shape.positionType ? func.getArgument(arg++) : Value();
  Value partMax = func.getArgument(arg++);
  Value partSum = func.getArgument(arg++);
  Value partAcc = func.getArgument(arg++);
  Value out = func.getArgument(arg++);

  Value head = d.blockId(gpu::Dimension::x);
  Value batch = d.blockId(gpu::Dimension::y);
  Value element = d.threadId();
  auto inRange =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                              element, d.index(shape.headDim)),
                        false);
  b.setInsertionPointToStart(inRange.thenBlock());
  Value keyCount = d.index(shape.keyCount);
  Value position =
      getQueryPosition(d, positions, batch, d.index(0), keyCount, d.index(1));
  KeyRange keys = getVisibleKeys(d, shape, position, keyCount);
  // Splits [begin / C, ceil(end / C)) are exactly those whose chunk meets
  // [begin, end) (getSplitKeys non-empty); none when the range is empty.
  Value first = arith::DivUIOp::create(b, loc, keys.begin, d.index(kSplitKeys));
  Value afterLast = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, keys.begin,
                            keys.end),
      ceilDiv(b, loc, keys.end, kSplitKeys), first);
  SmallVector<Value> init;
  Type f32 = b.getF32Type();
  SoftmaxState::getEmpty(d, TypeRange(f32)).appendTo(init);
  auto loop = scf::ForOp::create(
      b, loc, first, afterLast, d.index(1), init,
      [&](OpBuilder &nb, Location, Value split, ValueRange iterArgs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        ValueRange stateValues = iterArgs;
        SoftmaxState state = SoftmaxState::take(stateValues, 1);
        SmallVector<Value> part = {batch, head, split};
        SoftmaxState partial{
            memref::LoadOp::create(b, loc, partMax, part),
            memref::LoadOp::create(b, loc, partSum, part),
            {memref::LoadOp::create(b, loc, partAcc,
                                    ValueRange{batch, head, split, element})}};
        SmallVector<Value> next;
        merge(d, state, partial).appendTo(next);
        scf::YieldOp::create(b, loc, next);
      });
  Value result = normalize(d, loop.getResult(2), loop.getResult(1));
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  memref::StoreOp::create(b, loc, d.fromF32(result, outType), out,
                          ValueRange{batch, d.index(0), head, element});
}

} // namespace

Value llmc::cuda::attention::emitDecodeAttention(OpBuilder &b, Location loc,
                                                 KernelModule &kernels,
                                                 const AttentionShape &shape,
                                                 MemRefType resultType, Value q,
                                                 Value k, Value v,
                                                 Value pageTable,
                                                 Value positions) {
  DecodeTiling tiling(shape);
  Type f32 = b.getF32Type();
  int64_t heads = shape.numHeads, headDim = shape.headDim;
  auto partialType = MemRefType::get({shape.batch, heads, tiling.splits}, f32);
  auto partialAccType =
      MemRefType::get({shape.batch, heads, tiling.splits, headDim}, f32);
  Value partMax = allocateResult(b, loc, partialType, {});
  Value partSum = allocateResult(b, loc, partialType, {});
  Value partAcc = allocateResult(b, loc, partialAccType, {});
  Value result = allocateResult(b, loc, resultType, {});
  std::string suffix = shape.getNameSuffix();

  SmallVector<Value> splitArgs = {q, k, v};
  if (pageTable)
    splitArgs.push_back(pageTable);
  if (positions)
    splitArgs.push_back(positions);
  splitArgs.append({partMax, partSum, partAcc});
  llvm::append_range(splitArgs, ScoreTransform::getArgs(b, loc, shape));
  SmallVector<Type> splitTypes;
  for (Value arg : splitArgs)
    splitTypes.push_back(arg.getType());
  int64_t slots = kWarps * tiling.heads;
  gpu::GPUFuncOp splitKernel = kernels.getOrCreate(
      "attention_decode_" + suffix, splitTypes,
      [&](OpBuilder &kb, gpu::GPUFuncOp func) {
        SplitKernelBuilder(kb, func, shape, tiling).build();
      },
      {getSharedBufferType({slots}, f32), getSharedBufferType({slots}, f32),
       getSharedBufferType({slots * headDim}, f32)});
  splitKernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(kThreads), 1, 1}));
  LaunchShape splitLaunch;
  splitLaunch.grid = {indexConstant(b, loc, tiling.splits),
                      indexConstant(b, loc, heads / tiling.heads),
                      indexConstant(b, loc, shape.batch)};
  splitLaunch.block = {kThreads, 1, 1};
  emitLaunch(b, loc, splitKernel, splitLaunch, splitArgs);

  SmallVector<Value> combineArgs;
  if (positions)
    combineArgs.push_back(positions);
  combineArgs.append({partMax, partSum, partAcc, result});
  SmallVector<Type> combineTypes;
  for (Value arg : combineArgs)
    combineTypes.push_back(arg.getType());
  // The combine kernel reads only the partials: one kernel (without a page
  // or softcap tag) for either cache layout, capped scores or not.
  AttentionShape combineShape = shape;
  combineShape.pageSize = combineShape.pageCount = 0;
  combineShape.softcap = std::nullopt;
  gpu::GPUFuncOp combineKernel = kernels.getOrCreate(
      "attention_decode_combine_" + combineShape.getNameSuffix(), combineTypes,
      [&](OpBuilder &kb, gpu::GPUFuncOp func) {
        buildCombineKernel(kb, func, combineShape);
      });
  LaunchShape combineLaunch;
  combineLaunch.grid = {indexConstant(b, loc, heads),
                        indexConstant(b, loc, shape.batch)};
  int64_t combineThreads = llvm::alignTo(headDim, kWarpSize);
  combineLaunch.block = {combineThreads, 1, 1};
  combineKernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(combineThreads), 1, 1}));
  emitLaunch(b, loc, combineKernel, combineLaunch, combineArgs);
  return result;
}
