// The llm-lower-to-linalg pass: combines the per-family CPU lowering patterns.
#include "passes/Passes.h"
#include "passes/WeightLayout.h"

#include "codegen/cpu/LLMToLinalg.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace llmc {
#define GEN_PASS_DEF_LLMLOWERTOLINALG
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// The CPU kernels of weights in interleaved float rows take f32, f16 or
/// bf16 inputs and store f32 sums (isVectorProjectionSupported): any other
/// projection on such a weight is an error naming its types.
LogicalResult verifyInterleavedFloatProjections(ModuleOp module) {
  WalkResult walk = module.walk([](Operation *op) {
    if (!isa<llm::LinearOp, llm::LogitsOp>(op) ||
        !llm::getInterleavedFloatElementType(op->getOperand(1).getType()))
      return WalkResult::advance();
    Type x = getElementTypeOrSelf(op->getOperand(0).getType());
    Type result = getElementTypeOrSelf(op->getResult(0).getType());
    if ((x.isF32() || x.isF16() || x.isBF16()) && result.isF32())
      return WalkResult::advance();
    op->emitOpError() << "reads float rows in interleaved groups, which the "
                         "CPU kernels multiply with f32, f16 or bf16 inputs "
                         "into f32 results; got "
                      << x << " inputs and " << result << " results";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

struct LLMLowerToLinalgPass
    : public llmc::impl::LLMLowerToLinalgBase<LLMLowerToLinalgPass> {
  using LLMLowerToLinalgBase::LLMLowerToLinalgBase;

  void runOnOperation() override {
    // The CPU kernels fuse element-wise work in linalg, not in the `llm`
    // ops: the fused projections go back to their parts.
    // A planar block weight (llm-cuda-planar-weights) is an error naming
    // its argument.
    if (failed(llmc::verifyWeightLayouts(
            getOperation(),
            [](Type element) {
              auto block = dyn_cast<llm::BlockQuantType>(element);
              return !block || !block.getPlanar();
            },
            "the CPU kernels read the file's rows or interleaved groups")) ||
        failed(verifyInterleavedFloatProjections(getOperation())) ||
        failed(llmc::decomposeFusedOps(getOperation())))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    llmc::addKVCacheTypeConversion(converter);
    llmc::addWeightStorageTypeConversion(converter);

    RewritePatternSet patterns(context);
    llmc::populateElementwiseToLinalgPatterns(converter, patterns);
    llmc::populateNormToLinalgPatterns(converter, patterns);
    llmc::populateProjectionToLinalgPatterns(converter, patterns);
    if (vectorProjections) {
      std::optional<llmc::Int8DotKind> int8DotKind =
          llmc::parseInt8DotKind(int8Dot);
      if (!int8DotKind) {
        getOperation().emitError("int8-dot must be none, avx2 or vnni, not '")
            << int8Dot << "'";
        return signalPassFailure();
      }
      llmc::populateProjectionToVectorPatterns(
          converter, patterns, parallelMinWeightElements,
          llmc::CPUVectorRegisters{vectorRegisterBits, vectorRegisters,
                                   floatGemmVectorBits},
          *int8DotKind, bf16Dot);
    }
    llmc::populateRopeToLinalgPatterns(converter, patterns);
    llmc::populateAttentionToLinalgPatterns(converter, patterns,
                                            parallelMinWeightElements);
    llmc::populateKVCacheToLinalgPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*context);
    target.addIllegalDialect<llm::LLMDialect>();
    target.addLegalDialect<
        arith::ArithDialect, bufferization::BufferizationDialect,
        linalg::LinalgDialect, math::MathDialect, memref::MemRefDialect,
        scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect>();
    // Lowered to one generic (ElementwiseToLinalg.cpp), not to copies into
    // strided views.
    target.addIllegalOp<tensor::ConcatOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });

    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
