// Decode projections (one row): GEMVs bound by reading the weights once, alone or fused.
#include "codegen/common/Activation.h"
#include "codegen/cuda/BlockDequant.h"
#include "codegen/cuda/ProjectionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace llmc::cuda {

namespace {

/// Warps per CTA: 256 threads, a common block size that lets several CTAs
/// share an SM.
constexpr int64_t kWarpsPerBlock = 8;

/// Weight vectors each lane loads per row before using any of them
/// (independent 128-bit loads in flight per thread, times the rows per
/// warp): enough to cover HBM latency at a few CTAs per SM.
constexpr int64_t kUnroll = 4;

/// From this many weight rows on (all outputs of a launch together), each
/// warp takes two rows and reuses every x vector for both (half the x
/// traffic per weight byte); below it one row per warp keeps the grid at
/// several CTAs per SM (an H200 has 132 SMs: 8192 rows are 512 CTAs of 16
/// rows).
constexpr int64_t kTwoRowsMinRows = 8192;

/// Blocks of a block-quantized weight each lane decodes per step of the K
/// loop: one block is already several loads in flight (Q4_0: its codes'
/// 128-bit load and its scale, Q4_K: 9 of 16 bytes), and a whole block of
/// up to 256 decoded elements per row is what the registers hold. (In the
/// files' row layout, 1, 2 and 4 measured the same on an H200.)
constexpr int64_t kBlockUnroll = 1;

/// Elements a GEMV lane decodes and multiplies at a time for one weight row
/// per warp: 8 (two 128-bit loads of x); half that for two rows (a gated
/// GEMV, or two rows per warp). 16, the GEMM's runs, spilled a normalizing
/// gated GEMV on K-quants (two rows of decoded weights, x, x · γ and γ live
/// together), and 8 still spilled 20 bytes of the Q5_K one on sm_80.
constexpr int64_t kGemvDecodeLanes = 8;

/// The dot products one warp computes over K: x (1, K) f32, read as vectors
/// of `width` lanes, against `rows` (weight buffer, row index) pairs whose
/// weights share `weightType`. With a block `format` (the weight buffers
/// are its bytes), a chunk is one block: `width` is its element count, and
/// each lane decodes its blocks in registers, getDecodeLanes() elements at
/// a time.
struct WarpDots {
  int64_t k, width;
  Type weightType;
  llm::BlockQuantType format;
  Value x;
  /// The fused normalization's weight (K), or null.
  Value normWeight;
  double normEps;
  SmallVector<std::pair<Value, Value>> rows;
  /// Where x's K elements start: row xRow of x from column xColumn (null:
  /// row 0, column 0). A per-head GEMV (llm.head_linear) reads head h's
  /// slice of a row of x (rows, heads · K).
  Value xRow, xColumn;

  /// Lanes of the vector accumulators.
  int64_t getAccumulatorWidth() const {
    return format ? getDecodeLanes() : width;
  }
  /// Elements of a block decoded at a time.
  int64_t getDecodeLanes() const {
    return kGemvDecodeLanes / static_cast<int64_t>(rows.size());
  }
  /// Chunks per lane per step of the K loop.
  int64_t getUnroll() const { return format ? kBlockUnroll : kUnroll; }
};

/// x · normWeight for the fused norm (and sumSquares += Σx² of the raw x),
/// or x unchanged without one. Σx² is a scalar: one register instead of a
/// vector of them keeps a normalizing GEMV under ptxas's 64-register
/// occupancy target.
Value normalizeActivation(DeviceBuilder &d, const WarpDots &dots, Value x,
                          Value norm, Value &sumSquares) {
  if (!dots.normWeight)
    return x;
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value squares = arith::MulFOp::create(b, loc, x, x);
  sumSquares = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                           squares, sumSquares);
  return arith::MulFOp::create(b, loc, x, d.toF32(norm));
}

