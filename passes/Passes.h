// Declarations and registration of llmc's passes.
#ifndef LLMC_PASSES_PASSES_H
#define LLMC_PASSES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace llmc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The C identifier that prefixes a model's entry points
/// (`<prefix>_prefill`, `<prefix>_decode`) and artifact files: the model
/// name with every other character replaced by '_' (and a leading '_' before
/// a digit).
std::string getModelSymbolPrefix(llvm::StringRef modelName);

/// The rewrites of llm-decompose-fused, for the fused ops that
/// `shouldDecompose` accepts (all when it is null): llm.multi_linear,
/// llm.glu_linear, llm.linear with a residual and llm.rope_append.
void populateDecomposeFusedPatterns(
    mlir::RewritePatternSet &patterns,
    std::function<bool(mlir::Operation *)> shouldDecompose = nullptr);

/// Applies `patterns` to `root` until none applies, without folding or
/// simplifying regions, so that only the ops they match change (the fusion
/// and decomposition rewrites).
llvm::LogicalResult applyLocalRewrites(mlir::Operation *root,
                                       mlir::RewritePatternSet &&patterns);

/// Applies populateDecomposeFusedPatterns' rewrites to `root` until none
/// applies.
llvm::LogicalResult decomposeFusedOps(
    mlir::Operation *root,
    std::function<bool(mlir::Operation *)> shouldDecompose = nullptr);

} // namespace llmc

#endif // LLMC_PASSES_PASSES_H
