// llm.linear, llm.logits → GEMV (one row) or GEMM kernels (any row count).
#include "codegen/cuda/ProjectionKernels.h"
#include "codegen/cuda/BlockDequant.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace llmc::cuda;

namespace llmc::cuda {

SmallVector<Value> ProjectionOperands::getArgs() const {
  SmallVector<Value> args = {x};
  llvm::append_range(args, getOutputArgs());
  return args;
}

SmallVector<Value> ProjectionOperands::getOutputArgs() const {
  SmallVector<Value> args = {weight};
  if (bias)
    args.push_back(bias);
  if (residual)
    args.push_back(residual);
  args.push_back(out);
  return args;
}

ProjectionOperands
ProjectionOperands::fromKernel(gpu::GPUFuncOp kernel,
                               const ProjectionOperands &host) {
  ValueRange args = kernel.getArguments();
  return fromOutputArgs(args.front(), args.drop_front(), host);
}

ProjectionOperands
ProjectionOperands::fromOutputArgs(Value x, ValueRange args,
                                   const ProjectionOperands &host) {
  ProjectionOperands ops;
  unsigned arg = 0;
  ops.x = x;
  ops.weight = args[arg++];
  if (host.bias)
    ops.bias = args[arg++];
  if (host.residual)
    ops.residual = args[arg++];
  ops.out = args[arg++];
  ops.weightFormat = host.weightFormat;
  return ops;
}

int64_t ProjectionOperands::getOutputs() const {
  return cast<MemRefType>(weight.getType()).getDimSize(0);
}

int64_t ProjectionOperands::getDepth() const {
  int64_t stored = cast<MemRefType>(weight.getType()).getDimSize(1);
  if (!weightFormat)
    return stored;
  return stored / weightFormat.getBlockBytes() * weightFormat.getBlockElements();
}

int64_t getRowVectorWidth(int64_t k, Type elementType) {
  int64_t width = 128 / elementType.getIntOrFloatBitWidth();
  while (k % width != 0)
    width /= 2;
  return width;
}

Value loadBias(DeviceBuilder &d, const ProjectionOperands &ops, Value column) {
  if (!ops.bias)
    return Value();
  int64_t n = cast<MemRefType>(ops.bias.getType()).getDimSize(0);
  Value clamped =
      arith::MinUIOp::create(d.builder(), d.location(), column, d.index(n - 1));
  return d.toF32(
      memref::LoadOp::create(d.builder(), d.location(), ops.bias, clamped));
}

void storeProjectionResult(DeviceBuilder &d, const ProjectionOperands &ops,
                           Value row, Value column, Value sum, Value bias,
                           bool guardColumn) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  OpBuilder::InsertionGuard guard(b);
  if (guardColumn) {
    int64_t n = cast<MemRefType>(ops.out.getType()).getDimSize(1);
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          column, d.index(n));
    auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  if (bias)
    sum = arith::AddFOp::create(b, loc, sum, bias);
  if (ops.residual)
    sum = arith::AddFOp::create(
        b, loc, sum,
        memref::LoadOp::create(b, loc, ops.residual, ValueRange{row, column}));
  memref::StoreOp::create(b, loc, sum, ops.out, ValueRange{row, column});
}

std::string getWeightTag(const ProjectionOperands &operands) {
  if (operands.weightFormat)
    return getBlockTag(operands.weightFormat);
  return getTypeTag(cast<MemRefType>(operands.weight.getType()).getElementType());
}

std::string getEpilogueTag(const ProjectionOperands &operands) {
  std::string tag;
  if (operands.bias)
    tag += "_bias" + getTypeTag(cast<MemRefType>(operands.bias.getType())
                                    .getElementType());
  if (operands.residual)
    tag += "_res";
  return tag;
}

} // namespace llmc::cuda

