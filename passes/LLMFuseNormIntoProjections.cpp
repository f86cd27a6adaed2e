// The llm-fuse-norm-into-projections pass: an RMSNorm into the fused projections that read it.
#include "passes/Passes.h"

#include "dialect/LLMOps.h"

#include "mlir/IR/PatternMatch.h"

namespace llmc {
#define GEN_PASS_DEF_LLMFUSENORMINTOPROJECTIONS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// True when `use` is the input (operand 0) of a fused projection that
/// carries no norm yet.
bool canTakeNorm(OpOperand &use) {
  if (use.getOperandNumber() != 0)
    return false;
  Operation *user = use.getOwner();
  if (auto multi = dyn_cast<llm::MultiLinearOp>(user))
    return !multi.getNormWeight();
  if (auto glu = dyn_cast<llm::GLULinearOp>(user))
    return !glu.getNormWeight();
  return false;
}

/// Rebuilds `user` with x = the norm's input and the norm's weight and eps.
void moveNormInto(IRRewriter &rewriter, Operation *user, llm::RMSNormOp norm) {
  rewriter.setInsertionPoint(user);
  Value x = norm.getX(), weight = norm.getWeight();
  FloatAttr eps = norm.getEpsAttr();
  if (auto multi = dyn_cast<llm::MultiLinearOp>(user)) {
    rewriter.replaceOpWithNewOp<llm::MultiLinearOp>(
        multi, multi.getResultTypes(), x, weight, multi.getWeights(),
        multi.getBiases(), eps);
    return;
  }
  auto glu = cast<llm::GLULinearOp>(user);
  rewriter.replaceOpWithNewOp<llm::GLULinearOp>(
      glu, glu.getType(), glu.getActivation(), x, weight, glu.getGateWeight(),
      glu.getUpWeight(), eps);
}

struct LLMFuseNormIntoProjectionsPass
    : public llmc::impl::LLMFuseNormIntoProjectionsBase<
          LLMFuseNormIntoProjectionsPass> {
  void runOnOperation() override {
    SmallVector<llm::RMSNormOp> norms;
    getOperation()->walk([&](llm::RMSNormOp norm) {
      // The fused projections have no weight offset: Gemma's (1 + w) norm
      // stays a norm kernel of its own.
      if (!norm.getWeightOffset().isZero())
        return;
      Value result = norm.getResult();
      if (!result.use_empty() && llvm::all_of(result.getUses(), canTakeNorm))
        norms.push_back(norm);
    });
    IRRewriter rewriter(&getContext());
    for (llm::RMSNormOp norm : norms) {
      SmallVector<Operation *> users(norm->getUsers());
      for (Operation *user : users)
        moveNormInto(rewriter, user, norm);
      rewriter.eraseOp(norm);
    }
  }
};

} // namespace
