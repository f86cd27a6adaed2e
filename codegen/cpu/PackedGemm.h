// The prefill GEMM on float weights as an outer product of x elements and packed weight panels.
#ifndef LLMC_CODEGEN_CPU_PACKEDGEMM_H
#define LLMC_CODEGEN_CPU_PACKEDGEMM_H

#include "mlir/IR/Builders.h"

namespace llmc {

/// Packs weight rows [n0, n0 + panelRows) of `rows` (a tensor or memref
/// [N, depth] of f32, f16 or bf16) K-major into a fresh
/// buffer, memref<depth x panelRows x f32>: element k of every row of the
/// panel contiguous. Each lanes × lanes block is read as row vectors
/// (widened to f32), transposed in registers with log2(lanes) rounds of
/// interleaving shuffles and stored as panel vectors; the K % lanes tail is
/// read masked. panelRows is a multiple of lanes, a power of two.
mlir::Value packWeightPanel(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value rows, mlir::Value n0,
                            int64_t panelRows, int64_t depth, int64_t lanes);

/// out[m + i, n0 + j] += Σ_{k0 <= k < k1} x[m + i, k] · panel[k, j] for
/// i < xRows and j < panelRows: the tile's xRows × panelRows / lanes output
/// vectors are loaded into registers, each step k broadcasts x's element k
/// of each x row and multiplies it with the panel's vectors of row k in
/// FMAs, and the vectors are stored back. x is a tensor [M, K] (f32, f16 or
/// bf16), out an f32 buffer [M, N].
void multiplyPackedPanel(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         mlir::Value panel, mlir::Value out, mlir::Value m,
                         mlir::Value n0, int64_t xRows, int64_t lanes,
                         mlir::Value k0, mlir::Value k1);

/// out[m, n0 + j] = bias[n0 + j] (0 without a bias) for m in [m0, m1) and
/// j < panelRows: the sums multiplyPackedPanel adds to, K block by K block.
void initializePanelOutputs(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value bias, mlir::Value out, mlir::Value m0,
                            mlir::Value m1, mlir::Value n0, int64_t panelRows,
                            int64_t lanes);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_PACKEDGEMM_H
