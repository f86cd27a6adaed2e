// Decode projections (one row): a GEMV bound by reading the weight once.
#include "codegen/cuda/ProjectionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

/// From this many weight rows on, each warp takes two rows and reuses
/// every x vector for both (half the x traffic per weight byte); below it
/// one row per warp keeps the grid at several CTAs per SM (an H200 has 132
/// SMs: 8192 rows are 512 CTAs of 16 rows).
constexpr int64_t kTwoRowsMinRows = 8192;

/// The kernel's static parameters.
struct GemvConfig {
  int64_t n, k;
  Type weightType;
  /// Elements per weight vector and the rows per warp.
  int64_t width, rowsPerWarp;

  int64_t getRowsPerBlock() const { return rowsPerWarp * kWarpsPerBlock; }
};

/// acc[j] += weight[rows[j], chunk·width ...] · x[chunk·width ...] for the
/// `chunks` of one step of the K loop: every load of the step is issued
/// before the first FMA.
SmallVector<Value> accumulateChunks(DeviceBuilder &d, const GemvConfig &config,
                                    Value x, Value weight, ArrayRef<Value> rows,
                                    ArrayRef<Value> chunks,
                                    ArrayRef<Value> acc) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto xType = VectorType::get({config.width}, b.getF32Type());
  auto weightType = VectorType::get({config.width}, config.weightType);
  SmallVector<Value> xs, ws;
  for (Value chunk : chunks) {
    Value column = arith::MulIOp::create(b, loc, chunk, d.index(config.width));
    xs.push_back(d.loadVector(xType, x, {d.index(0), column}));
    for (Value row : rows)
      ws.push_back(d.loadVector(weightType, weight, {row, column}));
  }
  SmallVector<Value> updated(acc);
  for (size_t u = 0; u < chunks.size(); ++u)
    for (size_t j = 0; j < rows.size(); ++j)
      updated[j] = vector::FMAOp::create(
          b, loc, d.toF32(ws[u * rows.size() + j]), xs[u], updated[j]);
  return updated;
}

/// The body of one warp: rows firstRow .. firstRow + rowsPerWarp - 1 (rows
/// past N repeat row N-1, whose result is not stored again).
void emitWarpRows(DeviceBuilder &d, const GemvConfig &config,
                  const ProjectionOperands &ops, Value firstRow) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value lane = d.laneId();
  SmallVector<Value> rows;
  for (int64_t j = 0; j < config.rowsPerWarp; ++j) {
    Value row = arith::AddIOp::create(b, loc, firstRow, d.index(j));
    rows.push_back(
        j == 0 ? row
               : arith::MinUIOp::create(b, loc, row, d.index(config.n - 1)));
  }

  // K as chunks of `width` elements; lane l takes chunks l, l + 32, ...
  // Whole steps of kUnroll·32 chunks run in a loop, then up to kUnroll-1
  // whole 32-chunk steps, then one partial step for the lanes it covers.
  int64_t chunks = config.k / config.width;
  int64_t groupChunks = kUnroll * kWarpSize;
  int64_t groups = chunks / groupChunks;
  int64_t wholeSteps = (chunks % groupChunks) / kWarpSize;
  int64_t partialLanes = chunks % kWarpSize;

  auto accType = VectorType::get({config.width}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  SmallVector<Value> acc(config.rowsPerWarp, zero);
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
          for (int64_t u = 0; u < kUnroll; ++u)
            group.push_back(chunkAt(base, u * kWarpSize));
          scf::YieldOp::create(b, loc,
                               accumulateChunks(d, config, ops.x, ops.weight,
                                                rows, group,
                                                SmallVector<Value>(carried)));
        });
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  Value tailBase = d.index(groups * groupChunks);
  SmallVector<Value> tail;
  for (int64_t s = 0; s < wholeSteps; ++s)
    tail.push_back(chunkAt(tailBase, s * kWarpSize));
  if (!tail.empty())
    acc = accumulateChunks(d, config, ops.x, ops.weight, rows, tail, acc);
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
                               accumulateChunks(d, config, ops.x, ops.weight,
                                                rows, {chunk}, acc));
        },
        [&](OpBuilder &nb, Location nloc) {
          scf::YieldOp::create(nb, nloc, acc);
        });
    acc.assign(partial.getResults().begin(), partial.getResults().end());
  }

  // Lane sums, then the warp's: every lane ends with every row's total.
  SmallVector<Value> sums;
  for (Value vector : acc) {
    Value sum =
        vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, vector);
    sums.push_back(d.warpReduce(sum, ReduceKind::Sum));
  }
  Value isLaneZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, d.index(0));
  auto store = scf::IfOp::create(b, loc, isLaneZero, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(store.thenBlock());
  for (int64_t j = 0; j < config.rowsPerWarp; ++j) {
    // Row firstRow < N (the caller's guard); later ones may pass N.
    Value row = arith::AddIOp::create(b, loc, firstRow, d.index(j));
    storeProjectionResult(
        d, ops, d.index(0), row, sums[j], loadBias(d, ops, row),
        /*guardColumn=*/j > 0 && config.n % config.rowsPerWarp != 0);
  }
}

std::string getKernelName(const GemvConfig &config, Value bias) {
  return "gemv_n" + std::to_string(config.n) + "_k" + std::to_string(config.k) +
         "_" + getTypeTag(config.weightType) + getBiasTag(bias) + "_r" +
         std::to_string(config.rowsPerWarp);
}

} // namespace

void launchGemv(OpBuilder &builder, Location loc, KernelModule &kernels,
                const ProjectionOperands &operands) {
  auto weightType = cast<MemRefType>(operands.weight.getType());
  GemvConfig config;
  config.n = weightType.getDimSize(0);
  config.k = weightType.getDimSize(1);
  config.weightType = weightType.getElementType();
  config.width = getRowVectorWidth(config.k, config.weightType);
  config.rowsPerWarp = config.n >= kTwoRowsMinRows ? 2 : 1;

  SmallVector<Value> args = operands.getArgs();
  bool hasBias = static_cast<bool>(operands.bias);

  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      getKernelName(config, operands.bias), ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location l = func.getLoc();
        DeviceBuilder d(b, l);
        func.setKnownBlockSizeAttr(
            b.getDenseI32ArrayAttr({kWarpsPerBlock * kWarpSize, 1, 1}));
        ProjectionOperands ops = ProjectionOperands::fromKernel(func, hasBias);
        Value warp = arith::AddIOp::create(
            b, l,
            arith::MulIOp::create(b, l, d.blockId(), d.index(kWarpsPerBlock)),
            d.warpId());
        Value firstRow =
            arith::MulIOp::create(b, l, warp, d.index(config.rowsPerWarp));
        // Warps past the last row (N not a multiple of the CTA's rows) have
        // nothing to do; the kernel has no barrier, so they may leave.
        Value active = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                             firstRow, d.index(config.n));
        auto guard = scf::IfOp::create(b, l, active, /*withElse=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
        emitWarpRows(d, config, ops, firstRow);
      });

  LaunchShape shape;
  shape.grid[0] = indexConstant(
      builder, loc, llvm::divideCeil(config.n, config.getRowsPerBlock()));
  shape.block = {kWarpsPerBlock * kWarpSize, 1, 1};
  emitLaunch(builder, loc, kernel, shape, args);
}

} // namespace llmc::cuda