/// x[0, column ...] as vector<width x f32> and, when normalizing, the norm
/// weight's vector at the same columns (else null).
std::pair<Value, Value> loadActivation(DeviceBuilder &d, const WarpDots &dots,
                                       Value column, int64_t width) {
  auto xType = VectorType::get({width}, d.builder().getF32Type());
  Value xColumn = dots.xColumn ? arith::AddIOp::create(d.builder(),
                                                        d.location(), column,
                                                        dots.xColumn)
                                     .getResult()
                               : column;
  Value x = d.loadVector(xType, dots.x,
                         {dots.xRow ? dots.xRow : d.index(0), xColumn});
  if (!dots.normWeight)
    return {x, Value()};
  auto normType = VectorType::get(
      {width}, cast<MemRefType>(dots.normWeight.getType()).getElementType());
  return {x, d.loadVector(normType, dots.normWeight, {column})};
}

/// Decoded elements of a block-quantized weight one lane multiplies in one
/// stretch of straight-line code: 32, a whole small block or a K-quant
/// sub-block (a 256-element block runs as a loop of eight such groups). A
/// whole Q6_K block unrolled (its 32 scales and the 256 elements of x it
/// meets) spilled 0.5 KB at ptxas's 128 registers; groups of 64 still
/// spilled in the two-row kernels.
constexpr int64_t kBlockGroupElements = 32;

/// acc[j] += block `chunk` of row j, elements [first, first + count),
/// decoded in registers getDecodeLanes() at a time, · x at the same columns
/// (acc.back() += Σx² when normalizing). The block's scales are read here:
/// what the group does not use is dead code.
SmallVector<Value> accumulateBlockElements(DeviceBuilder &d,
                                           const WarpDots &dots,
                                           ArrayRef<BlockDecoder> decoders,
                                           Value chunk, int64_t first,
                                           int64_t count, ArrayRef<Value> acc) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  SmallVector<BlockDecoder::Block> blocks;
  for (auto [decoder, row] : llvm::zip(decoders, dots.rows))
    blocks.push_back(decoder.loadBlock(b, loc, row.second, chunk));
  Value blockColumn = arith::MulIOp::create(b, loc, chunk, d.index(dots.width));
  SmallVector<Value> updated(acc);
  int64_t lanes = dots.getDecodeLanes();
  for (int64_t run = first; run < first + count; run += lanes) {
    Value column = arith::AddIOp::create(b, loc, blockColumn, d.index(run));
    auto [x, norm] = loadActivation(d, dots, column, lanes);
    Value sumSquares = dots.normWeight ? updated.back() : Value();
    x = normalizeActivation(d, dots, x, norm, sumSquares);
    if (dots.normWeight)
      updated.back() = sumSquares;
    for (size_t j = 0; j < decoders.size(); ++j)
      updated[j] = vector::FMAOp::create(
          b, loc, decoders[j].decode(b, loc, blocks[j], run), x, updated[j]);
  }
  return updated;
}

/// The groups from `group` on of block `chunk` for the run-time group index
/// `groupIndex`: if groupIndex == group { that group } else { the next };
/// the last one unconditional. Every lane of the warp is at the same group
/// (the loop over groups is warp-uniform), so the branches do not diverge.
SmallVector<Value> accumulateBlockGroup(DeviceBuilder &d, const WarpDots &dots,
                                        ArrayRef<BlockDecoder> decoders,
                                        Value chunk, Value groupIndex,
                                        int64_t group, ArrayRef<Value> acc) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  int64_t first = group * kBlockGroupElements;
  if (first + kBlockGroupElements >= dots.width)
    return accumulateBlockElements(d, dots, decoders, chunk, first,
                                   kBlockGroupElements, acc);
  Value matches = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        groupIndex, d.index(group));
  auto ifOp = scf::IfOp::create(b, loc, ValueRange(acc).getTypes(), matches,
                                /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc,
                       accumulateBlockElements(d, dots, decoders, chunk, first,
                                               kBlockGroupElements, acc));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc,
                       accumulateBlockGroup(d, dots, decoders, chunk,
                                            groupIndex, group + 1, acc));
  return SmallVector<Value>(ifOp.getResults());
}

