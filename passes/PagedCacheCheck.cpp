// The one error both lowerings give for a paged KV cache, which neither implements yet.
#include "passes/Passes.h"

#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

static bool isPagedCache(Type type) {
  auto cache = dyn_cast<llm::KVCacheType>(type);
  return cache && cache.getLayout() == llm::KVCacheLayout::paged;
}

LogicalResult llmc::rejectPagedKVCaches(ModuleOp module,
                                        llvm::StringRef lowering) {
  WalkResult result = module.walk([&](Operation *op) {
    bool paged = llvm::any_of(op->getOperandTypes(), isPagedCache) ||
                 llvm::any_of(op->getResultTypes(), isPagedCache);
    if (auto func = dyn_cast<func::FuncOp>(op))
      paged |= llvm::any_of(func.getArgumentTypes(), isPagedCache) ||
               llvm::any_of(func.getResultTypes(), isPagedCache);
    if (!paged)
      return WalkResult::advance();
    op->emitError() << "the " << lowering
                    << " lowering does not support the paged KV-cache layout yet";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
