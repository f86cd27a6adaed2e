// llm.rms_norm, llm.layer_norm → one CTA per row: vectorized loads, block
// reductions, f32 math.
#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc::cuda;

namespace {

/// CUDA's limit on threads per block: wider rows take several vectors per
/// thread.
constexpr int64_t kMaxBlockSize = 1024;
/// Vectors a thread keeps in registers between the statistics and the
/// output pass (the row is read from memory once): rows up to
/// 8 · 1024 · 4 = 32768 f32 elements.
constexpr int64_t kMaxVectorsPerThread = 8;

enum class NormKind { RMS, Layer };

/// How a row of `hidden` elements is spread over a CTA: thread t handles
/// vectors t, t + numThreads, ... of `width` elements each.
struct RowLayout {
  int64_t hidden;
  int64_t width;
  int64_t numVectors;
  int64_t numThreads;
  int64_t vectorsPerThread;

  RowLayout(int64_t hidden, Type elementType) : hidden(hidden) {
    // 128-bit accesses, narrowed until they divide the row (every row then
    // starts aligned to the access size).
    width = 128 / elementType.getIntOrFloatBitWidth();
    while (hidden % width != 0)
      width /= 2;
    numVectors = hidden / width;
    numThreads =
        std::min<int64_t>(kMaxBlockSize, llvm::alignTo(numVectors, kWarpSize));
    vectorsPerThread = llvm::divideCeil(numVectors, numThreads);
  }
  int64_t numWarps() const { return numThreads / kWarpSize; }
  /// Whether vector slot `k` of some thread lies past the row.
  bool mayOverrun(int64_t k) const { return (k + 1) * numThreads > numVectors; }
};

/// The static description of a norm kernel; its name encodes all of it.
struct NormSpec {
  NormKind kind;
  int64_t hidden;
  Type xType, weightType, biasType; // biasType: null without bias
  /// The weight is used as (weight + offset), the offset an f32 argument
  /// after eps (Gemma's (1 + w) RMSNorm).
  bool weightOffset = false;

  std::string getName() const {
    std::string name = kind == NormKind::RMS ? "rms_norm" : "layer_norm";
    name += "_d" + std::to_string(hidden) + "_" + getTypeTag(xType) + "_w" +
            getTypeTag(weightType);
    if (biasType)
      name += "_b" + getTypeTag(biasType);
    if (weightOffset)
      name += "_offset";
    return name;
  }
};

/// Σ of the lanes of an f32 vector, in lane order.
Value sumLanes(DeviceBuilder &d, Value vector) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  int64_t n = cast<VectorType>(vector.getType()).getNumElements();
  Value sum = vector::ExtractOp::create(b, loc, vector, 0);
  for (int64_t i = 1; i < n; ++i)
    sum = arith::AddFOp::create(b, loc, sum,
                                vector::ExtractOp::create(b, loc, vector, i));
  return sum;
}