/// The block-format counterpart of accumulateChunks: `chunks` are block
/// indices; every row's block is decoded in registers getDecodeLanes()
/// elements at a time and multiplied with x there (acc[j] are vectors of
/// that many f32). Blocks longer than
/// kBlockGroupElements run as a loop over their groups.
SmallVector<Value> accumulateBlocks(DeviceBuilder &d, const WarpDots &dots,
                                    ArrayRef<Value> chunks,
                                    ArrayRef<Value> acc) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  SmallVector<BlockDecoder> decoders;
  for (auto [weight, row] : dots.rows)
    decoders.push_back(
        makeBlockDecoder(dots.format, weight, dots.getDecodeLanes()));
  SmallVector<Value> updated(acc);
  for (Value chunk : chunks) {
    if (dots.width <= kBlockGroupElements) {
      updated = accumulateBlockElements(d, dots, decoders, chunk, 0,
                                        dots.width, updated);
      continue;
    }
    auto loop = scf::ForOp::create(
        b, loc, d.index(0), d.index(dots.width / kBlockGroupElements),
        d.index(1), updated,
        [&](OpBuilder &nb, Location, Value group, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          scf::YieldOp::create(
              b, loc,
              accumulateBlockGroup(d, dots, decoders, chunk, group, 0,
                                   SmallVector<Value>(carried)));
        });
    updated.assign(loop.getResults().begin(), loop.getResults().end());
  }
  return updated;
}

/// acc[j] += weight_j[row_j, chunk·width ...] · x[chunk·width ...] (x ·
/// normWeight when normalizing, and then the scalar acc.back() += Σx²) for the
/// `chunks` of one step of the K loop: every load of the step is issued
/// before the first FMA.
SmallVector<Value> accumulateChunks(DeviceBuilder &d, const WarpDots &dots,
                                    ArrayRef<Value> chunks,
                                    ArrayRef<Value> acc) {
  if (dots.format)
    return accumulateBlocks(d, dots, chunks, acc);
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto weightType = VectorType::get({dots.width}, dots.weightType);
  SmallVector<std::pair<Value, Value>> xs;
  SmallVector<Value> ws;
  for (Value chunk : chunks) {
    Value column = arith::MulIOp::create(b, loc, chunk, d.index(dots.width));
    xs.push_back(loadActivation(d, dots, column, dots.width));
    for (auto [weight, row] : dots.rows)
      ws.push_back(d.loadVector(weightType, weight, {row, column}));
  }
  SmallVector<Value> updated(acc);
  size_t numRows = dots.rows.size();
  for (size_t u = 0; u < chunks.size(); ++u) {
    Value sumSquares = dots.normWeight ? updated.back() : Value();
    Value x = normalizeActivation(d, dots, xs[u].first, xs[u].second,
                                  sumSquares);
    if (dots.normWeight)
      updated.back() = sumSquares;
    for (size_t j = 0; j < numRows; ++j)
      updated[j] = vector::FMAOp::create(b, loc, d.toF32(ws[u * numRows + j]),
                                         x, updated[j]);
  }
  return updated;
}

