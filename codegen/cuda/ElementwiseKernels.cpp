// llm.add, llm.glu, llm.activation (and the logits' softcap) → one vectorized element-wise kernel each.
#include "codegen/common/Activation.h"
#include "codegen/common/Softcap.h"
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

/// Threads per block of the element-wise kernels.
constexpr int64_t kBlockSize = 256;

/// The element-wise function of a kernel: f32 vectors in, f32 vector out.
using VectorBody =
    std::function<Value(DeviceBuilder &, ArrayRef<Value> /*f32 vectors*/)>;

/// A flat (n,) view of an identity-layout buffer.
Value flatten(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 1)
    return buffer;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all[0].push_back(d);
  return memref::CollapseShapeOp::create(b, loc, buffer, all);
}

/// Elements per thread: 128-bit accesses when the innermost extent allows
/// (it is static and every row starts aligned), else one.
int64_t getVectorWidth(MemRefType type) {
  int64_t inner = type.getShape().back();
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t width = 128 / bits;
  return !ShapedType::isDynamic(inner) && inner % width == 0 ? width : 1;
}

/// Launches `name`: out[i] = body(inputs[i]..., scalars...) over every
/// element, each thread handling one vector of `width` elements; the f32
/// `scalars` are kernel arguments after out, splat to vectors for the body.
/// The result has the inputs' shape and `resultElementType` (null: the
/// inputs' element type); it is `out` when given (which may be an input:
/// each thread loads its elements before it stores them), else a new
/// buffer.
Value emitElementwise(OpBuilder &b, Location loc, KernelModule &kernels,
                      StringRef baseName, ValueRange inputs, VectorBody body,
                      Type resultElementType = Type(),
                      ValueRange scalars = {}, Value out = Value()) {
  auto type = cast<MemRefType>(inputs.front().getType());
  Type elementType = type.getElementType();
  Type outElementType = resultElementType ? resultElementType : elementType;
  auto resultType = MemRefType::get(type.getShape(), outElementType);
  int64_t width = std::min(getVectorWidth(type), getVectorWidth(resultType));
  std::string name = (baseName + "_" + getTypeTag(elementType) +
                      (outElementType == elementType
                           ? ""
                           : "_to_" + getTypeTag(outElementType)) +
                      "_v" + std::to_string(width))
                         .str();
  auto flatType = MemRefType::get({ShapedType::kDynamic}, elementType);
  SmallVector<Type> argTypes(inputs.size(), flatType);
  argTypes.push_back(MemRefType::get({ShapedType::kDynamic}, outElementType));
  llvm::append_range(argTypes, scalars.getTypes());
  size_t numInputs = inputs.size();
  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, argTypes, [&](OpBuilder &kb, gpu::GPUFuncOp func) {
        DeviceBuilder d(kb, func.getLoc());
        Location l = func.getLoc();
        Value out = func.getArgument(numInputs);
        Value n = memref::DimOp::create(kb, l, out, 0);
        Value thread = arith::AddIOp::create(
            kb, l,
            arith::MulIOp::create(kb, l, d.blockId(), d.index(kBlockSize)),
            d.threadId());
        Value first = arith::MulIOp::create(kb, l, thread, d.index(width));
        Value inRange =
            arith::CmpIOp::create(kb, l, arith::CmpIPredicate::ult, first, n);
        auto guard = scf::IfOp::create(kb, l, inRange, false);
        kb.setInsertionPointToStart(guard.thenBlock());
        auto vectorType = VectorType::get({width}, elementType);
        SmallVector<Value> values;
        for (size_t i = 0; i < numInputs; ++i) {
          Value v = d.loadVector(vectorType, func.getArgument(i), first);
          values.push_back(d.toF32(v));
        }
        auto f32Vector = VectorType::get({width}, kb.getF32Type());
        for (size_t i = 0; i < scalars.size(); ++i)
          values.push_back(vector::BroadcastOp::create(
              kb, l, f32Vector, func.getArgument(numInputs + 1 + i)));
        Value result = d.fromF32(body(d, values), outElementType);
        d.storeVector(result, out, first);
      });

  Value result =
      out ? out
          : allocateResult(b, loc, resultType,
                           getDynamicSizes(b, loc, inputs.front()));
  SmallVector<Value> args;
  for (Value input : inputs)
    args.push_back(flatten(b, loc, input));
  args.push_back(flatten(b, loc, result));
  Value n = memref::DimOp::create(b, loc, args.back(), 0);
  llvm::append_range(args, scalars);
  LaunchShape shape;
  shape.grid[0] = ceilDiv(b, loc, ceilDiv(b, loc, n, width), kBlockSize);
  shape.block = {kBlockSize, 1, 1};
  emitLaunch(b, loc, kernel, shape, args);
  return result;
}

