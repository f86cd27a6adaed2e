// The marks by which the CPU kernels tell llm-parallel-to-openmp how much work an scf.parallel holds.
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

/// A unit attribute on an scf.parallel whose iterations are each long (a
/// prefill GEMM's: a weight panel or tile over a block of up to 128 x
/// rows), so few that the threads' last chunks end far apart:
/// llm-parallel-to-openmp cuts its region into more chunks per thread. A
/// loop without it (a decode GEMV's rows, attention's heads) keeps the
/// coarser split, whose chunks cost fewer trips to the partitions' slots.
inline constexpr llvm::StringLiteral kHeavyIterationsAttr =
    "llmc.heavy_iterations";

inline void markHeavyIterations(mlir::scf::ParallelOp loop) {
  loop->setAttr(kHeavyIterationsAttr, mlir::UnitAttr::get(loop->getContext()));
}

inline bool hasHeavyIterations(mlir::scf::ParallelOp loop) {
  return loop->hasAttr(kHeavyIterationsAttr);
}

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_PARALLELLOOPMARKS_H