/// The warp's dot products, one per row of `dots` (scaled by the inverse
/// RMS when normalizing); every lane receives all of them.
SmallVector<Value> emitWarpDots(DeviceBuilder &d, const WarpDots &dots) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value lane = d.laneId();

  // K as chunks of `width` elements; lane l takes chunks l, l + 32, ...
  // Whole steps of unroll·32 chunks run in a loop, then up to unroll-1
  // whole 32-chunk steps, then one partial step for the lanes it covers.
  int64_t chunks = dots.k / dots.width;
  int64_t unroll = dots.getUnroll();
  int64_t groupChunks = unroll * kWarpSize;
  int64_t groups = chunks / groupChunks;
  int64_t wholeSteps = (chunks % groupChunks) / kWarpSize;
  int64_t partialLanes = chunks % kWarpSize;

  auto accType = VectorType::get({dots.getAccumulatorWidth()}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  // One vector accumulator per row, and a scalar one for Σx² when
  // normalizing.
  SmallVector<Value> acc(dots.rows.size(), zero);
  if (dots.normWeight)
    acc.push_back(d.f32(0.0));
  auto chunkAt = [&](Value base, int64_t offset) -> Value {
    return arith::AddIOp::create(
        b, loc, base, arith::AddIOp::create(b, loc, lane, d.index(offset)));
  };

  if (groups > 0) {
    auto loop = scf::ForOp::create(
        b, loc, d.index(0), d.index(groups * groupChunks), d.index(groupChunks),
        acc, [&](OpBuilder &nb, Location, Value base, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          SmallVector<Value> group;
          for (int64_t u = 0; u < unroll; ++u)
            group.push_back(chunkAt(base, u * kWarpSize));
          scf::YieldOp::create(
              b, loc,
              accumulateChunks(d, dots, group, SmallVector<Value>(carried)));
        });
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  Value tailBase = d.index(groups * groupChunks);
  SmallVector<Value> tail;
  for (int64_t s = 0; s < wholeSteps; ++s)
    tail.push_back(chunkAt(tailBase, s * kWarpSize));
  if (!tail.empty())
    acc = accumulateChunks(d, dots, tail, acc);
  if (partialLanes > 0) {
    Value chunk = chunkAt(tailBase, wholeSteps * kWarpSize);
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         lane, d.index(partialLanes));
    auto partial = scf::IfOp::create(
        b, loc, active,
        [&](OpBuilder &nb, Location) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
          scf::YieldOp::create(b, loc,
                               accumulateChunks(d, dots, {chunk}, acc));
        },
        [&](OpBuilder &nb, Location nloc) {
          scf::YieldOp::create(nb, nloc, acc);
        });
    acc.assign(partial.getResults().begin(), partial.getResults().end());
  }

  // Lane sums, then the warp's: every lane ends with every total.
  SmallVector<Value> sums;
  for (Value partial : acc) {
    if (isa<VectorType>(partial.getType()))
      partial = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                            partial);
    sums.push_back(d.warpReduce(partial, ReduceKind::Sum));
  }
  if (!dots.normWeight)
    return sums;
  // 1 / sqrt(mean(x²) + eps), as the norm kernel computes it.
  Value sumSquares = sums.pop_back_val();
  Value meanSquare = arith::MulFOp::create(
      b, loc, sumSquares, d.f32(1.0 / static_cast<double>(dots.k)));
  Value scale = d.inverseSqrt(
      arith::AddFOp::create(b, loc, meanSquare, d.f32(dots.normEps)));
  for (Value &sum : sums)
    sum = arith::MulFOp::create(b, loc, sum, scale);
  return sums;
}

/// Runs `body` on lane 0 only.
void onLaneZero(DeviceBuilder &d, function_ref<void()> body) {
  OpBuilder &b = d.builder();
  Value isLaneZero = arith::CmpIOp::create(
      b, d.location(), arith::CmpIPredicate::eq, d.laneId(), d.index(0));
  auto ifOp = scf::IfOp::create(b, d.location(), isLaneZero,
                                /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

/// The global warp index: blockIdx.x · warps per block + warp.
Value getGridWarp(DeviceBuilder &d) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, d.blockId(), d.index(kWarpsPerBlock)),
      d.warpId());
}

/// One output of a multi-GEMV inside the kernel: its operands, shape and
/// the warps [firstWarp, firstWarp + numWarps) that take its rows.
struct GemvSegment {
  ProjectionOperands operands;
  int64_t n, k, width;
  Type weightType;
  int64_t firstWarp, numWarps;

  /// The warp's dot products of this segment (rows still to be added).
  WarpDots getDots(const GemvNorm &norm) const {
    return WarpDots{k,           width,      weightType,
                    operands.weightFormat, operands.x, norm.weight,
                    norm.eps,    {}};
  }
};

/// The body of a warp of `segment`: rows firstRow .. firstRow + rowsPerWarp
/// - 1 of it (rows past N repeat row N-1, whose result is not stored
/// again), stored with their bias and residual.
void emitSegmentRows(DeviceBuilder &d, const GemvSegment &segment,
                     const GemvNorm &norm, int64_t rowsPerWarp, Value warp) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value localWarp =
      arith::SubIOp::create(b, loc, warp, d.index(segment.firstWarp));
  Value firstRow =
      arith::MulIOp::create(b, loc, localWarp, d.index(rowsPerWarp));
  WarpDots dots = segment.getDots(norm);
  for (int64_t j = 0; j < rowsPerWarp; ++j) {
    Value row = arith::AddIOp::create(b, loc, firstRow, d.index(j));
    if (j > 0)
      row = arith::MinUIOp::create(b, loc, row, d.index(segment.n - 1));
    dots.rows.push_back({segment.operands.weight, row});
  }
  SmallVector<Value> sums = emitWarpDots(d, dots);
  onLaneZero(d, [&] {
    for (int64_t j = 0; j < rowsPerWarp; ++j) {
      // Row firstRow < N (the segment's warp range); later ones may pass N.
      Value row = arith::AddIOp::create(b, loc, firstRow, d.index(j));
      storeProjectionResult(
          d, segment.operands, d.index(0), row, sums[j],
          loadBias(d, segment.operands, row),
          /*guardColumn=*/j > 0 && segment.n % rowsPerWarp != 0);
    }
  });
}