/// act(x) lane by lane (the activation formulas are scalar).
Value applyActivation(DeviceBuilder &d, llm::Activation activation,
                      Value vector) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto type = cast<VectorType>(vector.getType());
  Value result = vector;
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    Value lane = vector::ExtractOp::create(b, loc, vector, i);
    result = vector::InsertOp::create(
        b, loc, llmc::createActivation(b, loc, activation, lane), result, i);
  }
  return result;
}

std::string getActivationName(llm::Activation activation) {
  return llm::stringifyActivation(activation).str();
}

struct AddLowering : KernelPattern<llm::AddOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::AddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = emitElementwise(
        rewriter, op.getLoc(), kernels, "add",
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [](DeviceBuilder &d, ArrayRef<Value> v) -> Value {
          return arith::AddFOp::create(d.builder(), d.location(), v[0], v[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GLULowering : KernelPattern<llm::GLUOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::GLUOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    llm::Activation activation = op.getActivation();
    Value result = emitElementwise(
        rewriter, op.getLoc(), kernels, "glu_" + getActivationName(activation),
        ValueRange{adaptor.getGate(), adaptor.getUp()},
        [activation](DeviceBuilder &d, ArrayRef<Value> v) -> Value {
          Value act = applyActivation(d, activation, v[0]);
          return arith::MulFOp::create(d.builder(), d.location(), act, v[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ActivationLowering : KernelPattern<llm::ActivationOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::ActivationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    llm::Activation activation = op.getActivation();
    Value result = emitElementwise(
        rewriter, op.getLoc(), kernels,
        "activation_" + getActivationName(activation),
        ValueRange{adaptor.getX()},
        [activation](DeviceBuilder &d, ArrayRef<Value> v) -> Value {
          return applyActivation(d, activation, v[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// arith.truncf / arith.extf on a tensor (which llmc's own graphs no longer
/// hold: llm.kv_append rounds keys and values to the cache's type itself):
/// a conversion kernel. Scalar casts stay legal and untouched.
template <typename CastOp>
struct FloatCastLowering : KernelPattern<CastOp> {
  using KernelPattern<CastOp>::KernelPattern;
  LogicalResult
  matchAndRewrite(CastOp op, typename CastOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    Value result = emitElementwise(
        rewriter, op.getLoc(), this->kernels, "convert",
        ValueRange{adaptor.getIn()},
        [](DeviceBuilder &, ArrayRef<Value> v) -> Value { return v[0]; },
        type.getElementType());
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void llmc::cuda::emitSoftcapInPlace(OpBuilder &b, Location loc,
                                    KernelModule &kernels, Value buffer,
                                    double cap) {
  // cap and 1/cap as arguments: one kernel serves every cap value.
  auto f32 = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  };
  emitElementwise(
      b, loc, kernels, "softcap", ValueRange{buffer},
      [](DeviceBuilder &d, ArrayRef<Value> v) -> Value {
        return llmc::createSoftcap(d.builder(), d.location(), v[0], v[1], v[2]);
      },
      Type(), ValueRange{f32(cap), f32(1.0 / cap)}, buffer);
}

bool llmc::cuda::isTensorArithOp(Operation *op) {
  auto isTensor = [](Type type) { return isa<RankedTensorType>(type); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

void llmc::cuda::populateElementwiseKernelPatterns(TypeConverter &converter,
                                                   RewritePatternSet &patterns,
                                                   KernelModule &kernels) {
  patterns.add<AddLowering, GLULowering, ActivationLowering,
               FloatCastLowering<arith::TruncFOp>,
               FloatCastLowering<arith::ExtFOp>>(converter,
                                                 patterns.getContext(), kernels);
}
