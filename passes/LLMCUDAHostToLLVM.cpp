// The llm-cuda-host-to-llvm pass: host code to LLVM, device work through the runtime's host API table.
#include "passes/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace llmc {
#define GEN_PASS_DEF_LLMCUDAHOSTTOLLVM
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// Fields of llmc_cuda_host_api, in declaration order (cuda_host_api.h;
/// `release` came with version 2, after `ctx`).
enum HostAPIField : int32_t {
  kAlloc = 0,
  kLaunch = 1,
  kCopy = 2,
  kContext = 3,
  kRelease = 4
};
constexpr int32_t kHostAPIFieldCount = 5;

/// Emits loads from the table the runtime stores in the module's
/// `<model>_cuda_host_api` global.
class HostAPI {
public:
  HostAPI(ModuleOp module, StringRef globalName)
      : module(module), globalName(globalName.str()) {}

  /// Declares the global (a null pointer until the runtime sets it).
  void declareGlobal() {
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    auto ptr = LLVM::LLVMPointerType::get(module.getContext());
    auto global = LLVM::GlobalOp::create(builder, module.getLoc(), ptr,
                                         /*isConstant=*/false,
                                         LLVM::Linkage::External, globalName,
                                         Attribute());
    Block *init = builder.createBlock(&global.getInitializerRegion());
    builder.setInsertionPointToStart(init);
    Value null = LLVM::ZeroOp::create(builder, module.getLoc(), ptr);
    LLVM::ReturnOp::create(builder, module.getLoc(), null);
  }

  /// Calls field `field` (a function pointer of type `type`) with the
  /// table's context pointer followed by `args`.
  Value call(OpBuilder &builder, Location loc, HostAPIField field,
             LLVM::LLVMFunctionType type, ValueRange args) {
    MLIRContext *context = builder.getContext();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto tableType = LLVM::LLVMStructType::getLiteral(
        context, SmallVector<Type>(kHostAPIFieldCount, ptr));
    Value global = LLVM::AddressOfOp::create(builder, loc, ptr, globalName);
    Value table = LLVM::LoadOp::create(builder, loc, ptr, global);
    auto loadField = [&](int32_t index) -> Value {
      Value slot = LLVM::GEPOp::create(builder, loc, ptr, tableType, table,
                                       ArrayRef<LLVM::GEPArg>{0, index});
      return LLVM::LoadOp::create(builder, loc, ptr, slot);
    };
    Value function = loadField(field);
    SmallVector<Value> operands = {function, loadField(kContext)};
    operands.append(args.begin(), args.end());
    auto callOp = LLVM::CallOp::create(builder, loc, type, operands);
    return type.getReturnType() == LLVM::LLVMVoidType::get(context)
               ? Value()
               : callOp.getResult();
  }

  /// The address of a NUL-terminated constant string (one global per
  /// distinct kernel name).
  Value kernelName(OpBuilder &builder, Location loc, StringRef name) {
    std::string symbol = ("__llmc_kernel_name_" + name).str();
    auto ptr = LLVM::LLVMPointerType::get(builder.getContext());
    if (!module.lookupSymbol(symbol)) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(module.getBody());
      std::string bytes = name.str();
      bytes.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), bytes.size());
      LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                             LLVM::Linkage::Internal, symbol,
                             builder.getStringAttr(bytes));
    }
    return LLVM::AddressOfOp::create(builder, loc, ptr, symbol);
  }

private:
  ModuleOp module;
  std::string globalName;
};

/// gpu.launch_func → launch(ctx, name, gx, gy, gz, bx, by, bz, 0, params).
struct LaunchLowering : ConvertOpToLLVMPattern<gpu::LaunchFuncOp> {
  LaunchLowering(const LLVMTypeConverter &converter, HostAPI &api)
      : ConvertOpToLLVMPattern(converter), api(api) {}

