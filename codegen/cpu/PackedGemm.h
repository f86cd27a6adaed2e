// The float GEMM and GEMV as outer products of x elements and weight panels: packed per projection, or stored in interleaved groups.
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
/// bf16), out an f32 buffer [M, N]. Given initialSums (a K range's first
/// block: getPanelInitialSums), the sums start from them instead of out's
/// values: out = initialSums + Σ.
void multiplyPackedPanel(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         mlir::Value panel, mlir::Value out, mlir::Value m,
                         mlir::Value n0, int64_t xRows, int64_t lanes,
                         mlir::Value k0, mlir::Value k1,
                         mlir::ValueRange initialSums = {});

/// multiplyPackedPanel on a weight stored in interleaved groups
/// (`!llm.interleaved<t, rows = 16, columns = c>`, whose storage `groups`
/// is the tensor [N / 16, 16 · K] of f32, f16 or bf16): the panel is the
/// `panelGroups` groups from row n0 (a multiple of 16) as they are stored,
/// each K step [s0, s1) one run of `columns` columns of a group's 16 rows,
/// a vector per column, widened to f32 in the K loop; nothing is packed.
/// The tile's output vectors are out[m + i, n0 + 16·v, +16).
void multiplyInterleavedPanel(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x, mlir::Value groups,
                              mlir::Value out, mlir::Value m, mlir::Value n0,
                              int64_t xRows, int64_t panelGroups,
                              int64_t columns, mlir::Value s0, mlir::Value s1,
                              mlir::ValueRange initialSums = {});

/// The decode GEMV of one interleaved group: Σ_{k < depth} x[m, k] ·
/// column k of group `group` of `groups` (as for multiplyInterleavedPanel),
/// plus `initial` (a vector<16xf32>: the bias or zeros), as a
/// vector<16xf32> of the group's 16 outputs. Each column's vector is
/// multiplied with x's element k broadcast, in `chains` independent FMA
/// chains over k (k mod chains; a multiple of the runs' `columns`), added
/// together after the loop; the group is read as one sequential stream,
/// and no sum is reduced across lanes.
mlir::Value sumInterleavedGroup(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value x, mlir::Value groups,
                                mlir::Value m, mlir::Value group,
                                int64_t depth, int64_t columns, int64_t chains,
                                mlir::Value initial);

/// Packs weight rows [n0, n0 + panelRows) of `rows` (a tensor [N, depth]
/// of bf16) in pairs of K into a fresh buffer, memref<ceil(depth / 2) x
/// 2·panelRows x bf16>: row p holds each panel row j's elements 2p and
/// 2p + 1 side by side (at 2j and 2j + 1), VDPBF16PS's operand layout, so
/// that one vector<32xbf16> of row p meets 16 panel rows. Each block of 16
/// rows × 32 elements is read as 16 vectors of 16 pairs (i32), transposed
/// in registers (transposeRows) and stored as 16 pair rows; the depth % 32
/// tail is read masked, so an odd depth's last pair ends in zero.
/// panelRows is a multiple of 16.
mlir::Value packWeightPairPanel(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value rows, mlir::Value n0,
                                int64_t panelRows, int64_t depth);

/// The `rows` rows of x (a tensor [M, depth] of f32, f16 or bf16) rounded
/// to bf16 (to nearest, ties to even) into a fresh buffer memref<M x
/// 2·ceil(depth / 2) x bf16>, an odd depth's last column zero: the x side of
/// multiplyPackedPairPanel, made once per projection by the calling thread
/// (SmolLM2's 128-token prefill on Zen 4: as fast as rounding each row
/// block once per panel inside the threads, a sixth faster than rows in an
/// scf.parallel of their own, medians of 8 interleaved runs).
mlir::Value packRowsAsBF16Pairs(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value x, mlir::Value rows, int64_t depth);

/// out[m + i, n0 + j] += Σ_{p0 <= p < p1} Σ_{h < 2} xPairs[m + i, 2p + h]
/// · w[n0 + j, 2p + h] for i < xRows and j < panelRows, w as
/// packWeightPairPanel packed it into `panel`: the tile's output vectors
/// are loaded into registers, each step p broadcasts each x row's pair p
/// (32 bits) and multiplies it with the panel's vectors of row p in
/// VDPBF16PS (createBF16Dot, declared by the caller), and the vectors are
/// stored back; initialSums as for multiplyPackedPanel.
void multiplyPackedPairPanel(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value xPairs, mlir::Value panel,
                             mlir::Value out, mlir::Value m,
                             mlir::Value n0, int64_t xRows, mlir::Value p0,
                             mlir::Value p1,
                             mlir::ValueRange initialSums = {});

/// multiplyPackedPairPanel on bf16 weights stored in interleaved groups of
/// pairs (`!llm.interleaved<bf16, rows = 16, columns = 2>`, storage
/// `groups` [N / 16, 16 · K]): the panel is the `panelGroups` groups from
/// row n0 as they are stored, a group's run p being the VDPBF16PS operand
/// of its 16 rows' pair p; nothing is packed.
void multiplyInterleavedPairPanel(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value xPairs, mlir::Value groups,
                                  mlir::Value out, mlir::Value m,
                                  mlir::Value n0, int64_t xRows,
                                  int64_t panelGroups, mlir::Value p0,
                                  mlir::Value p1,
                                  mlir::ValueRange initialSums = {});

/// The sums a panel's outputs start from, one vector<lanes x f32> per
/// `lanes` rows of the panel: bias[n0 + j] for j < panelRows (widened to
/// f32), or zeros without a bias. A row block's first K block starts its
/// tiles from them (multiplyPackedPanel's initialSums), the later blocks
/// add to what the earlier ones stored.
llvm::SmallVector<mlir::Value> getPanelInitialSums(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   mlir::Value bias,
                                                   mlir::Value n0,
                                                   int64_t panelRows,
                                                   int64_t lanes);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_PACKEDGEMM_H