/// The kernel of `spec`: block r normalizes row r of x (rows × D) into out.
/// Arguments: x, weight (D), [bias (D)], out (rows × D), eps (f32),
/// [weight offset (f32)].
gpu::GPUFuncOp getNormKernel(KernelModule &kernels, const NormSpec &spec) {
  RowLayout layout(spec.hidden, spec.xType);
  auto dyn = ShapedType::kDynamic;
  auto rowsType = MemRefType::get({dyn, spec.hidden}, spec.xType);
  SmallVector<Type> argTypes{rowsType,
                             MemRefType::get({spec.hidden}, spec.weightType)};
  if (spec.biasType)
    argTypes.push_back(MemRefType::get({spec.hidden}, spec.biasType));
  argTypes.push_back(rowsType);
  Type f32 = Float32Type::get(spec.xType.getContext());
  argTypes.push_back(f32);
  if (spec.weightOffset)
    argTypes.push_back(f32);
  auto scratchType = getWorkgroupBufferType({layout.numWarps()}, f32);

  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      spec.getName(), argTypes,
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location loc = func.getLoc();
        DeviceBuilder d(b, loc);
        unsigned arg = 0;
        Value x = func.getArgument(arg++);
        Value weight = func.getArgument(arg++);
        Value bias = spec.biasType ? func.getArgument(arg++) : Value();
        Value out = func.getArgument(arg++);
        Value eps = func.getArgument(arg++);
        Value weightOffset =
            spec.weightOffset ? func.getArgument(arg++) : Value();
        Value scratch = func.getWorkgroupAttributions()[0];
        Value row = d.blockId(), tid = d.threadId();
        auto f32Vector = VectorType::get({layout.width}, f32);
        Value zeros = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(f32Vector, 0.0f));

        // The thread's vectors of the row, in f32 (zeros past the row).
        SmallVector<Value> cols, valid, xs;
        for (int64_t k = 0; k < layout.vectorsPerThread; ++k) {
          Value vectorIndex = arith::AddIOp::create(
              b, loc, tid, d.index(k * layout.numThreads));
          Value col =
              arith::MulIOp::create(b, loc, vectorIndex, d.index(layout.width));
          auto load = [&](OpBuilder &) -> Value {
            return d.toF32(d.loadVector(
                VectorType::get({layout.width}, spec.xType), x, {row, col}));
          };
          Value inRow, value;
          if (layout.mayOverrun(k)) {
            inRow =
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      vectorIndex, d.index(layout.numVectors));
            auto guard = scf::IfOp::create(b, loc, TypeRange{f32Vector}, inRow,
                                           /*withElse=*/true);
            OpBuilder::InsertionGuard insertion(b);
            b.setInsertionPointToStart(guard.thenBlock());
            scf::YieldOp::create(b, loc, load(b));
            b.setInsertionPointToStart(guard.elseBlock());
            scf::YieldOp::create(b, loc, zeros);
            value = guard.getResult(0);
          } else {
            value = load(b);
          }
          cols.push_back(col);
          valid.push_back(inRow);
          xs.push_back(value);
        }

        // Σ over the row of term(x vector), in f32; slots past the row
        // contribute 0.
        auto rowSum = [&](function_ref<Value(Value)> term) -> Value {
          Value partial = d.f32(0.0);
          for (int64_t k = 0; k < layout.vectorsPerThread; ++k) {
            Value s = sumLanes(d, term(xs[k]));
            if (valid[k])
              s = arith::SelectOp::create(b, loc, valid[k], s, d.f32(0.0));
            partial = arith::AddFOp::create(b, loc, partial, s);
          }
          return d.blockReduce(partial, ReduceKind::Sum, scratch,
                               layout.numWarps());
        };
        Value inverseHidden = d.f32(1.0 / double(spec.hidden));
        auto splat = [&](Value scalar) -> Value {
          return vector::BroadcastOp::create(b, loc, f32Vector, scalar);
        };

        // scale = 1/sqrt(statistic/D + eps); centre: the mean (layer norm).
        Value centre, scale;
        if (spec.kind == NormKind::RMS) {
          Value sumSquares = rowSum([&](Value v) -> Value {
            return arith::MulFOp::create(b, loc, v, v);
          });
          Value meanSquare =
              arith::MulFOp::create(b, loc, sumSquares, inverseHidden);
          scale =
              d.inverseSqrt(arith::AddFOp::create(b, loc, meanSquare, eps));
        } else {
          // Two passes (mean, then Σ(x − mean)²) like the CPU lowering.
          Value sum = rowSum([](Value v) { return v; });
          Value mean = arith::MulFOp::create(b, loc, sum, inverseHidden);
          centre = splat(mean);
          Value sumSquaredDeviations = rowSum([&](Value v) -> Value {
            Value dev = arith::SubFOp::create(b, loc, v, centre);
            return arith::MulFOp::create(b, loc, dev, dev);
          });
          Value variance = arith::MulFOp::create(b, loc, sumSquaredDeviations,
                                                 inverseHidden);
          scale = d.inverseSqrt(arith::AddFOp::create(b, loc, variance, eps));
        }
        Value scaleVector = splat(scale);

        // out = (x [− mean]) · scale · w [+ bias], stored in x's type.
        for (int64_t k = 0; k < layout.vectorsPerThread; ++k) {
          OpBuilder::InsertionGuard insertion(b);
          if (valid[k]) {
            auto guard =
                scf::IfOp::create(b, loc, valid[k], /*withElse=*/false);
            b.setInsertionPointToStart(guard.thenBlock());
          }
          Value v = xs[k];
          if (centre)
            v = arith::SubFOp::create(b, loc, v, centre);
          Value w = d.toF32(
              d.loadVector(VectorType::get({layout.width}, spec.weightType),
                           weight, cols[k]));
          if (weightOffset)
            w = arith::AddFOp::create(b, loc, w, splat(weightOffset));
          Value y = arith::MulFOp::create(
              b, loc, arith::MulFOp::create(b, loc, v, scaleVector), w);
          if (bias) {
            Value c = d.toF32(d.loadVector(
                VectorType::get({layout.width}, spec.biasType), bias, cols[k]));
            y = arith::AddFOp::create(b, loc, y, c);
          }
          d.storeVector(d.fromF32(y, spec.xType), out, {row, cols[k]});
        }
      },
      {scratchType});
  // reqntid: ptxas then budgets registers for the real block size.
  kernel.setKnownBlockSize(
      ArrayRef<int32_t>{static_cast<int32_t>(layout.numThreads), 1, 1});
  return kernel;
}