/// if warp < end(segments[0]) { rows of segments[0] } else if ... : each
/// warp runs the body of the segment it falls in; warps past the last have
/// nothing to do (the kernel has no barrier, so they may leave).
void emitSegmentDispatch(DeviceBuilder &d, ArrayRef<GemvSegment> segments,
                         const GemvNorm &norm, int64_t rowsPerWarp,
                         Value warp) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  const GemvSegment &segment = segments.front();
  Value inSegment = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult, warp,
      d.index(segment.firstWarp + segment.numWarps));
  bool hasMore = segments.size() > 1;
  auto ifOp = scf::IfOp::create(b, loc, inSegment, /*withElse=*/hasMore);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  emitSegmentRows(d, segment, norm, rowsPerWarp, warp);
  if (hasMore) {
    b.setInsertionPointToStart(ifOp.elseBlock());
    emitSegmentDispatch(d, segments.drop_front(), norm, rowsPerWarp, warp);
  }
}

Type getElementType(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getElementType();
}

/// "_norm<type>" for a normalizing kernel, else "".
std::string getNormTag(const GemvNorm &norm) {
  return norm.weight ? "_norm" + getTypeTag(getElementType(norm.weight)) : "";
}

/// gemv_n<N>[_<N>...]_k<K>_<type + epilogue>[_<...>][_norm<type>]_r<rows
/// per warp>, the types and epilogues listed once when all outputs share
/// them: "gemv_n64_k64_f32_r1", "gemv_n64_32_32_k64_f32_normf32_r1".
std::string getMultiGemvName(ArrayRef<GemvSegment> segments,
                             const GemvNorm &norm, int64_t rowsPerWarp) {
  SmallVector<std::string> extents, tags;
  for (const GemvSegment &segment : segments) {
    extents.push_back(std::to_string(segment.n));
    tags.push_back(getWeightTag(segment.operands) +
                   getEpilogueTag(segment.operands));
  }
  if (llvm::all_equal(tags))
    tags.resize(1);
  return "gemv_n" + llvm::join(extents, "_") + "_k" +
         std::to_string(segments.front().k) + "_" + llvm::join(tags, "_") +
         getNormTag(norm) + "_r" + std::to_string(rowsPerWarp);
}

/// The launch of `totalWarps` warps in CTAs of kWarpsPerBlock, with
/// `gridRows` grid rows (null: one).
void launchWarps(OpBuilder &builder, Location loc, gpu::GPUFuncOp kernel,
                 int64_t totalWarps, ValueRange args,
                 Value gridRows = Value()) {
  LaunchShape shape;
  shape.grid[0] =
      indexConstant(builder, loc, llvm::divideCeil(totalWarps, kWarpsPerBlock));
  shape.grid[1] = gridRows;
  shape.block = {kWarpsPerBlock * kWarpSize, 1, 1};
  emitLaunch(builder, loc, kernel, shape, args);
}

/// The CTAs per SM ptxas is told to fit (.minnctapersm) by a kernel whose
/// warps each stream `weightRowsPerWarp` rows of `weightType`:
/// - one row of 16-bit weights: 4 (at most 64 registers per thread). Half
///   an SM's threads keep 64 KiB of weight loads in flight per SM (4 CTAs ·
///   256 threads · 4 loads of 16 bytes), above the ~36 KiB an H200 needs
///   (4.8 TB/s · ~1 µs latency / 132 SMs), and a 4096-row projection (512
///   CTAs) fits the H200's 528 slots in one wave instead of 1.3.
/// - one row of f32 weights: 3 (up to 80 registers), which its wider x
///   slices need to stay out of local memory.
/// - two rows (two rows per warp, or a gate and an up row): 2 (up to 128
///   registers), still 64 KiB in flight per SM.
/// - block-quantized weights: 2 (up to 128 registers): a lane holds a
///   block's scales (Q6_K: 32 of them) and decodes 16 elements per row at a
///   time next to 16 of x.
/// Without a target ptxas's own occupancy heuristic may pick fewer
/// registers and spill (40, spilling 24 bytes, for Qwen2's fused q/k/v on
/// sm_90).
int32_t getMinBlocksPerSM(int64_t weightRowsPerWarp, Type weightType,
                          bool blocks) {
  if (weightRowsPerWarp >= 2 || blocks)
    return 2;
  return weightType.isF32() ? 3 : 4;
}

