// Lowers llm.linear / llm.logits to the threaded vector kernels: a GEMV for
// one row (decode), a register-tiled GEMM for more (prefill).
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMOps.h"

using namespace mlir;

namespace {

/// Decode: weight rows per tile. Two rows share each loaded x vector and
/// keep two FMA chains in flight (measured 92-94% of bandwidth); more rows
/// add registers without saving weight traffic, which dominates.
constexpr llmc::ProjectionTile kGemvTile = {/*xRows=*/1, /*weightRows=*/2};

/// Prefill: tokens × weight rows per tile. 8 vector<16xf32> accumulators
/// plus 4 x and 2 weight vectors fit AVX-512's 32 registers, and every
/// loaded vector feeds 2-4 FMAs, so the loop is compute- rather than
/// load-bound.
constexpr llmc::ProjectionTile kGemmTile = {/*xRows=*/4, /*weightRows=*/2};

/// Above the generic contraction pattern (benefit 1), which stays the
/// fallback for the types the kernel does not take.
constexpr unsigned kVectorProjectionBenefit = 2;

Value getBias(llm::LinearOp op, llm::LinearOp::Adaptor adaptor) {
  return adaptor.getBias();
}
Value getBias(llm::LogitsOp, llm::LogitsOp::Adaptor) { return Value(); }

/// x[l..., K] · W[N, K]ᵀ (+ bias). A statically single row is a
/// matrix-vector product bound by reading W once; any other row count (static
/// or dynamic) is tiled on runtime bounds, so it needs no peeling: rows left
/// below a tile go through 1-row tiles. f32 weights are loaded as
/// vector<16xf32>; bf16/f16 ones widened with one arith.extf per vector.
template <typename OpTy>
struct ProjectionToVector : OpConversionPattern<OpTy> {
  ProjectionToVector(TypeConverter &converter, MLIRContext *context,
                     int64_t minParallelWeightElements)
      : OpConversionPattern<OpTy>(converter, context,
                                  kVectorProjectionBenefit),
        minParallelWeightElements(minParallelWeightElements) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto xType = cast<RankedTensorType>(adaptor.getX().getType());
    auto weightType = cast<RankedTensorType>(adaptor.getWeight().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Value bias = getBias(op, adaptor);
    if (!llmc::isVectorProjectionSupported(
            xType, weightType, bias ? bias.getType() : Type(), resultType))
      return rewriter.notifyMatchFailure(op, "element types not supported");
    llmc::ProjectionTile tile =
        llmc::getStaticRowCount(xType) == 1 ? kGemvTile : kGemmTile;
    rewriter.replaceOp(op, llmc::createVectorProjection(
                               rewriter, op.getLoc(), adaptor.getX(),
                               adaptor.getWeight(), bias, resultType, tile,
                               minParallelWeightElements));
    return success();
  }

  int64_t minParallelWeightElements;
};

} // namespace

void llmc::populateProjectionToVectorPatterns(
    TypeConverter &converter, RewritePatternSet &patterns,
    int64_t minParallelWeightElements) {
  patterns.add<ProjectionToVector<llm::LinearOp>,
               ProjectionToVector<llm::LogitsOp>>(
      converter, patterns.getContext(), minParallelWeightElements);
}