namespace {

Value getBias(llm::LinearOp, llm::LinearOp::Adaptor adaptor) {
  return adaptor.getBias();
}
/// `tied` only tells the runtime to bind the embedding table as the weight;
/// the math is the same.
Value getBias(llm::LogitsOp, llm::LogitsOp::Adaptor adaptor) {
  return adaptor.getBias();
}

Value getResidual(llm::LinearOp::Adaptor adaptor) {
  return adaptor.getResidual();
}
Value getResidual(llm::LogitsOp::Adaptor) { return Value(); }

/// Only llm.logits may be softcapped (Gemma-2's final_logit_softcapping).
std::optional<double> getSoftcap(llm::LinearOp) { return std::nullopt; }
std::optional<double> getSoftcap(llm::LogitsOp op) {
  if (std::optional<APFloat> cap = op.getSoftcap())
    return cap->convertToDouble();
  return std::nullopt;
}

bool isWeightType(Type type) {
  return type.isF32() || type.isBF16() || type.isF16();
}

/// `buffer` (l..., last) as (Π l, last); a rank-1 buffer as (1, last).
Value viewAsRows(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  if (rank == 1)
    return memref::ExpandShapeOp::create(
        b, loc, MemRefType::get({1, type.getDimSize(0)}, type.getElementType()),
        buffer, SmallVector<ReassociationIndices>{{0, 1}});
  ReassociationIndices leading;
  for (int64_t d = 0; d < rank - 1; ++d)
    leading.push_back(d);
  if (rank == 2)
    return buffer;
  return memref::CollapseShapeOp::create(
      b, loc, buffer, SmallVector<ReassociationIndices>{leading, {rank - 1}});
}

/// x[l..., K] · W[N, K]ᵀ (+ bias[N]) → [l..., N], f32 activations and
/// result. A statically single row is a GEMV, any other row count (the
/// sequence length of a prefill) a GEMM: on tensor cores for 16-bit and
/// block-quantized weights, in f32 FMAs for f32 weights.
template <typename OpTy> struct ProjectionLowering : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast_or_null<MemRefType>(
        this->getTypeConverter()->convertType(op.getType()));
    auto xType = dyn_cast<MemRefType>(adaptor.getX().getType());
    auto weightType = dyn_cast<MemRefType>(adaptor.getWeight().getType());
    Value bias = getBias(op, adaptor);
    if (!resultType || !xType || !weightType)
      return rewriter.notifyMatchFailure(op, "operands are not buffers");
    if (!xType.getElementType().isF32() || !resultType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "activations are not f32");
    llm::BlockQuantType format =
        llm::getBlockQuantElementType(op.getWeight().getType());
    if ((!format && !isWeightType(weightType.getElementType())) ||
        (bias && !isWeightType(getElementTypeOrSelf(bias.getType()))))
      return rewriter.notifyMatchFailure(op, "weight type not supported");
    if (!weightType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "weight shape is not static");

    Value result =
        allocateResult(rewriter, loc, resultType,
                       getDynamicSizes(rewriter, loc, adaptor.getX()));
    ProjectionOperands operands;
    operands.x = viewAsRows(rewriter, loc, adaptor.getX());
    operands.weight = adaptor.getWeight();
    operands.weightFormat = format;
    operands.bias = bias;
    if (Value residual = getResidual(adaptor))
      operands.residual = viewAsRows(rewriter, loc, residual);
    operands.out = viewAsRows(rewriter, loc, result);

    auto rowsType = cast<MemRefType>(operands.x.getType());
    if (rowsType.getDimSize(0) == 1) {
      launchGemv(rewriter, loc, this->kernels, operands);
    } else {
      operands.x = withDynamicRows(rewriter, loc, operands.x);
      if (operands.residual)
        operands.residual = withDynamicRows(rewriter, loc, operands.residual);
      operands.out = withDynamicRows(rewriter, loc, operands.out);
      if (!format && weightType.getElementType().isF32())
        launchSimtGemm(rewriter, loc, this->kernels, operands);
      else
        launchMmaGemm(rewriter, loc, this->kernels, operands);
    }
    if (std::optional<double> cap = getSoftcap(op))
      emitSoftcapInPlace(rewriter, loc, this->kernels, result, *cap);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The fused norm of a one-row projection kernel, or none; fails on a norm
/// weight of an unsupported type.
FailureOr<GemvNorm> getGemvNorm(Value normWeight,
                                std::optional<APFloat> eps) {
  if (!normWeight)
    return GemvNorm();
  if (!isWeightType(getElementTypeOrSelf(normWeight.getType())))
    return failure();
  return GemvNorm{normWeight, eps->convertToDouble()};
}

/// True when x is a buffer of f32 activations.
bool isF32Buffer(Value x) {
  auto type = dyn_cast<MemRefType>(x.getType());
  return type && type.getElementType().isF32();
}

/// llm.multi_linear of one row → one multi-output GEMV (prefills are
/// decomposed before the conversion).
struct MultiLinearLowering : KernelPattern<llm::MultiLinearOp> {
  using KernelPattern::KernelPattern;

