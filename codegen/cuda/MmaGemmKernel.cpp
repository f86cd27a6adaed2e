// Prefill projections, bf16/f16 weights: tensor-core GEMM (mma.sync m16n8k16).
#include "codegen/cuda/ProjectionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace llmc::cuda {

namespace {

/// Output tile of a CTA (rows of x × weight rows). 64 × 64 keeps prefill
/// grids of a few hundred tokens at several CTAs per SM and the
/// accumulators at 32 registers per thread.
constexpr int64_t kTileM = 64;
constexpr int64_t kTileN = 64;
/// K columns per shared-memory stage: two k16 steps of the MMA.
constexpr int64_t kTileK = 32;
constexpr GemmTileShape kTile{kTileM, kTileN, kTileK};
/// Warps as a grid over the output tile, each owning a 32 × 32 sub-tile.
constexpr int64_t kWarpsM = 2;
constexpr int64_t kWarpsN = 2;
constexpr int64_t kNumThreads = kWarpsM * kWarpsN * kWarpSize;

/// The instruction's shape: mma.sync.aligned.m16n8k16.
constexpr int64_t kMmaM = 16;
constexpr int64_t kMmaN = 8;
constexpr int64_t kMmaK = 16;
constexpr int64_t kWarpTileM = kTileM / kWarpsM;
constexpr int64_t kWarpTileN = kTileN / kWarpsN;
constexpr int64_t kMmaTilesM = kWarpTileM / kMmaM;
constexpr int64_t kMmaTilesN = kWarpTileN / kMmaN;
/// f32 accumulators of one m16n8 tile per thread.
constexpr int64_t kAccPerTile = 4;

/// Padding of each shared row (elements): rows of 40 16-bit elements are 80
/// bytes apart, so the 8 row addresses of an ldmatrix 8×8 matrix fall on 8
/// different 16-byte bank groups (no conflicts); 80 is still a multiple of
/// the 16 bytes ldmatrix needs per row.
constexpr int64_t kRowPad = 8;
constexpr int64_t kSharedRow = kTileK + kRowPad;

static_assert(kTileM % (kWarpsM * kMmaM) == 0, "warp tiles cover M");
static_assert(kTileN % (kWarpsN * 2 * kMmaN) == 0,
              "B fragments are loaded two n8 tiles at a time");
static_assert(kTileK % kMmaK == 0, "whole k16 steps per stage");

/// The four 32-bit registers of an ldmatrix.x4 at [buffer, row, column] of
/// the workgroup memref `shared` (four 8×8 matrices of 16-bit elements, lane
/// l giving the address of row l % 8 of matrix l / 8), typed as
/// nvvm.mma.sync takes its operands: vector<2xf16> for f16, i32 for bf16
/// (nvvm.mma.sync has no bf16 vector form; nvgpu.mma.sync cannot type bf16).
SmallVector<Value> loadMatrixX4(DeviceBuilder &d, Value shared, Value buffer,
                                Value row, Value column) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Type elementType = cast<MemRefType>(shared.getType()).getElementType();
  auto resultType = VectorType::get({4, 2}, elementType);
  Value matrices = nvgpu::LdMatrixOp::create(
      b, loc, resultType, shared, ValueRange{buffer, row, column},
      /*transpose=*/false, /*numTiles=*/4);
  SmallVector<Value> registers;
  for (int64_t i = 0; i < 4; ++i) {
    Value pair = vector::ExtractOp::create(b, loc, matrices, i);
    if (elementType.isBF16()) {
      Value word = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      pair = vector::ExtractOp::create(b, loc, word, 0);
    }
    registers.push_back(pair);
  }
  return registers;
}

/// D = A · B + C for one m16n8k16 tile (fragments from loadMatrixX4).
SmallVector<Value> mma(DeviceBuilder &d, NVVM::MMATypes multiplicand,
                       ArrayRef<Value> a, ArrayRef<Value> bFragment,
                       ValueRange c) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Type f32 = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value result = NVVM::MmaOp::create(
      b, loc, resultType, a, bFragment, c,
      ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{multiplicand, multiplicand},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> d4;
  for (int64_t i = 0; i < kAccPerTile; ++i)
    d4.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return d4;
}

/// Index of the accumulators of mma tile (i, j) in the flat list.
int64_t accIndex(int64_t i, int64_t j) {
  return (i * kMmaTilesN + j) * kAccPerTile;
}

