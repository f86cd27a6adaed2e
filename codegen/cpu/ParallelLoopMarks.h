// The mark by which the CPU kernels tell llm-parallel-to-openmp that an scf.parallel holds little work.
#ifndef LLMC_CODEGEN_CPU_PARALLELLOOPMARKS_H
#define LLMC_CODEGEN_CPU_PARALLELLOOPMARKS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace llmc {

/// A unit attribute on an scf.parallel whose work falls below the CPU
/// lowering's parallel-min-weight-elements: starting an OpenMP region for
/// it alone costs more than a second thread saves (SmolLM2's 192x576 K and
/// V projections in a decode step). llm-parallel-to-openmp runs such a loop
/// on the threads of an independent sibling loop's region when it has one
/// (the Q projection before them), and sequentially otherwise. A loop that
/// loses the mark (a rewrite that rebuilds it) is threaded like any other.
inline constexpr llvm::StringLiteral kSmallParallelLoopAttr =
    "llmc.small_parallel_loop";

inline void markSmallParallelLoop(mlir::scf::ParallelOp loop) {
  loop->setAttr(kSmallParallelLoopAttr,
                mlir::UnitAttr::get(loop->getContext()));
}

inline bool isSmallParallelLoop(mlir::scf::ParallelOp loop) {
  return loop->hasAttr(kSmallParallelLoopAttr);
}

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_PARALLELLOOPMARKS_H
