// The llm-decompose-fused pass: fused projections back into the ops they fuse.
#include "passes/Passes.h"

#include "dialect/LLMOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace llmc {
#define GEN_PASS_DEF_LLMDECOMPOSEFUSED
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// The input a fused projection multiplies: x, or llm.rms_norm(x) built
/// before `op` when it carries a norm.
template <typename OpTy>
Value buildProjectionInput(PatternRewriter &rewriter, OpTy op) {
  if (!op.getNormWeight())
    return op.getX();
  return llm::RMSNormOp::create(rewriter, op.getLoc(), op.getX().getType(),
                                op.getX(), op.getNormWeight(),
                                op.getNormEpsAttr());
}

/// A base that applies `decompose` only to the ops `shouldDecompose`
/// accepts.
template <typename OpTy> struct DecomposePattern : OpRewritePattern<OpTy> {
  DecomposePattern(MLIRContext *context,
                   std::function<bool(Operation *)> shouldDecompose)
      : OpRewritePattern<OpTy>(context),
        shouldDecompose(std::move(shouldDecompose)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    if (shouldDecompose && !shouldDecompose(op))
      return rewriter.notifyMatchFailure(op, "not selected");
    return decompose(op, rewriter);
  }

  /// Rewrites `op` into its parts, or fails when it has nothing to split.
  virtual LogicalResult decompose(OpTy op, PatternRewriter &rewriter) const = 0;

  std::function<bool(Operation *)> shouldDecompose;
};

/// llm.multi_linear → [llm.rms_norm] + one llm.linear per weight.
struct DecomposeMultiLinear : DecomposePattern<llm::MultiLinearOp> {
  using DecomposePattern::DecomposePattern;

  LogicalResult decompose(llm::MultiLinearOp op,
                          PatternRewriter &rewriter) const override {
    Value input = buildProjectionInput(rewriter, op);
    SmallVector<Value> results;
    for (auto [i, weight] : llvm::enumerate(op.getWeights())) {
      Value bias = op.getBiases().empty() ? Value() : op.getBiases()[i];
      results.push_back(llm::LinearOp::create(
          rewriter, op.getLoc(), op.getResult(i).getType(), input, weight,
          bias, /*residual=*/Value()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// llm.glu_linear → [llm.rms_norm] + two llm.linear + llm.glu.
struct DecomposeGLULinear : DecomposePattern<llm::GLULinearOp> {
  using DecomposePattern::DecomposePattern;

  LogicalResult decompose(llm::GLULinearOp op,
                          PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    Value input = buildProjectionInput(rewriter, op);
    Value gate = llm::LinearOp::create(rewriter, loc, type, input,
                                       op.getGateWeight(), Value(), Value());
    Value up = llm::LinearOp::create(rewriter, loc, type, input,
                                     op.getUpWeight(), Value(), Value());
    rewriter.replaceOpWithNewOp<llm::GLUOp>(op, type, op.getActivation(), gate,
                                            up);
    return success();
  }
};

/// llm.linear ... residual %r → llm.linear + llm.add %r, ... (the operand
/// order of the graph's residual connections; f32 addition commutes
/// exactly, so either order gives the same bits).
struct DecomposeResidualLinear : DecomposePattern<llm::LinearOp> {
  using DecomposePattern::DecomposePattern;

  LogicalResult decompose(llm::LinearOp op,
                          PatternRewriter &rewriter) const override {
    if (!op.getResidual())
      return rewriter.notifyMatchFailure(op, "no residual");
    Value projection = llm::LinearOp::create(
        rewriter, op.getLoc(), op.getType(), op.getX(), op.getWeight(),
        op.getBias(), /*residual=*/Value());
    rewriter.replaceOpWithNewOp<llm::AddOp>(op, op.getType(),
                                            op.getResidual(), projection);
    return success();
  }
};

/// llm.rope_append → llm.rope of q and of the keys, llm.kv_append (which
/// rounds the keys and values to the cache's element type as the fused op
/// did).
struct DecomposeRopeAppend : DecomposePattern<llm::RopeAppendOp> {
  using DecomposePattern::DecomposePattern;

  LogicalResult decompose(llm::RopeAppendOp op,
                          PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto rope = [&](Value x) -> Value {
      return llm::RopeOp::create(rewriter, loc, x.getType(), x,
                                 op.getPositions(), op.getStyleAttr(),
                                 op.getThetaAttr(), op.getRotaryDimAttr(),
                                 op.getScalingAttr());
    };
    Value rotatedQ = rope(op.getQ());
    Value cache = llm::KVAppendOp::create(
        rewriter, loc, op.getCache().getType(), op.getCache(),
        rope(op.getKeys()), op.getValues(),
        op.getPositions(), op.getLayerIndex(), op.getPageTable(),
        op.getLayerAttr());
    rewriter.replaceOp(op, {rotatedQ, cache});
    return success();
  }
};

struct LLMDecomposeFusedPass
    : public llmc::impl::LLMDecomposeFusedBase<LLMDecomposeFusedPass> {
  void runOnOperation() override {
    if (failed(llmc::decomposeFusedOps(getOperation())))
      signalPassFailure();
  }
};

} // namespace

void llmc::populateDecomposeFusedPatterns(
    RewritePatternSet &patterns,
    std::function<bool(Operation *)> shouldDecompose) {
  patterns.add<DecomposeMultiLinear, DecomposeGLULinear,
               DecomposeResidualLinear, DecomposeRopeAppend>(patterns.getContext(),
                                        shouldDecompose);
}

LogicalResult llmc::applyLocalRewrites(Operation *root,
                                       RewritePatternSet &&patterns) {
  // Only the matched ops change: no folding, no region simplification.
  GreedyRewriteConfig config;
  config.enableFolding(false);
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return applyPatternsGreedily(root, std::move(patterns), config);
}

LogicalResult
llmc::decomposeFusedOps(Operation *root,
                        std::function<bool(Operation *)> shouldDecompose) {
  RewritePatternSet patterns(root->getContext());
  populateDecomposeFusedPatterns(patterns, std::move(shouldDecompose));
  return applyLocalRewrites(root, std::move(patterns));
}
