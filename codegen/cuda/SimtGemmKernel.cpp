// Prefill projections, f32 weights: shared-memory tiled f32 FMA GEMM.
#include "codegen/cuda/ProjectionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace llmc::cuda {

namespace {

/// Output tile of a CTA and the K columns per shared stage: 64 × 64 × 16
/// f32 is 8 KiB per operand and stage.
constexpr int64_t kTileM = 64;
constexpr int64_t kTileN = 64;
constexpr int64_t kTileK = 16;
constexpr GemmTileShape kTile{kTileM, kTileN, kTileK};
/// Each thread computes a 4 × 4 block of outputs: every shared value it
/// reads feeds 4 FMAs.
constexpr int64_t kThreadTile = 4;
constexpr int64_t kThreadsPerRow = kTileN / kThreadTile;
constexpr int64_t kNumThreads = (kTileM / kThreadTile) * kThreadsPerRow;
/// Shared tiles are stored K-major ([k][row]) so a thread reads its 4 rows
/// (or columns) as one 16-byte vector; the padding keeps rows 16-byte
/// aligned and spreads the transposing stores over more banks.
constexpr int64_t kRowPad = 4;
constexpr int64_t kSharedRowM = kTileM + kRowPad;
constexpr int64_t kSharedRowN = kTileN + kRowPad;

/// Shared columns per iteration of a stage's loop: 8 live vectors.
constexpr int64_t kUnrollK = 4;

static_assert(kTileK % kUnrollK == 0, "whole iterations per stage");
static_assert(kThreadTile * 4 == 16, "thread tiles are read as vector<4xf32>");

/// acc[i] (a vector over the thread's 4 columns) += x[row i, k] · w[cols, k]
/// for every k of one shared stage: a loop of kUnrollK columns per
/// iteration, kept rolled (LLVM would otherwise hoist all of a stage's
/// shared loads to its top: 32 live vectors and spills for short K).
SmallVector<Value> computeStage(DeviceBuilder &d, Value sharedX, Value sharedW,
                                Value buffer, Value rowOffset,
                                Value columnOffset, ValueRange acc) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto type = VectorType::get({kThreadTile}, b.getF32Type());
  auto loop = scf::ForOp::create(
      b, loc, d.index(0), d.index(kTileK), d.index(kUnrollK), acc,
      [&](OpBuilder &nb, Location, Value k0, ValueRange carried) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        SmallVector<Value> updated(carried);
        for (int64_t kk = 0; kk < kUnrollK; ++kk) {
          Value depth = arith::AddIOp::create(b, loc, k0, d.index(kk));
          Value xs = d.loadVector(type, sharedX, {buffer, depth, rowOffset});
          Value ws = d.loadVector(type, sharedW, {buffer, depth, columnOffset});
          for (int64_t i = 0; i < kThreadTile; ++i) {
            Value x = vector::ExtractOp::create(b, loc, xs, i);
            Value splat = vector::BroadcastOp::create(b, loc, type, x);
            updated[i] = vector::FMAOp::create(b, loc, splat, ws, updated[i]);
          }
        }
        scf::YieldOp::create(b, loc, updated);
      });
  MLIRContext *context = b.getContext();
  auto unroll = LLVM::LoopUnrollAttr::get(
      context, /*disable=*/b.getBoolAttr(true), /*count=*/{},
      /*runtimeDisable=*/{}, /*full=*/{}, /*followupUnrolled=*/{},
      /*followupRemainder=*/{}, /*followupAll=*/{});
  auto noUnroll = LLVM::LoopAnnotationAttr::get(
      context, /*disableNonforced=*/{}, /*vectorize=*/{}, /*interleave=*/{},
      unroll, /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
      /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
      /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
      /*parallelAccesses=*/{});
  loop->setAttr("llvm.loop_annotation", noUnroll);
  return SmallVector<Value>(loop.getResults());
}

} // namespace

