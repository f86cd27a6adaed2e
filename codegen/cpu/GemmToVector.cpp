// Lowers multi-row (prefill) llm.linear / llm.logits to the threaded, register-tiled vector kernel.
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMOps.h"

using namespace mlir;

namespace {

/// Tokens × weight rows per tile: 8 vector<16xf32> accumulators plus 4 x and
/// 2 weight vectors fit AVX-512's 32 registers, and every loaded vector feeds
/// 2-4 FMAs, so the loop is compute- rather than load-bound.
constexpr int64_t kGemmXRows = 4;
constexpr int64_t kGemmWeightRows = 2;

/// Above the generic contraction pattern (benefit 1), which stays the
/// fallback for the types the kernel does not take.
constexpr unsigned kGemmBenefit = 2;

Value getBias(llm::LinearOp op, llm::LinearOp::Adaptor adaptor) {
  return adaptor.getBias();
}
Value getBias(llm::LogitsOp, llm::LogitsOp::Adaptor) { return Value(); }

/// x[l..., K] · W[N, K]ᵀ (+ bias) with a dynamic or static row count other
/// than 1. The row count needs no peeling: tiles are built directly on
/// runtime bounds, rows left below a tile go through 1-row tiles.
template <typename OpTy>
struct GemmToVector : OpConversionPattern<OpTy> {
  GemmToVector(TypeConverter &converter, MLIRContext *context,
               int64_t minParallelWeightElements)
      : OpConversionPattern<OpTy>(converter, context, kGemmBenefit),
        minParallelWeightElements(minParallelWeightElements) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto xType = cast<RankedTensorType>(adaptor.getX().getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Value bias = getBias(op, adaptor);
    if (llmc::getStaticRowCount(xType) == 1)
      return rewriter.notifyMatchFailure(op, "single row: the GEMV pattern");
    if (!llmc::isVectorProjectionSupported(
            xType, weightType, bias ? bias.getType() : Type(), resultType))
      return rewriter.notifyMatchFailure(op, "element types not supported");
    rewriter.replaceOp(op, llmc::createVectorProjection(
                               rewriter, op.getLoc(), adaptor.getX(),
                               adaptor.getWeight(), bias, resultType,
                               {kGemmXRows, kGemmWeightRows},
                               minParallelWeightElements));
    return success();
  }

  int64_t minParallelWeightElements;
};

} // namespace

void llmc::populateGemmToVectorPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        int64_t minParallelWeightElements) {
  patterns.add<GemmToVector<llm::LinearOp>, GemmToVector<llm::LogitsOp>>(
      converter, patterns.getContext(), minParallelWeightElements);
}
