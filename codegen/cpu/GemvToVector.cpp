// Lowers single-row (decode) llm.linear / llm.logits to the threaded vector GEMV kernel instead of a scalar contraction.
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMOps.h"

using namespace mlir;

namespace {

/// Weight rows per scf.parallel iteration: two rows share each loaded x
/// vector and keep two FMA chains in flight (measured 92-94% of bandwidth);
/// more rows add registers without saving weight traffic, which dominates.
constexpr int64_t kGemvWeightRows = 2;

/// Above the generic contraction pattern (benefit 1), which stays the
/// fallback for the types the kernel does not take.
constexpr unsigned kGemvBenefit = 2;

Value getBias(llm::LinearOp op, llm::LinearOp::Adaptor adaptor) {
  return adaptor.getBias();
}
Value getBias(llm::LogitsOp, llm::LogitsOp::Adaptor) { return Value(); }

/// x[1..., K] · W[N, K]ᵀ (+ bias): a matrix-vector product, bound by reading
/// W once. f32 weights are loaded as vector<16xf32>; bf16/f16 weights as
/// vector<16xbf16/f16> widened with one arith.extf per vector.
template <typename OpTy>
struct GemvToVector : OpConversionPattern<OpTy> {
  GemvToVector(TypeConverter &converter, MLIRContext *context,
               int64_t minParallelWeightElements)
      : OpConversionPattern<OpTy>(converter, context, kGemvBenefit),
        minParallelWeightElements(minParallelWeightElements) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto xType = cast<RankedTensorType>(adaptor.getX().getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Value bias = getBias(op, adaptor);
    if (llmc::getStaticRowCount(xType) != 1)
      return rewriter.notifyMatchFailure(op, "not a single-row projection");
    if (!llmc::isVectorProjectionSupported(
            xType, weightType, bias ? bias.getType() : Type(), resultType))
      return rewriter.notifyMatchFailure(op, "element types not supported");
    rewriter.replaceOp(op, llmc::createVectorProjection(
                               rewriter, op.getLoc(), adaptor.getX(),
                               adaptor.getWeight(), bias, resultType,
                               {/*xRows=*/1, kGemvWeightRows},
                               minParallelWeightElements));
    return success();
  }

  int64_t minParallelWeightElements;
};

} // namespace

void llmc::populateGemvToVectorPatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        int64_t minParallelWeightElements) {
  patterns.add<GemvToVector<llm::LinearOp>, GemvToVector<llm::LogitsOp>>(
      converter, patterns.getContext(), minParallelWeightElements);
}
