// The llm-fuse-sibling-linears pass: projections of one input into llm.glu_linear and llm.multi_linear.
#include "passes/Passes.h"

#include "dialect/LLMOps.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/MapVector.h"

namespace llmc {
#define GEN_PASS_DEF_LLMFUSESIBLINGLINEARS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// A projection a fused op can take over: plain (no residual), and used
/// only by `user` when `user` is given.
llm::LinearOp getFusableLinear(Value value, Operation *user) {
  auto linear = value.getDefiningOp<llm::LinearOp>();
  if (!linear || linear.getResidual())
    return nullptr;
  if (user && !llvm::all_of(linear->getUsers(),
                            [&](Operation *u) { return u == user; }))
    return nullptr;
  return linear;
}

/// llm.glu act (linear x, Wg), (linear x, Wu) → llm.glu_linear act x, Wg, Wu.
void fuseGatedUnits(IRRewriter &rewriter, Operation *root) {
  SmallVector<llm::GLUOp> units;
  root->walk([&](llm::GLUOp glu) { units.push_back(glu); });
  for (llm::GLUOp glu : units) {
    llm::LinearOp gate = getFusableLinear(glu.getGate(), glu);
    llm::LinearOp up = getFusableLinear(glu.getUp(), glu);
    if (!gate || !up || gate == up || gate.getX() != up.getX() ||
        gate.getBias() || up.getBias() ||
        gate.getWeight().getType() != up.getWeight().getType() ||
        gate.getType() != glu.getType())
      continue;
    rewriter.setInsertionPoint(glu);
    rewriter.replaceOpWithNewOp<llm::GLULinearOp>(
        glu, glu.getType(), glu.getActivation(), gate.getX(),
        /*norm_weight=*/Value(), gate.getWeight(), up.getWeight(),
        /*norm_eps=*/FloatAttr());
    rewriter.eraseOp(gate);
    rewriter.eraseOp(up);
  }
}

/// One llm.multi_linear for `group` (in block order, ≥ 2 projections of one
/// input), at the first projection, when the others' operands are defined
/// there.
void fuseGroup(IRRewriter &rewriter, DominanceInfo &dominance,
               ArrayRef<llm::LinearOp> group) {
  llm::LinearOp first = group.front();
  for (llm::LinearOp linear : group.drop_front())
    for (Value operand : linear->getOperands())
      if (!dominance.properlyDominates(operand, first))
        return;
  SmallVector<Value> weights, biases;
  SmallVector<Type> types;
  for (llm::LinearOp linear : group) {
    weights.push_back(linear.getWeight());
    if (linear.getBias())
      biases.push_back(linear.getBias());
    types.push_back(linear.getType());
  }
  rewriter.setInsertionPoint(first);
  auto fused = llm::MultiLinearOp::create(
      rewriter, first.getLoc(), types, first.getX(), /*norm_weight=*/Value(),
      weights, biases, /*norm_eps=*/FloatAttr());
  for (auto [linear, result] : llvm::zip(group, fused.getResults()))
    rewriter.replaceOp(linear, result);
}

/// Groups the remaining plain projections by (block, input, has bias), in
/// block order, and fuses each group of two or more.
void fuseSiblings(IRRewriter &rewriter, Operation *root) {
  // (block, input, has a bias); unsigned because DenseMapInfo has no bool.
  using Key = std::tuple<Block *, Value, unsigned>;
  llvm::MapVector<Key, SmallVector<llm::LinearOp>> groups;
  root->walk([&](llm::LinearOp linear) {
    if (getFusableLinear(linear.getResult(), /*user=*/nullptr))
      groups[{linear->getBlock(), linear.getX(),
              linear.getBias() ? 1u : 0u}]
          .push_back(linear);
  });
  DominanceInfo dominance(root);
  for (auto &[key, group] : groups)
    if (group.size() >= 2)
      fuseGroup(rewriter, dominance, group);
}

struct LLMFuseSiblingLinearsPass
    : public llmc::impl::LLMFuseSiblingLinearsBase<LLMFuseSiblingLinearsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // The gated units first: their gate and up projections would otherwise
    // be merged as plain siblings.
    fuseGatedUnits(rewriter, getOperation());
    fuseSiblings(rewriter, getOperation());
  }
};

} // namespace