  LogicalResult
  matchAndRewrite(gpu::LaunchFuncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getAsyncToken() || !op.getAsyncDependencies().empty())
      return rewriter.notifyMatchFailure(op, "async (rejected by the pass)");
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    auto ptr = LLVM::LLVMPointerType::get(context);
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    // Memref descriptors unpacked field by field: the kernel's parameters
    // after convert-gpu-to-nvvm.
    SmallVector<Value, 4> params = getTypeConverter()->promoteOperands(
        loc, op.getKernelOperands(), adaptor.getKernelOperands(), rewriter);
    Value one = LLVM::ConstantOp::create(rewriter, loc, i64,
                                         rewriter.getI64IntegerAttr(1));
    Value count = LLVM::ConstantOp::create(
        rewriter, loc, i64, rewriter.getI64IntegerAttr(params.size()));
    Value array = LLVM::AllocaOp::create(rewriter, loc, ptr, ptr, count);
    for (auto [i, param] : llvm::enumerate(params)) {
      Value slot = LLVM::AllocaOp::create(rewriter, loc, ptr, param.getType(), one);
      LLVM::StoreOp::create(rewriter, loc, param, slot);
      Value entry = LLVM::GEPOp::create(rewriter, loc, ptr, ptr, array,
                                        ArrayRef<LLVM::GEPArg>{int32_t(i)});
      LLVM::StoreOp::create(rewriter, loc, slot, entry);
    }
    auto toI32 = [&](Value index) -> Value {
      return LLVM::TruncOp::create(rewriter, loc, i32, index);
    };
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i32,
                                          rewriter.getI32IntegerAttr(0));
    Value shared = adaptor.getDynamicSharedMemorySize()
                       ? adaptor.getDynamicSharedMemorySize()
                       : zero;
    SmallVector<Value> args = {
        api.kernelName(rewriter, loc, op.getKernelName().getValue()),
        toI32(adaptor.getGridSizeX()),  toI32(adaptor.getGridSizeY()),
        toI32(adaptor.getGridSizeZ()),  toI32(adaptor.getBlockSizeX()),
        toI32(adaptor.getBlockSizeY()), toI32(adaptor.getBlockSizeZ()),
        shared,                         array};
    auto type = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(context),
        {ptr, ptr, i32, i32, i32, i32, i32, i32, i32, ptr});
    api.call(rewriter, loc, kLaunch, type, args);
    rewriter.eraseOp(op);
    return success();
  }
  HostAPI &api;
};

/// memref.alloc → alloc(ctx, bytes): per-call device scratch.
struct AllocLowering : ConvertOpToLLVMPattern<memref::AllocOp> {
  AllocLowering(const LLVMTypeConverter &converter, HostAPI &api)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2), api(api) {}

  LogicalResult
  matchAndRewrite(memref::AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    if (!isConvertibleAndHasIdentityMaps(type))
      return rewriter.notifyMatchFailure(op, "non-identity layout");
    Location loc = op.getLoc();
    SmallVector<Value, 4> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(loc, type, adaptor.getDynamicSizes(), rewriter,
                             sizes, strides, bytes);
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto fnType = LLVM::LLVMFunctionType::get(ptr, {ptr, bytes.getType()});
    Value buffer = api.call(rewriter, loc, kAlloc, fnType, {bytes});
    Value descriptor = createMemRefDescriptor(loc, type, buffer, buffer, sizes,
                                              strides, rewriter);
    rewriter.replaceOp(op, descriptor);
    return success();
  }
  HostAPI &api;
};

/// True when `memref` is ranked and its elements are one dense run in row-major order
/// from its offset: an identity layout, or strides (the subviews of whole
/// rows that tensor.extract_slice lowers to) that are the row-major ones of
/// its sizes, ignoring dimensions of size 1.
bool isDenseRowMajor(Type memref) {
  auto type = dyn_cast<MemRefType>(memref);
  if (!type)
    return false;
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  // The stride each dimension must have, innermost first; unknown (dynamic)
  // once a dynamic extent is passed, after which only unit dimensions fit.
  int64_t expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (type.getDimSize(d) == 1)
      continue;
    if (ShapedType::isDynamic(expected) || strides[d] != expected)
      return false;
    expected = type.isDynamicDim(d) ? ShapedType::kDynamic
                                    : expected * type.getDimSize(d);
  }
  return true;
}

