// The llm-cpu-hoist-allocas pass: static-size stack buffers move from the loop iterations they serve to the entry of the function or OpenMP region whose thread runs those iterations.
#include "passes/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace llmc {
#define GEN_PASS_DEF_LLMCPUHOISTALLOCAS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// The block a thread enters once before it runs `op`'s loop iterations:
/// the entry of the nearest enclosing omp.parallel region or function.
Block *getThreadEntryBlock(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<omp::ParallelOp, FunctionOpInterface>(parent))
      return &parent->getRegion(0).front();
  return nullptr;
}

/// Whether `alloca`'s buffer is dead once the iteration, region or
/// function of its allocation scope ends: no loop without a scope of its
/// own (scf.while) lies between them, whose iterations could each keep a
/// buffer of their own alive.
bool isScopedScratch(memref::AllocaOp alloca) {
  for (Operation *parent = alloca->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (parent->hasTrait<OpTrait::AutomaticAllocationScope>())
      return true;
    if (isa<LoopLikeOpInterface>(parent))
      return false;
  }
  return false;
}

struct LLMCPUHoistAllocasPass
    : llmc::impl::LLMCPUHoistAllocasBase<LLMCPUHoistAllocasPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaOp> allocas;
    getOperation().walk([&](memref::AllocaOp alloca) {
      if (alloca->getNumOperands() == 0 && isScopedScratch(alloca))
        allocas.push_back(alloca);
    });
    // To the front of the entry block, in their order: the lowering of
    // structured control flow splits that block at each loop, and LLVM
    // gives a fixed frame slot only to the allocas of a function's first
    // block (others adjust the stack pointer when they run).
    DenseMap<Block *, Operation *> lastMoved;
    for (memref::AllocaOp alloca : allocas) {
      Block *entry = getThreadEntryBlock(alloca);
      if (!entry)
        continue;
      Operation *&last = lastMoved[entry];
      if (last)
        alloca->moveAfter(last);
      else
        alloca->moveBefore(entry, entry->begin());
      last = alloca;
    }
  }
};

} // namespace