void launchSimtGemm(OpBuilder &builder, Location loc, KernelModule &kernels,
                    const ProjectionOperands &operands) {
  auto weightType = cast<MemRefType>(operands.weight.getType());
  int64_t n = weightType.getDimSize(0);
  int64_t k = weightType.getDimSize(1);
  Type f32 = builder.getF32Type();
  assert(weightType.getElementType().isF32() && "the SIMT GEMM takes f32");
  int64_t width = getRowVectorWidth(k, f32);

  std::string name = "gemm_simt_n" + std::to_string(n) + "_k" +
                     std::to_string(k) + "_f32" + getEpilogueTag(operands);
  SmallVector<Value> args = operands.getArgs();
  MemRefType sharedXType =
      getSharedBufferType({kSharedBuffers, kTileK, kSharedRowM}, f32);
  MemRefType sharedWType =
      getSharedBufferType({kSharedBuffers, kTileK, kSharedRowN}, f32);

  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location l = func.getLoc();
        DeviceBuilder d(b, l);
        func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({kNumThreads, 1, 1}));
        ProjectionOperands ops = ProjectionOperands::fromKernel(func, operands);
        Value sharedX = func.getWorkgroupAttributions()[0];
        Value sharedW = func.getWorkgroupAttributions()[1];

        GemmBlock block(d, ops, n, k, kTile, width, width, kNumThreads);
        // Thread (ty, tx) owns rows ty·4 .. ty·4+3 and columns tx·4 ..
        // tx·4+3 of the tile.
        Value rowOffset = arith::MulIOp::create(
            b, l,
            arith::DivUIOp::create(b, l, d.threadId(), d.index(kThreadsPerRow)),
            d.index(kThreadTile));
        Value columnOffset = arith::MulIOp::create(
            b, l,
            arith::RemUIOp::create(b, l, d.threadId(), d.index(kThreadsPerRow)),
            d.index(kThreadTile));

        auto load = [&](Value k0) { return block.load(d, k0); };
        auto store = [&](ArrayRef<Value> values, Value buffer) {
          block.store(d, values, sharedX, sharedW, buffer, /*transposed=*/true);
        };
        auto compute = [&](Value buffer, ValueRange acc) {
          return computeStage(d, sharedX, sharedW, buffer, rowOffset,
                              columnOffset, acc);
        };
        auto accType = VectorType::get({kThreadTile}, f32);
        Value zero = arith::ConstantOp::create(
            b, l, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
        SmallVector<Value> init(kThreadTile, zero);
        SmallVector<Value> acc = emitPipelinedKLoop(
            d, llvm::divideCeil(k, kTileK), kTileK, init, load, store, compute);

        Value firstRow = arith::AddIOp::create(b, l, block.firstRow, rowOffset);
        Value firstColumn =
            arith::AddIOp::create(b, l, block.firstColumn, columnOffset);
        // The thread's columns and their bias, loaded once; one branch per
        // row, the column tests inside it (few live predicates).
        SmallVector<Value> columns, biases;
        for (int64_t j = 0; j < kThreadTile; ++j) {
          columns.push_back(
              arith::AddIOp::create(b, l, firstColumn, d.index(j)));
          biases.push_back(loadBias(d, ops, columns.back()));
        }
        for (int64_t i = 0; i < kThreadTile; ++i) {
          Value row = arith::AddIOp::create(b, l, firstRow, d.index(i));
          Value inRange = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                                row, block.rowCount);
          auto guard = scf::IfOp::create(b, l, inRange, /*withElse=*/false);
          OpBuilder::InsertionGuard insertion(b);
          b.setInsertionPointToStart(guard.thenBlock());
          for (int64_t j = 0; j < kThreadTile; ++j) {
            Value sum = vector::ExtractOp::create(b, l, acc[i], j);
            storeProjectionResult(d, ops, row, columns[j], sum, biases[j],
                                  /*guardColumn=*/n % kTileN != 0);
          }
        }
      },
      {sharedXType, sharedWType});
  launchGemmGrid(builder, loc, kernel, operands, n, kTile, kNumThreads);
}

} // namespace llmc::cuda