/// Lane-dependent positions inside a warp tile, computed once per kernel.
struct WarpLayout {
  /// First row / column of the warp's sub-tile inside the CTA tile.
  Value row, column;
  /// ldmatrix addresses: A rows lane % 16 at column (lane / 16)·8; B rows
  /// lane % 8 + (lane / 16)·8 at column ((lane / 8) % 2)·8.
  Value aRow, aColumn, bRow, bColumn;
  /// Accumulator positions: row lane / 4 (+8), column (lane % 4)·2 (+1).
  Value accRow, accColumn;
};

WarpLayout getWarpLayout(DeviceBuilder &d) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto div = [&](Value v, int64_t c) -> Value {
    return arith::DivUIOp::create(b, loc, v, d.index(c));
  };
  auto rem = [&](Value v, int64_t c) -> Value {
    return arith::RemUIOp::create(b, loc, v, d.index(c));
  };
  auto mul = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, d.index(c));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value warp = d.warpId(), lane = d.laneId();
  WarpLayout layout;
  layout.row = mul(div(warp, kWarpsN), kWarpTileM);
  layout.column = mul(rem(warp, kWarpsN), kWarpTileN);
  layout.aRow = rem(lane, 16);
  layout.aColumn = mul(div(lane, 16), 8);
  layout.bRow = add(rem(lane, 8), mul(div(lane, 16), 8));
  layout.bColumn = mul(rem(div(lane, 8), 2), 8);
  layout.accRow = div(lane, 4);
  layout.accColumn = mul(rem(lane, 4), 2);
  return layout;
}

/// One shared stage: kTileK / 16 k16 steps of the warp's 2 × 4 mma tiles.
SmallVector<Value> computeStage(DeviceBuilder &d, NVVM::MMATypes multiplicand,
                                const WarpLayout &layout, Value sharedA,
                                Value sharedB, Value buffer, ValueRange acc) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto at = [&](Value base, Value lanePart, int64_t offset) -> Value {
    return arith::AddIOp::create(
        b, loc, base, arith::AddIOp::create(b, loc, lanePart, d.index(offset)));
  };
  SmallVector<Value> updated(acc);
  for (int64_t ks = 0; ks < kTileK; ks += kMmaK) {
    Value aColumn = arith::AddIOp::create(b, loc, layout.aColumn, d.index(ks));
    Value bColumn = arith::AddIOp::create(b, loc, layout.bColumn, d.index(ks));
    SmallVector<SmallVector<Value>> aFragments, bFragments;
    for (int64_t i = 0; i < kMmaTilesM; ++i)
      aFragments.push_back(loadMatrixX4(
          d, sharedA, buffer, at(layout.row, layout.aRow, i * kMmaM), aColumn));
    // One ldmatrix.x4 gives b0, b1 of two adjacent n8 tiles.
    for (int64_t j = 0; j < kMmaTilesN; j += 2) {
      SmallVector<Value> regs =
          loadMatrixX4(d, sharedB, buffer,
                       at(layout.column, layout.bRow, j * kMmaN), bColumn);
      bFragments.push_back({regs[0], regs[1]});
      bFragments.push_back({regs[2], regs[3]});
    }
    for (int64_t i = 0; i < kMmaTilesM; ++i) {
      for (int64_t j = 0; j < kMmaTilesN; ++j) {
        ValueRange c = ValueRange(updated).slice(accIndex(i, j), kAccPerTile);
        SmallVector<Value> result =
            mma(d, multiplicand, aFragments[i], bFragments[j], c);
        llvm::copy(result, updated.begin() + accIndex(i, j));
      }
    }
  }
  return updated;
}

/// out[row, column] for every accumulator in range: c0, c1 at (row, column
/// + 0/1), c2, c3 eight rows below. One branch per row, and the column
/// tests inside it, so that few predicates are live at a time.
void storeAccumulators(DeviceBuilder &d, const ProjectionOperands &ops,
                       const WarpLayout &layout, Value tileRow,
                       Value tileColumn, Value rowCount, int64_t n,
                       ArrayRef<Value> acc) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value warpRow = add(add(tileRow, layout.row), layout.accRow);
  Value warpColumn = add(add(tileColumn, layout.column), layout.accColumn);
  constexpr int64_t kHalfRows = kMmaM / 2;
  // The thread's 2 · kMmaTilesN columns and their bias, loaded once.
  SmallVector<Value> columns, biases;
  for (int64_t j = 0; j < kMmaTilesN; ++j) {
    for (int64_t pair = 0; pair < 2; ++pair) {
      columns.push_back(add(warpColumn, d.index(j * kMmaN + pair)));
      biases.push_back(loadBias(d, ops, columns.back()));
    }
  }
  for (int64_t i = 0; i < kMmaTilesM; ++i) {
    for (int64_t half = 0; half < 2; ++half) {
      Value row = add(warpRow, d.index(i * kMmaM + half * kHalfRows));
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            row, rowCount);
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPointToStart(guard.thenBlock());
      for (int64_t j = 0; j < kMmaTilesN; ++j) {
        for (int64_t pair = 0; pair < 2; ++pair) {
          storeProjectionResult(d, ops, row, columns[2 * j + pair],
                                acc[accIndex(i, j) + half * 2 + pair],
                                biases[2 * j + pair],
                                /*guardColumn=*/n % kTileN != 0);
        }
      }
    }
  }
}

