// The llm-lower-to-cuda pass: combines the per-family CUDA kernel patterns.
#include "passes/Passes.h"
#include "passes/WeightLayout.h"

#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace llmc {
#define GEN_PASS_DEF_LLMLOWERTOCUDA
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// The vocabulary size of the model's logits (the last extent of
/// @decode's first result), for the sampling kernels; 0 when there is none.
int64_t getVocabSize(ModuleOp module) {
  auto decode = module.lookupSymbol<func::FuncOp>("decode");
  if (!decode || decode.getNumResults() == 0)
    return 0;
  auto logits = dyn_cast<RankedTensorType>(decode.getResultTypes()[0]);
  if (!logits || logits.isDynamicDim(logits.getRank() - 1))
    return 0;
  return logits.getShape().back();
}

/// The fused projections the CUDA lowering decomposes: those the one-row
/// GEMVs do not take.
bool needsDecomposition(Operation *op) {
  return isa<llm::MultiLinearOp, llm::GLULinearOp>(op) &&
         !llmc::cuda::isGemvFusedProjection(op);
}

/// True for the ops whose CUDA kernels decode block-quantized weights: the
/// projections (GEMV and GEMM) and the embedding gather; and for calls,
/// which pass the weight to a function whose argument is checked in turn
/// (the model's layer functions).
bool readsBlockWeights(Operation *op) {
  return isa<llm::LinearOp, llm::LogitsOp, llm::MultiLinearOp,
             llm::GLULinearOp, llm::EmbeddingOp, func::CallOp>(op);
}

/// A block-quantized weight reaching any other op (a norm weight, say,
/// which the dialect does not forbid) is an error naming it and the op.
LogicalResult verifyBlockWeightUsers(ModuleOp module) {
  LogicalResult result = success();
  module.walk([&](func::FuncOp func) {
    for (BlockArgument argument : func.getArguments()) {
      llm::BlockQuantType block =
          llm::getBlockQuantElementType(argument.getType());
      if (!block)
        continue;
      for (Operation *user : argument.getUsers()) {
        if (readsBlockWeights(user))
          continue;
        auto name = func.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                      "llm.weight");
        std::string weight =
            name ? name.str()
                 : "#" + std::to_string(argument.getArgNumber());
        user->emitError() << "the CUDA kernels decode block-quantized "
                             "weights in projections and the embedding only; "
                             "weight "
                          << weight << " (" << argument.getType()
                          << ") is used by '" << user->getName()
                          << "' (dequantize it at load: --weight-type=f16)";
        result = failure();
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return result;
}

struct LLMLowerToCUDAPass
    : public llmc::impl::LLMLowerToCUDABase<LLMLowerToCUDAPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyBlockWeightUsers(module)) ||
        failed(llmc::verifyWeightLayouts(
            module,
            [](Type element) {
              auto block = dyn_cast<llm::BlockQuantType>(element);
              return block && block.getPlanar();
            },
            "the CUDA kernels read planar blocks (llm-cuda-planar-weights) "
            "and float rows")) ||
        failed(llmc::cuda::verifyStoredKVViews(module)) ||
        failed(llmc::decomposeFusedOps(module, needsDecomposition)))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    int64_t vocabSize = getVocabSize(module);
    llmc::cuda::KernelModule kernels(module);

    TypeConverter converter;
    llmc::cuda::addTypeConversions(converter);
    RewritePatternSet patterns(context);
    llmc::cuda::populateTensorViewPatterns(converter, patterns);
    llmc::cuda::populateElementwiseKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateNormKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateEmbeddingKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateProjectionKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateHeadLinearKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateColumnCopyKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateRopeKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateRopeAppendKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateAttentionKernelPatterns(converter, patterns, kernels);
    llmc::cuda::populateKVCacheKernelPatterns(converter, patterns, kernels);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*context);
    target.addIllegalDialect<llm::LLMDialect, tensor::TensorDialect>();
    target.addLegalDialect<memref::MemRefDialect, gpu::GPUDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect>(
        [](Operation *op) { return !llmc::cuda::isTensorArithOp(op); });
    target.markOpRecursivelyLegal<gpu::GPUModuleOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    if (vocabSize > 0)
      llmc::cuda::addSamplingKernels(kernels, vocabSize);
  }
};

} // namespace
