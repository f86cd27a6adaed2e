// The llm-cpu-interleave-weights pass: projection weights of the 32-element block formats stored in groups of 8 interleaved rows.
#include "passes/Passes.h"

#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"

namespace llmc {
#define GEN_PASS_DEF_LLMCPUINTERLEAVEWEIGHTS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

using llm::BlockQuantType;

/// A weight this pass may interleave: a rank-2 tensor of plain rows in a format
/// of the interleaved GEMV (q4_0, q4_1, q5_0, q5_1, q8_0) whose row count is a
/// multiple of the group.
bool isCandidateType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 2)
    return false;
  auto block = dyn_cast<BlockQuantType>(tensor.getElementType());
  // Only the formats whose interleaved rows a CPU kernel computes on (the
  // interleaved int8 GEMV); the others keep their rows.
  return block && !block.isInterleaved() &&
         llmc::hasInterleavedGemv(
             block.withInterleave(BlockQuantType::kInterleavedRows)) &&
         !tensor.isDynamicDim(0) &&
         tensor.getDimSize(0) % BlockQuantType::kInterleavedRows == 0;
}

/// Whether `use` reads its value as a projection's weight (any operand but
/// the input x, operand 0; biases and norms are never block tensors).
bool isProjectionWeightUse(OpOperand &use) {
  return isa<llm::LinearOp, llm::LogitsOp, llm::MultiLinearOp,
             llm::GLULinearOp>(use.getOwner()) &&
         use.getOperandNumber() != 0;
}

struct LLMCPUInterleaveWeightsPass
    : public llmc::impl::LLMCPUInterleaveWeightsBase<
          LLMCPUInterleaveWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    // Every function argument that could be interleaved, then, until
    // nothing changes, out with those read by anything but a projection or
    // a call into a kept argument, and with callee arguments that some
    // call passes anything but a kept argument.
    llvm::SetVector<BlockArgument> kept;
    module.walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      for (BlockArgument argument : function.getArguments())
        if (isCandidateType(argument.getType()))
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
          if (isProjectionWeightUse(use))
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
    // Retype the kept arguments, then every function type and every
    // projection result is unchanged: only weight operands differ.
    for (BlockArgument argument : kept) {
      auto tensor = cast<RankedTensorType>(argument.getType());
      auto block = cast<BlockQuantType>(tensor.getElementType());
      argument.setType(tensor.clone(
          block.withInterleave(BlockQuantType::kInterleavedRows)));
    }
    module.walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      function.setFunctionType(FunctionType::get(
          &getContext(), function.front().getArgumentTypes(),
          function.getResultTypes()));
    });
  }
};

} // namespace
