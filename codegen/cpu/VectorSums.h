// Several 8-lane vectors' sums packed into one vector (the shuffles of VPHADDD
// / VHADDPS).
#ifndef LLMC_CODEGEN_CPU_VECTORSUMS_H
#define LLMC_CODEGEN_CPU_VECTORSUMS_H

#include "mlir/IR/Builders.h"

namespace llmc {

/// Four 8-lane vectors (integer or float) packed into one: lane l holds
/// vectors[l % 4]'s sum over its lanes 4 · (l / 4) .. 4 · (l / 4) + 3. Two
/// levels of pairwise sums within each 128-bit half, so that x86 needs no
/// lane crossing; exact for integers.
mlir::Value packQuarterSums(mlir::OpBuilder &builder, mlir::Location loc,
                            llvm::ArrayRef<mlir::Value> vectors);

/// Eight 8-lane float vectors reduced into one: lane i holds the sum of
/// vectors[i]'s eight lanes (packQuarterSums twice, then the two 128-bit
/// halves added): 7 + 1 vector additions for what eight horizontal
/// reductions would take 24.
mlir::Value packLaneSums(mlir::OpBuilder &builder, mlir::Location loc,
                         llvm::ArrayRef<mlir::Value> vectors);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_VECTORSUMS_H