/// The block size (reqntid) and the occupancy target of a GEMV kernel.
void setBlockSize(OpBuilder &b, gpu::GPUFuncOp func,
                  int64_t weightRowsPerWarp, Type weightType, bool blocks) {
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({kWarpsPerBlock * kWarpSize, 1, 1}));
  func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                b.getI32IntegerAttr(getMinBlocksPerSM(weightRowsPerWarp,
                                                      weightType, blocks)));
}

} // namespace

void launchGemv(OpBuilder &builder, Location loc, KernelModule &kernels,
                const ProjectionOperands &operands) {
  launchMultiGemv(builder, loc, kernels, GemvNorm(), {operands});
}

void launchMultiGemv(OpBuilder &builder, Location loc, KernelModule &kernels,
                     const GemvNorm &norm,
                     ArrayRef<ProjectionOperands> outputs) {
  // Host-side shapes, the warp ranges and the kernel's name.
  SmallVector<GemvSegment> segments;
  int64_t totalRows = 0;
  for (const ProjectionOperands &output : outputs) {
    GemvSegment segment;
    segment.operands = output;
    segment.n = output.getOutputs();
    segment.k = output.getDepth();
    segment.weightType =
        cast<MemRefType>(output.weight.getType()).getElementType();
    segment.width =
        output.weightFormat
            ? output.weightFormat.getBlockElements()
            : getRowVectorWidth(segment.k, segment.weightType);
    totalRows += segment.n;
    segments.push_back(segment);
  }
  int64_t rowsPerWarp = totalRows >= kTwoRowsMinRows ? 2 : 1;
  int64_t totalWarps = 0;
  for (GemvSegment &segment : segments) {
    segment.firstWarp = totalWarps;
    segment.numWarps = llvm::divideCeil(segment.n, rowsPerWarp);
    totalWarps += segment.numWarps;
  }
  std::string name = getMultiGemvName(segments, norm, rowsPerWarp);

  // Arguments: x, [norm weight], then per output its weight, [bias],
  // [residual], out.
  SmallVector<Value> args = {outputs.front().x};
  if (norm.weight)
    args.push_back(norm.weight);
  for (const ProjectionOperands &output : outputs)
    llvm::append_range(args, output.getOutputArgs());

  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        DeviceBuilder d(b, func.getLoc());
        // The widest weight type decides (f32 weights need more registers,
        // block formats more still).
        Type widest = segments.front().weightType;
        bool blocks = false;
        for (const GemvSegment &segment : segments) {
          if (segment.weightType.getIntOrFloatBitWidth() >
              widest.getIntOrFloatBitWidth())
            widest = segment.weightType;
          blocks |= static_cast<bool>(segment.operands.weightFormat);
        }
        setBlockSize(b, func, rowsPerWarp, widest, blocks);
        unsigned arg = 0;
        Value x = func.getArgument(arg++);
        GemvNorm kernelNorm{norm.weight ? func.getArgument(arg++) : Value(),
                            norm.eps};
        SmallVector<GemvSegment> kernelSegments(segments);
        for (GemvSegment &segment : kernelSegments) {
          const ProjectionOperands &host = segment.operands;
          segment.operands = ProjectionOperands::fromOutputArgs(
              x, ValueRange(func.getArguments()).drop_front(arg), host);
          arg += host.getOutputArgs().size();
        }
        emitSegmentDispatch(d, kernelSegments, kernelNorm, rowsPerWarp,
                            getGridWarp(d));
      });
  launchWarps(builder, loc, kernel, totalWarps, args);
}

