// Retyping weight arguments to a target's storage layout: which arguments may change, through calls, and the retype.
#include "passes/WeightLayout.h"

#include "dialect/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

llm::BlockQuantType llmc::getBlockRowsFormat(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 2 || !tensor.hasStaticShape())
    return {};
  auto block = dyn_cast<llm::BlockQuantType>(tensor.getElementType());
  if (!block || block.isInterleaved() || block.getPlanar())
    return {};
  return block;
}

bool llmc::isProjectionWeightUse(OpOperand &use) {
  return isa<llm::LinearOp, llm::LogitsOp, llm::MultiLinearOp,
             llm::GLULinearOp>(use.getOwner()) &&
         use.getOperandNumber() != 0;
}

void llmc::relayoutWeightArguments(
    ModuleOp module, llvm::function_ref<bool(Type)> isCandidate,
    llvm::function_ref<bool(OpOperand &)> isLayoutUse,
    llvm::function_ref<Type(Type)> retype) {
  SymbolTableCollection symbols;
  // Every candidate argument, then, until nothing changes, out with those
  // read by anything but a layout use or a call into a kept argument, and
  // with callee arguments that some call passes anything but a kept one.
  llvm::SetVector<BlockArgument> kept;
  module.walk([&](func::FuncOp function) {
    if (function.isExternal())
      return;
    for (BlockArgument argument : function.getArguments())
      if (isCandidate(argument.getType()))
        kept.insert(argument);
  });
  auto calleeArgument = [&](func::CallOp call,
                            unsigned operand) -> BlockArgument {
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || callee.isExternal())
      return BlockArgument();
    return callee.getArgument(operand);
  };
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<BlockArgument> dropped;
    for (BlockArgument argument : kept) {
      bool ok = llvm::all_of(argument.getUses(), [&](OpOperand &use) {
        if (isLayoutUse(use))
          return true;
        auto call = dyn_cast<func::CallOp>(use.getOwner());
        return call &&
               kept.contains(calleeArgument(call, use.getOperandNumber()));
      });
      if (!ok)
        dropped.push_back(argument);
    }
    module.walk([&](func::CallOp call) {
      for (OpOperand &operand : call->getOpOperands()) {
        BlockArgument callee = calleeArgument(call, operand.getOperandNumber());
        if (!callee || !kept.contains(callee))
          continue;
        auto passed = dyn_cast<BlockArgument>(operand.get());
        if (!passed || !kept.contains(passed))
          dropped.push_back(callee);
      }
    });
    for (BlockArgument argument : dropped)
      changed |= kept.remove(argument);
  }
  for (BlockArgument argument : kept)
    argument.setType(retype(argument.getType()));
  module.walk([&](func::FuncOp function) {
    if (function.isExternal())
      return;
    function.setFunctionType(FunctionType::get(
        module.getContext(), function.front().getArgumentTypes(),
        function.getResultTypes()));
  });
}

LogicalResult llmc::verifyWeightLayouts(
    ModuleOp module, function_ref<bool(Type)> readsLayout, StringRef reader) {
  WalkResult walk = module.walk([&](func::FuncOp func) {
    for (BlockArgument argument : func.getArguments()) {
      auto shaped = dyn_cast<ShapedType>(argument.getType());
      if (!shaped)
        continue;
      Type element = shaped.getElementType();
      auto block = dyn_cast<llm::BlockQuantType>(element);
      if ((!block && !isa<llm::InterleavedFloatType>(element)) ||
          readsLayout(element))
        continue;
      StringRef layout =
          !block ? "float rows in interleaved groups, the CPU kernels' layout"
          : block.getPlanar() ? "planar blocks, the CUDA kernels' layout"
          : block.isInterleaved()
              ? "interleaved rows, the CPU kernels' layout"
              : "the file's rows";
      func.emitError() << "argument #" << argument.getArgNumber() << " ("
                       << argument.getType() << ") has " << layout << "; "
                       << reader;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