/// Lowers one norm op: rows = every dimension of x but the last.
LogicalResult emitNorm(Operation *op, ConversionPatternRewriter &rewriter,
                       KernelModule &kernels, NormKind kind, Value x,
                       Value weight, Value bias, double epsValue,
                       double weightOffset = 0.0) {
  Location loc = op->getLoc();
  auto xType = cast<MemRefType>(x.getType());
  if (xType.getRank() < 2)
    return rewriter.notifyMatchFailure(op, "expects rows of a rank >= 2 input");
  int64_t hidden = xType.getShape().back();
  if (ShapedType::isDynamic(hidden))
    return rewriter.notifyMatchFailure(op, "dynamic hidden size");
  Type elementType = xType.getElementType();
  for (Value v : {x, weight, bias})
    if (v && cast<MemRefType>(v.getType()).getElementTypeBitWidth() > 32)
      return rewriter.notifyMatchFailure(op, "f64 operands");
  RowLayout layout(hidden, elementType);
  if (layout.vectorsPerThread > kMaxVectorsPerThread)
    return op->emitOpError()
           << "hidden size " << hidden
           << " exceeds the CUDA norm kernel's limit of "
           << kMaxVectorsPerThread * kMaxBlockSize * layout.width
           << " elements";

  NormSpec spec{kind, hidden, elementType,
                cast<MemRefType>(weight.getType()).getElementType(),
                bias ? cast<MemRefType>(bias.getType()).getElementType()
                     : Type(),
                weightOffset != 0.0};
  gpu::GPUFuncOp kernel = getNormKernel(kernels, spec);

  Value result =
      allocateResult(rewriter, loc, xType, getDynamicSizes(rewriter, loc, x));
  SmallVector<ReassociationIndices> toRows(2);
  for (int64_t dim = 0; dim + 1 < xType.getRank(); ++dim)
    toRows[0].push_back(dim);
  toRows[1].push_back(xType.getRank() - 1);
  auto rows = [&](Value buffer) -> Value {
    if (xType.getRank() == 2)
      return buffer;
    return memref::CollapseShapeOp::create(rewriter, loc, buffer, toRows);
  };
  Value xRows = rows(x), outRows = rows(result);
  SmallVector<Value> args{xRows, weight};
  if (bias)
    args.push_back(bias);
  args.push_back(outRows);
  args.push_back(arith::ConstantOp::create(
      rewriter, loc, rewriter.getFloatAttr(rewriter.getF32Type(), epsValue)));
  if (spec.weightOffset)
    args.push_back(arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getFloatAttr(rewriter.getF32Type(), weightOffset)));

  LaunchShape shape;
  shape.grid[0] = memref::DimOp::create(rewriter, loc, xRows, 0);
  shape.block = {layout.numThreads, 1, 1};
  emitLaunch(rewriter, loc, kernel, shape, args);
  rewriter.replaceOp(op, result);
  return success();
}

struct RMSNormLowering : KernelPattern<llm::RMSNormOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::RMSNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return emitNorm(op, rewriter, kernels, NormKind::RMS, adaptor.getX(),
                    adaptor.getWeight(), Value(),
                    op.getEps().convertToDouble(),
                    op.getWeightOffset().convertToDouble());
  }
};

struct LayerNormLowering : KernelPattern<llm::LayerNormOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return emitNorm(op, rewriter, kernels, NormKind::Layer, adaptor.getX(),
                    adaptor.getWeight(), adaptor.getBias(),
                    op.getEps().convertToDouble());
  }
};

} // namespace

void llmc::cuda::populateNormKernelPatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            KernelModule &kernels) {
  patterns.add<RMSNormLowering, LayerNormLowering>(
      converter, patterns.getContext(), kernels);
}