/// The host ops the runtime's host API can carry out as they stand, one error
/// for the first it cannot: a launch with async tokens (the runtime launches
/// in program order on the session's one stream, so they would promise an
/// order it does not keep), or a device copy that is not one run of bytes
/// (it would otherwise fall to the generic memref lowering, which reads
/// device memory on the host). The kernels' own ops are not host ops.
LogicalResult verifyHostAPIOps(ModuleOp module) {
  WalkResult result = module.walk<WalkOrder::PreOrder>([](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
        launch &&
        (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())) {
      launch.emitOpError("is async; the runtime's host API launches in "
                         "program order on one stream, without async tokens");
      return WalkResult::interrupt();
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op);
        copy && !(isDenseRowMajor(copy.getSource().getType()) &&
                  isDenseRowMajor(copy.getTarget().getType()))) {
      copy.emitOpError("copies device buffers that are not dense row-major; "
                       "the host API copies one contiguous run of bytes");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// memref.copy between dense row-major device buffers → copy(ctx, dst, src,
/// bytes).
struct CopyLowering : ConvertOpToLLVMPattern<memref::CopyOp> {
  CopyLowering(const LLVMTypeConverter &converter, HostAPI &api)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2), api(api) {}

  LogicalResult
  matchAndRewrite(memref::CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto sourceType = cast<MemRefType>(op.getSource().getType());
    auto targetType = cast<MemRefType>(op.getTarget().getType());
    // The pass refused any other copy before converting.
    assert(isDenseRowMajor(sourceType) && isDenseRowMajor(targetType));
    Location loc = op.getLoc();
    MemRefDescriptor source(adaptor.getSource());
    MemRefDescriptor target(adaptor.getTarget());
    // Sizes come from the descriptor: the source may have dynamic extents.
    Value count = LLVM::ConstantOp::create(rewriter, loc, getIndexType(),
                                           rewriter.getIndexAttr(1));
    for (int64_t dim = 0; dim < sourceType.getRank(); ++dim)
      count = LLVM::MulOp::create(rewriter, loc, count,
                                  source.size(rewriter, loc, dim));
    Value elementBytes = getSizeInBytes(loc, sourceType.getElementType(), rewriter);
    Value bytes = LLVM::MulOp::create(rewriter, loc, count, elementBytes);
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto elementPtr = [&](MemRefDescriptor &d, MemRefType type) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, ptr,
                                 typeConverter->convertType(type.getElementType()),
                                 d.alignedPtr(rewriter, loc),
                                 d.offset(rewriter, loc));
    };
    auto fnType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(rewriter.getContext()),
        {ptr, ptr, ptr, bytes.getType()});
    api.call(rewriter, loc, kCopy, fnType,
             {elementPtr(target, targetType), elementPtr(source, sourceType),
              bytes});
    rewriter.eraseOp(op);
    return success();
  }
  HostAPI &api;
};

/// memref.dealloc → release(ctx, allocated pointer): the scratch block may
/// be handed out again later in the same call (llm-cuda-free-scratch puts
/// the deallocs after each buffer's last use).
struct DeallocLowering : ConvertOpToLLVMPattern<memref::DeallocOp> {
  DeallocLowering(const LLVMTypeConverter &converter, HostAPI &api)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2), api(api) {}
  LogicalResult
  matchAndRewrite(memref::DeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<MemRefType>(op.getMemref().getType()))
      return rewriter.notifyMatchFailure(op, "unranked memref");
    Location loc = op.getLoc();
    MemRefDescriptor descriptor(adaptor.getMemref());
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto fnType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(rewriter.getContext()), {ptr, ptr});
    api.call(rewriter, loc, kRelease, fnType,
             {descriptor.allocatedPtr(rewriter, loc)});
    rewriter.eraseOp(op);
    return success();
  }
  HostAPI &api;
};

struct LLMCUDAHostToLLVMPass
    : public llmc::impl::LLMCUDAHostToLLVMBase<LLMCUDAHostToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    auto name = module->getAttrOfType<StringAttr>("llm.model");
    std::string prefix =
        llmc::getModelSymbolPrefix(name ? name.getValue() : "model");
    if (failed(verifyHostAPIOps(module)))
      return signalPassFailure();
    HostAPI api(module, prefix + "_cuda_host_api");
    api.declareGlobal();

    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    patterns.add<LaunchLowering, AllocLowering, CopyLowering, DeallocLowering>(
        converter, api);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*context);
    target.addLegalOp<ModuleOp>();
    target.markOpRecursivelyLegal<gpu::GPUModuleOp>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
