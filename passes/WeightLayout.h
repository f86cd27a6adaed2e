// Retyping weight arguments to a target's storage layout: which arguments may change, through calls, and the retype.
#ifndef LLMC_PASSES_WEIGHTLAYOUT_H
#define LLMC_PASSES_WEIGHTLAYOUT_H

#include "dialect/LLMTypes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace llmc {

/// The block format of `type` when it is a static rank-2 tensor of a block
/// format in the file's rows (neither interleaved nor planar): what a
/// weight layout pass may retype. Null otherwise.
mlir::llm::BlockQuantType getBlockRowsFormat(mlir::Type type);

/// Whether `use` reads its value as a projection's weight (llm.linear,
/// llm.logits, llm.multi_linear, llm.glu_linear: any operand but the input
/// x, operand 0; biases and norms are never block tensors).
bool isProjectionWeightUse(mlir::OpOperand &use);

/// Gives a new type to every function argument of `module` whose type
/// `isCandidate` accepts and whose every use either `isLayoutUse` accepts
/// or passes it to a call whose callee argument changes too (and that every
/// call passes only changing arguments to): `retype` maps its old type to
/// the new one. Function types follow their arguments; results and every
/// other value keep their types, so only ops that read the argument see the
/// new layout (the target's weight layout passes: llm-cpu-interleave-weights,
/// llm-cuda-planar-weights).
void relayoutWeightArguments(
    mlir::ModuleOp module, llvm::function_ref<bool(mlir::Type)> isCandidate,
    llvm::function_ref<bool(mlir::OpOperand &)> isLayoutUse,
    llvm::function_ref<mlir::Type(mlir::Type)> retype);

/// Fails, with an error on its function, at the first function argument of
/// `module` holding weights in a stored layout (block formats, or float
/// rows in interleaved groups) that `readsLayout` rejects (it is given the
/// argument's element type): "argument #i (type) has <its layout>;
/// <reader>", where `reader` says which layouts the target's kernels read.
mlir::LogicalResult
verifyWeightLayouts(mlir::ModuleOp module,
                    llvm::function_ref<bool(mlir::Type)> readsLayout,
                    llvm::StringRef reader);

} // namespace llmc

#endif // LLMC_PASSES_WEIGHTLAYOUT_H
