// The llm-fuse-residual-add pass: a residual llm.add into its projection's epilogue.
#include "passes/Passes.h"

#include "dialect/LLMOps.h"

#include "mlir/IR/PatternMatch.h"

namespace llmc {
#define GEN_PASS_DEF_LLMFUSERESIDUALADD
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// llm.add %r, %p (or %p, %r) with %p = llm.linear used only here →
/// llm.linear ... residual %r.
struct FoldAddIntoLinear : OpRewritePattern<llm::AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(llm::AddOp add,
                                PatternRewriter &rewriter) const override {
    // The right operand first: the graph writes `add %residual, %branch`.
    for (auto [projection, residual] :
         {std::pair(add.getRhs(), add.getLhs()),
          std::pair(add.getLhs(), add.getRhs())}) {
      auto linear = projection.getDefiningOp<llm::LinearOp>();
      if (!linear || linear.getResidual() || !linear->hasOneUse() ||
          linear.getType() != add.getType())
        continue;
      rewriter.replaceOpWithNewOp<llm::LinearOp>(
          add, add.getType(), linear.getX(), linear.getWeight(),
          linear.getBias(), residual);
      rewriter.eraseOp(linear);
      return success();
    }
    return rewriter.notifyMatchFailure(add, "no single-use projection operand");
  }
};

struct LLMFuseResidualAddPass
    : public llmc::impl::LLMFuseResidualAddBase<LLMFuseResidualAddPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAddIntoLinear>(&getContext());
    if (failed(llmc::applyLocalRewrites(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
