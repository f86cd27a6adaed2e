// The llm-fuse-rope-append pass: the queries' and keys' RoPE and the cache append into llm.rope_append.
#include "passes/Passes.h"

#include "dialect/LLMOps.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

namespace llmc {
#define GEN_PASS_DEF_LLMFUSEROPEAPPEND
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// RoPE applications that rotate the same way.
bool sameRotation(llm::RopeOp a, llm::RopeOp b) {
  return a.getPositions() == b.getPositions() &&
         a.getStyle() == b.getStyle() && a.getTheta() == b.getTheta() &&
         a.getRotaryDim() == b.getRotaryDim() &&
         a.getScalingAttr() == b.getScalingAttr();
}

/// The queries' rotation for `keysRope`: another rotation in the block with
/// the same parameters whose input is defined before `append` and whose
/// uses all come after it; null when there is none.
llm::RopeOp findQueryRope(llm::RopeOp keysRope, llm::KVAppendOp append,
                          DominanceInfo &dominance) {
  for (Operation &op : *append->getBlock()) {
    auto rope = dyn_cast<llm::RopeOp>(&op);
    if (!rope || rope == keysRope || !sameRotation(rope, keysRope) ||
        !dominance.properlyDominates(rope.getX(), append))
      continue;
    if (llvm::all_of(rope->getUsers(), [&](Operation *user) {
          return dominance.properlyDominates(append.getOperation(), user);
        }))
      return rope;
  }
  return nullptr;
}

/// Rewrites `append` into llm.rope_append when its keys are rotated there.
void fuseAppend(IRRewriter &rewriter, DominanceInfo &dominance,
                llm::KVAppendOp append) {
  // A cache whose values are its keys takes none: llm.rope_append, which
  // stores values apart, does not apply.
  Value values = append.getValues();
  if (!values)
    return;
  auto keysRope = append.getKeys().getDefiningOp<llm::RopeOp>();
  if (!keysRope || !keysRope->hasOneUse() ||
      keysRope.getX().getType() != values.getType())
    return;
  llm::RopeOp queryRope = findQueryRope(keysRope, append, dominance);
  if (!queryRope)
    return;
  rewriter.setInsertionPoint(append);
  auto fused = llm::RopeAppendOp::create(
      rewriter, append.getLoc(), queryRope.getType(), append.getType(),
      append.getCache(), queryRope.getX(), keysRope.getX(), values,
      append.getPositions(), append.getLayerIndex(), append.getPageTable(),
      append.getLayerAttr(), keysRope.getStyleAttr(), keysRope.getThetaAttr(),
      keysRope.getRotaryDimAttr(), keysRope.getScalingAttr());
  rewriter.replaceAllUsesWith(queryRope.getResult(), fused.getRotatedQ());
  rewriter.replaceOp(append, fused.getResult());
  rewriter.eraseOp(keysRope);
  rewriter.eraseOp(queryRope);
}

struct LLMFuseRopeAppendPass
    : public llmc::impl::LLMFuseRopeAppendBase<LLMFuseRopeAppendPass> {
  void runOnOperation() override {
    SmallVector<llm::KVAppendOp> appends;
    getOperation()->walk(
        [&](llm::KVAppendOp append) { appends.push_back(append); });
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance(getOperation());
    for (llm::KVAppendOp append : appends)
      fuseAppend(rewriter, dominance, append);
  }
};

} // namespace
