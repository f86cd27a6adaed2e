// The llm-fuse-rope-append pass: the queries' and keys' RoPE and the cache append into llm.rope_append.
#include "passes/Passes.h"

#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

namespace llmc {
#define GEN_PASS_DEF_LLMFUSEROPEAPPEND
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// `value` without a single-use arith.truncf from f32 to `cacheType`, the
/// narrowing the graph inserts before appending to a bf16/f16 cache; null
/// when it has other uses. Returns `value` itself when there is no such
/// truncation.
Value stripNarrowing(Value value, Type cacheType,
                     SmallVectorImpl<Operation *> &erased) {
  auto truncate = value.getDefiningOp<arith::TruncFOp>();
  if (!truncate)
    return value;
  Value wide = truncate.getIn();
  if (!truncate->hasOneUse() || !getElementTypeOrSelf(wide).isF32() ||
      getElementTypeOrSelf(value) != cacheType)
    return Value();
  erased.push_back(truncate);
  return wide;
}

/// RoPE applications that rotate the same way.
bool sameRotation(llm::RopeOp a, llm::RopeOp b) {
  return a.getPositions() == b.getPositions() &&
         a.getStyle() == b.getStyle() && a.getTheta() == b.getTheta() &&
         a.getRotaryDim() == b.getRotaryDim() &&
         a.getScaling() == b.getScaling();
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
  Type cacheType =
      cast<llm::KVCacheType>(append.getCache().getType()).getValueType();
  // A cache whose values are its keys takes none: llm.rope_append, which
  // stores values apart, does not apply.
  if (!append.getValues())
    return;
  SmallVector<Operation *> erased;
  Value rotatedKeys = stripNarrowing(append.getKeys(), cacheType, erased);
  Value values = stripNarrowing(append.getValues(), cacheType, erased);
  if (!rotatedKeys || !values ||
      getElementTypeOrSelf(rotatedKeys) != getElementTypeOrSelf(values))
    return;
  auto keysRope = rotatedKeys.getDefiningOp<llm::RopeOp>();
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
  // The narrowing ops' only users were the append, then the key rotation's.
  for (Operation *op : erased)
    rewriter.eraseOp(op);
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
