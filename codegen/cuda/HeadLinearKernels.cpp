// llm.head_linear (multi-head latent attention's absorbed per-head projections) → per-head GEMV kernels.
//
// x (B, T, H, K) is read as rows (B·T, H·K) and the result written as (B·T,
// H·N). Without transpose_weight each head's rows (N, K) are K-contiguous,
// as a projection's: launchHeadGemv (GemvKernel.cpp), warps over the
// weight rows. With transpose_weight head h's rows are (K, N), N-contiguous
// (W_UK applied to a query): a column kernel, each lane owning a vector of
// output columns and walking K down the weight's rows, so that a warp reads
// whole row segments; the block's warps split K and add their partial sums
// through shared memory.
#include "codegen/cuda/LLMToCUDA.h"
#include "codegen/cuda/ProjectionKernels.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc::cuda;

namespace {

/// Warps of a transposed-weight block, each on every kSplitWarps-th row of
/// the head's K rows: a decode step's few (head, column-block) pairs still
/// keep several loads in flight per column.
constexpr int64_t kSplitWarps = 8;

/// out[m, h·N + c] = Σ_k x[m, h·K + k] · weight[h·K + k, c] for x (M, H·K)
/// f32, weight (H·K, N), out (M, H·N): grid (column blocks, H, M), lane l of
/// every warp on columns [l·vector, + vector) of the block's 32·vector, warp
/// w on rows k ≡ w (mod kSplitWarps).
void launchTransposedHeadGemv(OpBuilder &builder, Location loc,
                              KernelModule &kernels, Value x, Value weight,
                              Value out, int64_t heads) {
  auto weightType = cast<MemRefType>(weight.getType());
  int64_t k = weightType.getDimSize(0) / heads, n = weightType.getDimSize(1);
  Type elementType = weightType.getElementType();
  int64_t vector = getRowVectorWidth(n, elementType);
  int64_t columns = kWarpSize * vector;
  int64_t threads = kSplitWarps * kWarpSize;
  std::string name = "head_gemv_t_h" + std::to_string(heads) + "_k" +
                     std::to_string(k) + "_n" + std::to_string(n) + "_" +
                     getTypeTag(elementType);
  Type f32 = builder.getF32Type();
  SmallVector<Value> args = {x, weight, out};
  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, ValueRange(args).getTypes(),
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location l = func.getLoc();
        DeviceBuilder d(b, l);
        func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
            {static_cast<int32_t>(threads), 1, 1}));
        Value xArg = func.getArgument(0), w = func.getArgument(1),
              result = func.getArgument(2);
        Value partial = func.getWorkgroupAttributions()[0];
        Value head = d.blockId(gpu::Dimension::y);
        Value row = d.blockId(gpu::Dimension::z);
        Value warp = d.warpId(), lane = d.laneId();
        Value blockColumn =
            arith::MulIOp::create(b, l, d.blockId(), d.index(columns));
        Value column = arith::AddIOp::create(
            b, l, blockColumn,
            arith::MulIOp::create(b, l, lane, d.index(vector)));
        // Lanes past N read the last vector (N is a multiple of `vector`)
        // and do not store.
        Value loadColumn =
            arith::MinUIOp::create(b, l, column, d.index(n - vector));
        Value firstRow = arith::MulIOp::create(b, l, head, d.index(k));
        auto accType = VectorType::get({vector}, f32);
        Value zero = arith::ConstantOp::create(
            b, l, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
        auto loop = scf::ForOp::create(
            b, l, warp, d.index(k), d.index(kSplitWarps), ValueRange{zero},
            [&](OpBuilder &nb, Location, Value kk, ValueRange carried) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPoint(nb.getInsertionBlock(),
                                  nb.getInsertionPoint());
              Value weightRow = arith::AddIOp::create(b, l, firstRow, kk);
              Value xValue = memref::LoadOp::create(
                  b, l, xArg, ValueRange{row, weightRow});
              Value wValue = d.toF32(d.loadVector(
                  VectorType::get({vector}, elementType), w,
                  {weightRow, loadColumn}));
              Value xSplat = vector::BroadcastOp::create(b, l, accType, xValue);
              scf::YieldOp::create(
                  b, l,
                  vector::FMAOp::create(b, l, wValue, xSplat, carried[0])
                      .getResult());
            });
        Value acc = loop.getResult(0);
        Value local = arith::MulIOp::create(b, l, lane, d.index(vector));
        for (int64_t i = 0; i < vector; ++i) {
          Value element = vector::ExtractOp::create(b, l, acc, i);
          memref::StoreOp::create(
              b, l, element, partial,
              ValueRange{warp, arith::AddIOp::create(b, l, local, d.index(i))});
        }
        d.barrier();
        // Thread t adds the warps' partial sums of column t of the block.
        Value thread = d.threadId();
        Value outColumn = arith::AddIOp::create(b, l, blockColumn, thread);
        Value store = arith::AndIOp::create(
            b, l,
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, thread,
                                  d.index(columns)),
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, outColumn,
                                  d.index(n)));
        auto guard = scf::IfOp::create(b, l, store, /*withElse=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
        Value sum = memref::LoadOp::create(b, l, partial,
                                           ValueRange{d.index(0), thread});
        for (int64_t i = 1; i < kSplitWarps; ++i)
          sum = arith::AddFOp::create(
              b, l, sum,
              memref::LoadOp::create(b, l, partial,
                                     ValueRange{d.index(i), thread}));
        Value outIndex = arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, head, d.index(n)), outColumn);
        memref::StoreOp::create(b, l, sum, result, ValueRange{row, outIndex});
      },
      {getWorkgroupBufferType({kSplitWarps, columns}, f32)});
  LaunchShape shape;
  shape.grid[0] = indexConstant(builder, loc, llvm::divideCeil(n, columns));
  shape.grid[1] = indexConstant(builder, loc, heads);
  shape.grid[2] = memref::DimOp::create(builder, loc, x, 0);
  shape.block = {threads, 1, 1};
  emitLaunch(builder, loc, kernel, shape, args);
}

/// (B, T, H, W) as (B·T, H·W), the rows dynamic (one kernel for prefill
/// and decode).
Value viewAsHeadRows(OpBuilder &b, Location loc, Value buffer) {
  return withDynamicRows(
      b, loc,
      memref::CollapseShapeOp::create(
          b, loc, buffer, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}}));
}

struct HeadLinearLowering : KernelPattern<llm::HeadLinearOp> {
  using KernelPattern::KernelPattern;

  LogicalResult
  matchAndRewrite(llm::HeadLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    auto xType = dyn_cast<MemRefType>(adaptor.getX().getType());
    auto weightType = dyn_cast<MemRefType>(adaptor.getWeight().getType());
    if (!resultType || !xType || !weightType ||
        !xType.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "operands are not buffers");
    if (!xType.getElementType().isF32() || !resultType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "activations are not f32");
    Type element = weightType.getElementType();
    if (!(element.isF32() || element.isBF16() || element.isF16()) ||
        !weightType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "weight type");
    int64_t heads = xType.getDimSize(2);
    Value result = allocateResult(rewriter, loc, resultType,
                                  getDynamicSizes(rewriter, loc, adaptor.getX()));
    Value x = viewAsHeadRows(rewriter, loc, adaptor.getX());
    Value out = viewAsHeadRows(rewriter, loc, result);
    if (op.getTransposeWeight()) {
      launchTransposedHeadGemv(rewriter, loc, kernels, x, adaptor.getWeight(),
                               out, heads);
    } else {
      ProjectionOperands operands;
      operands.x = x;
      operands.weight = adaptor.getWeight();
      operands.out = out;
      launchHeadGemv(rewriter, loc, kernels, operands, heads);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void llmc::cuda::populateHeadLinearKernelPatterns(TypeConverter &converter,
                                                  RewritePatternSet &patterns,
                                                  KernelModule &kernels) {
  patterns.add<HeadLinearLowering>(converter, patterns.getContext(), kernels);
}