  LogicalResult
  matchAndRewrite(llm::MultiLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!isGemvFusedProjection(op) || !isF32Buffer(adaptor.getX()))
      return rewriter.notifyMatchFailure(op, "not one row of f32");
    FailureOr<GemvNorm> norm =
        getGemvNorm(adaptor.getNormWeight(), op.getNormEps());
    if (failed(norm))
      return rewriter.notifyMatchFailure(op, "norm weight type");
    Value x = viewAsRows(rewriter, loc, adaptor.getX());
    SmallVector<ProjectionOperands> outputs;
    SmallVector<Value> results;
    for (auto [i, weight] : llvm::enumerate(adaptor.getWeights())) {
      llm::BlockQuantType format =
          llm::getBlockQuantElementType(op.getWeights()[i].getType());
      auto resultType = dyn_cast_or_null<MemRefType>(
          getTypeConverter()->convertType(op.getResult(i).getType()));
      auto weightType = dyn_cast<MemRefType>(weight.getType());
      Value bias =
          adaptor.getBiases().empty() ? Value() : adaptor.getBiases()[i];
      if (!resultType || !resultType.getElementType().isF32() ||
          !weightType || !weightType.hasStaticShape() ||
          (!format && !isWeightType(weightType.getElementType())) ||
          (bias && !isWeightType(getElementTypeOrSelf(bias.getType()))))
        return rewriter.notifyMatchFailure(op, "operand types");
      results.push_back(allocateResult(rewriter, loc, resultType, {}));
      ProjectionOperands output;
      output.x = x;
      output.weight = weight;
      output.weightFormat = format;
      output.bias = bias;
      output.out = viewAsRows(rewriter, loc, results.back());
      outputs.push_back(output);
    }
    launchMultiGemv(rewriter, loc, kernels, *norm, outputs);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// llm.glu_linear of one row → one gated GEMV.
struct GLULinearLowering : KernelPattern<llm::GLULinearOp> {
  using KernelPattern::KernelPattern;

  LogicalResult
  matchAndRewrite(llm::GLULinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    auto gateType = dyn_cast<MemRefType>(adaptor.getGateWeight().getType());
    auto upType = dyn_cast<MemRefType>(adaptor.getUpWeight().getType());
    if (!isGemvFusedProjection(op) || !isF32Buffer(adaptor.getX()) ||
        !resultType || !resultType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not one row of f32");
    llm::BlockQuantType format =
        llm::getBlockQuantElementType(op.getGateWeight().getType());
    if (!gateType || !upType || !gateType.hasStaticShape() ||
        (!format && !isWeightType(gateType.getElementType())))
      return rewriter.notifyMatchFailure(op, "weight types");
    FailureOr<GemvNorm> norm =
        getGemvNorm(adaptor.getNormWeight(), op.getNormEps());
    if (failed(norm))
      return rewriter.notifyMatchFailure(op, "norm weight type");
    Value result = allocateResult(rewriter, loc, resultType, {});
    launchGatedGemv(rewriter, loc, kernels, *norm,
                    viewAsRows(rewriter, loc, adaptor.getX()),
                    adaptor.getGateWeight(), adaptor.getUpWeight(), format,
                    op.getActivation(), viewAsRows(rewriter, loc, result));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

bool llmc::cuda::isGemvFusedProjection(Operation *op) {
  if (!isa<llm::MultiLinearOp, llm::GLULinearOp>(op))
    return false;
  // A tensor before the conversion, possibly its buffer during it.
  auto x = cast<ShapedType>(op->getOperand(0).getType());
  if (llvm::any_of(x.getShape().drop_back(),
                   [](int64_t extent) { return extent != 1; }))
    return false;
  auto glu = dyn_cast<llm::GLULinearOp>(op);
  return !glu || glu.getGateWeight().getType() == glu.getUpWeight().getType();
}

void llmc::cuda::populateProjectionKernelPatterns(TypeConverter &converter,
                                                  RewritePatternSet &patterns,
                                                  KernelModule &kernels) {
  patterns.add<ProjectionLowering<llm::LinearOp>,
               ProjectionLowering<llm::LogitsOp>, MultiLinearLowering,
               GLULinearLowering>(
      converter, patterns.getContext(), kernels);
}