void launchHeadGemv(OpBuilder &builder, Location loc, KernelModule &kernels,
                    const ProjectionOperands &operands, int64_t heads) {
  int64_t rows = operands.getOutputs(), k = operands.getDepth();
  int64_t n = rows / heads;
  Type weightType = getElementType(operands.weight);
  std::string name = "head_gemv_h" + std::to_string(heads) + "_n" +
                     std::to_string(n) + "_k" + std::to_string(k) + "_" +
                     getWeightTag(operands);
  SmallVector<Value> args = operands.getArgs();
  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location l = func.getLoc();
        DeviceBuilder d(b, l);
        setBlockSize(b, func, /*weightRowsPerWarp=*/1, weightType,
                     /*blocks=*/false);
        ProjectionOperands ops = ProjectionOperands::fromKernel(func, operands);
        // Warp r of grid row m: weight row r (head r / N) against head
        // (r / N)'s K elements of x's row m.
        Value row = getGridWarp(d);
        Value xRow = d.blockId(gpu::Dimension::y);
        Value active = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                             row, d.index(rows));
        auto guard = scf::IfOp::create(b, l, active, /*withElse=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
        WarpDots dots;
        dots.k = k;
        dots.width = getRowVectorWidth(k, weightType);
        dots.weightType = weightType;
        dots.x = ops.x;
        dots.normEps = 0.0;
        dots.rows = {{ops.weight, row}};
        dots.xRow = xRow;
        dots.xColumn = arith::MulIOp::create(
            b, l, arith::DivUIOp::create(b, l, row, d.index(n)), d.index(k));
        SmallVector<Value> sums = emitWarpDots(d, dots);
        onLaneZero(d, [&] {
          storeProjectionResult(d, ops, xRow, row, sums[0], Value(),
                                /*guardColumn=*/false);
        });
      });
  launchWarps(builder, loc, kernel, rows, args,
              memref::DimOp::create(builder, loc, operands.x, 0));
}

void launchGatedGemv(OpBuilder &builder, Location loc, KernelModule &kernels,
                     const GemvNorm &norm, Value x, Value gateWeight,
                     Value upWeight, llm::BlockQuantType weightFormat,
                     llm::Activation activation, Value out) {
  ProjectionOperands gate;
  gate.weight = gateWeight;
  gate.weightFormat = weightFormat;
  int64_t n = gate.getOutputs(), k = gate.getDepth();
  Type elementType = getElementType(gateWeight);
  assert(elementType == getElementType(upWeight) &&
         "gate and up weights share a type");
  std::string name = "gemv_glu_" +
                     llm::stringifyActivation(activation).str() + "_n" +
                     std::to_string(n) + "_k" + std::to_string(k) + "_" +
                     getWeightTag(gate) + getNormTag(norm);

  SmallVector<Value> args = {x};
  if (norm.weight)
    args.push_back(norm.weight);
  llvm::append_range(args, ValueRange{gateWeight, upWeight, out});

  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location l = func.getLoc();
        DeviceBuilder d(b, l);
        // A gate row and an up row per warp.
        setBlockSize(b, func, /*weightRowsPerWarp=*/2, elementType,
                     static_cast<bool>(weightFormat));
        unsigned arg = 0;
        WarpDots dots;
        dots.k = k;
        dots.weightType = elementType;
        dots.format = weightFormat;
        dots.width = weightFormat ? weightFormat.getBlockElements()
                                  : getRowVectorWidth(k, elementType);
        dots.x = func.getArgument(arg++);
        dots.normWeight = norm.weight ? func.getArgument(arg++) : Value();
        dots.normEps = norm.eps;
        Value gate = func.getArgument(arg++), up = func.getArgument(arg++);
        Value result = func.getArgument(arg++);

        // One output row per warp: its gate row and its up row share every
        // x vector (the x reuse of two rows per warp).
        Value row = getGridWarp(d);
        Value active = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                             row, d.index(n));
        auto guard = scf::IfOp::create(b, l, active, /*withElse=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
        dots.rows = {{gate, row}, {up, row}};
        SmallVector<Value> sums = emitWarpDots(d, dots);
        onLaneZero(d, [&] {
          Value unit = arith::MulFOp::create(
              b, l, llmc::createActivation(b, l, activation, sums[0]),
              sums[1]);
          memref::StoreOp::create(b, l, unit, result,
                                  ValueRange{d.index(0), row});
        });
      });
  launchWarps(builder, loc, kernel, n, args);
}

} // namespace llmc::cuda
