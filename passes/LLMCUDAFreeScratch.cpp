// The llm-cuda-free-scratch pass: a memref.dealloc after the last use of every scratch buffer of the CUDA host code.
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace llmc {
#define GEN_PASS_DEF_LLMCUDAFREESCRATCH
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// Which results of a host function are buffers it allocated and hands to
/// its caller (who then owns and frees them), computed once per function.
class OwnedResults {
public:
  explicit OwnedResults(ModuleOp module) : module(module) {}

  /// True when result `index` of `callee` is a buffer the callee owns (and
  /// returns through no other result).
  bool isOwned(func::FuncOp callee, unsigned index) {
    if (!cache.count(callee.getOperation())) {
      SmallVector<bool> owned = compute(callee); // may add other functions
      cache[callee.getOperation()] = std::move(owned);
    }
    const SmallVector<bool> &owned = cache.find(callee.getOperation())->second;
    return index < owned.size() && owned[index];
  }

  /// The callee of a call, when it is a function of the module with a body.
  func::FuncOp lookupCallee(func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCalleeAttr());
    return callee && !callee.isExternal() ? callee : func::FuncOp();
  }

  /// The owned buffer `value` is a view of (walking back through the ops
  /// that make memrefs from memrefs), or null when it may be anything else
  /// (an argument, several buffers).
  Value getOwnedRoot(Value value);

private:
  SmallVector<bool> compute(func::FuncOp func);

  ModuleOp module;
  DenseMap<Operation *, SmallVector<bool>> cache;
};

Value OwnedResults::getOwnedRoot(Value value) {
  while (true) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return Value(); // a block argument
    if (isa<memref::AllocOp>(def))
      return value;
    if (auto call = dyn_cast<func::CallOp>(def)) {
      func::FuncOp callee = lookupCallee(call);
      unsigned index = cast<OpResult>(value).getResultNumber();
      return callee && isOwned(callee, index) ? value : Value();
    }
    // A view, cast or reshape: its one memref operand is the buffer.
    Value source;
    for (Value operand : def->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      if (source)
        return Value(); // made of two buffers
      source = operand;
    }
    if (!source)
      return Value();
    value = source;
  }
}

SmallVector<bool> OwnedResults::compute(func::FuncOp func) {
  // Cycles (recursion) are not owned: mark the function in progress.
  cache[func.getOperation()] = {};
  SmallVector<bool> owned(func.getNumResults(), false);
  if (!func.getBody().hasOneBlock())
    return owned;
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret)
    return owned;
  SmallVector<Value> roots;
  for (Value operand : ret.getOperands())
    roots.push_back(isa<BaseMemRefType>(operand.getType())
                        ? getOwnedRoot(operand)
                        : Value());
  for (auto [index, root] : llvm::enumerate(roots))
    owned[index] = root && llvm::count(roots, root) == 1;
  return owned;
}

/// What happens to one owned buffer inside its function's block.
struct BufferUses {
  /// The op of the block after which the buffer is dead.
  Operation *last = nullptr;
  /// Returned, already freed, or used by an op that might keep its address.
  bool keep = false;
};

/// The uses of `buffer` and its aliases in `block`, whose ops are numbered
/// by `position`.
BufferUses findUses(Value buffer, Block &block,
                    const DenseMap<Operation *, unsigned> &position,
                    OwnedResults &ownership) {
  BufferUses uses;
  uses.last = buffer.getDefiningOp();
  llvm::SetVector<Value> aliases;
  aliases.insert(buffer);
  for (size_t i = 0; i < aliases.size(); ++i) {
    for (OpOperand &use : aliases[i].getUses()) {
      Operation *user = block.findAncestorOpInBlock(*use.getOwner());
      if (!user) {
        uses.keep = true; // outside the block: not ours to reason about
        return uses;
      }
      Operation *op = use.getOwner();
      if (isa<func::ReturnOp, memref::DeallocOp>(op)) {
        uses.keep = true;
        return uses;
      }
      if (position.lookup(user) > position.lookup(uses.last))
        uses.last = user;
      if (auto call = dyn_cast<func::CallOp>(op)) {
        // A result the callee owns is a new buffer; any other memref
        // result may be this argument again.
        func::FuncOp callee = ownership.lookupCallee(call);
        for (OpResult result : call->getResults())
          if (isa<BaseMemRefType>(result.getType()) &&
              !(callee && ownership.isOwned(callee, result.getResultNumber())))
            aliases.insert(result);
        continue;
      }
      if (isa<gpu::LaunchFuncOp, memref::CopyOp, memref::DimOp>(op))
        continue;
      // Any other op may keep the address unless all it makes from the
      // buffer is memrefs (views, casts, reshapes), which are followed.
      bool onlyMemrefResults = op->getNumResults() > 0;
      for (Value result : op->getResults())
        onlyMemrefResults &= isa<BaseMemRefType>(result.getType());
      if (!onlyMemrefResults || op->getNumRegions() != 0) {
        uses.keep = true;
        return uses;
      }
      for (Value result : op->getResults())
        aliases.insert(result);
    }
  }
  return uses;
}

struct LLMCUDAFreeScratchPass
    : public llmc::impl::LLMCUDAFreeScratchBase<LLMCUDAFreeScratchPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OwnedResults ownership(module);
    // Host functions only: the kernels live in gpu.modules.
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      Block &block = func.getBody().front();
      DenseMap<Operation *, unsigned> position;
      SmallVector<Value> owned;
      for (auto [index, op] : llvm::enumerate(block)) {
        position[&op] = index;
        if (isa<memref::AllocOp>(op)) {
          owned.push_back(op.getResult(0));
        } else if (auto call = dyn_cast<func::CallOp>(op)) {
          if (func::FuncOp callee = ownership.lookupCallee(call))
            for (OpResult result : call->getResults())
              if (ownership.isOwned(callee, result.getResultNumber()))
                owned.push_back(result);
        }
      }
      for (Value buffer : owned) {
        BufferUses uses = findUses(buffer, block, position, ownership);
        if (uses.keep)
          continue;
        OpBuilder builder(uses.last->getContext());
        builder.setInsertionPointAfter(uses.last);
        memref::DeallocOp::create(builder, buffer.getLoc(), buffer);
      }
    }
  }
};

} // namespace