NVVM::MMATypes getMultiplicandType(Type elementType) {
  return elementType.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
}

} // namespace

// mma.sync is sm_80's instruction and runs unchanged on sm_90; Hopper's
// wgmma (chip sm_90a, TMA descriptors, warpgroup scheduling) would be faster
// there and is left for later.
void launchMmaGemm(OpBuilder &builder, Location loc, KernelModule &kernels,
                   const ProjectionOperands &operands) {
  int64_t n = operands.getOutputs();
  int64_t k = operands.getDepth();
  llm::BlockQuantType format = operands.weightFormat;
  // Blocks are decoded to f16: d·q of an f16 scale and a code of up to 8
  // bits keeps 11 of its up to 19 significant bits (bf16 would keep 8).
  Type elementType =
      format ? Type(builder.getF16Type())
             : cast<MemRefType>(operands.weight.getType()).getElementType();
  assert((elementType.isBF16() || elementType.isF16()) &&
         "tensor cores take 16-bit weights");
  Type f32 = builder.getF32Type();
  int64_t xWidth = getRowVectorWidth(k, f32);
  int64_t weightWidth = format ? 1 : getRowVectorWidth(k, elementType);

  std::string name = "gemm_mma_n" + std::to_string(n) + "_k" +
                     std::to_string(k) + "_" + getWeightTag(operands) +
                     getEpilogueTag(operands);
  SmallVector<Value> args = operands.getArgs();
  // x and the weight tiles, both in the weight's type, double buffered.
  MemRefType sharedType =
      getSharedBufferType({kSharedBuffers, kTileM, kSharedRow}, elementType);
  MemRefType sharedWeightType =
      getSharedBufferType({kSharedBuffers, kTileN, kSharedRow}, elementType);

  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location l = func.getLoc();
        DeviceBuilder d(b, l);
        func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({kNumThreads, 1, 1}));
        ProjectionOperands ops = ProjectionOperands::fromKernel(func, operands);
        Value sharedA = func.getWorkgroupAttributions()[0];
        Value sharedB = func.getWorkgroupAttributions()[1];

        GemmBlock block(d, ops, n, k, kTile, xWidth, weightWidth, kNumThreads);
        WarpLayout layout = getWarpLayout(d);
        NVVM::MMATypes multiplicand = getMultiplicandType(elementType);

        // Block formats: x's tile as for float weights, the weight's
        // decoded by the prologue (one run of 16 elements per thread).
        BlockWeightTile blockTile{ops.weight, format, n, block.firstColumn,
                                  kTileN,     kTileK, kNumThreads};
        size_t xValues = 2 * block.x.getChunksPerThread();
        auto load = [&](Value k0) {
          if (!format)
            return block.load(d, k0);
          SmallVector<Value> values = loadTile(d, block.x, k0);
          llvm::append_range(values, loadBlockTile(d, blockTile, k0));
          return values;
        };
        auto store = [&](ArrayRef<Value> values, Value buffer) {
          if (!format)
            return block.store(d, values, sharedA, sharedB, buffer,
                               /*transposed=*/false);
          storeTile(d, block.x, values.take_front(xValues), sharedA, buffer,
                    /*transposed=*/false);
          storeBlockTile(d, blockTile, values.drop_front(xValues), sharedB,
                         buffer);
        };
        auto compute = [&](Value buffer, ValueRange acc) {
          return computeStage(d, multiplicand, layout, sharedA, sharedB, buffer,
                              acc);
        };
        SmallVector<Value> init(kMmaTilesM * kMmaTilesN * kAccPerTile,
                                d.f32(0.0));
        SmallVector<Value> acc = emitPipelinedKLoop(
            d, llvm::divideCeil(k, kTileK), kTileK, init, load, store, compute);
        storeAccumulators(d, ops, layout, block.firstRow, block.firstColumn,
                          block.rowCount, n, acc);
      },
      {sharedType, sharedWeightType});
  launchGemmGrid(builder, loc, kernel, operands, n, kTile, kNumThreads);
}

} // namespace llmc::cuda
