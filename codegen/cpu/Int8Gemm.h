// The prefill GEMM's int8 register tile: weight rows of a block format decoded once into int8 codes and
// scales, multiplied with x rounded to int8 by the CPU's integer dot products, several x rows at a time.
#ifndef LLMC_CODEGEN_CPU_INT8GEMM_H
#define LLMC_CODEGEN_CPU_INT8GEMM_H

#include "codegen/common/BlockDecoding.h"
#include "codegen/cpu/ActivationQuantization.h"
#include "codegen/cpu/Int8Dot.h"

#include "mlir/IR/Builders.h"

namespace llmc {

/// Weight rows per int8 product vector: one vector<8xi32> lane per weight
/// row, each lane the sum over 4 elements of K (the dot instructions' group).
constexpr int64_t kInt8PanelRows = 8;
/// Elements of K per lane and dot instruction.
constexpr int64_t kInt8GroupElements = 4;

/// A tile of weight rows, repacked for the outer-product int8 kernel: the 4
/// codes of each K group of every tile row side by side (codes[g, j] holds
/// elements 4g..4g+3 of tile row j as 4 bytes), so that one vector read
/// gives 8 weight rows' group and x's 4 codes are broadcast against it;
/// value of element e of tile row j = code · multipliers[e / 16, j] +
/// addends[e / 16, j], for the K-quants code · runWeights[e / 16, j] ·
/// blockScales[e / 256, j] + addends[e / 16, j]. Decoded once per (x row
/// block, weight tile), so that every x tile of the block reuses it.
struct WeightCodeTile {
  mlir::Value codes;       // memref<K/4 x rows x i32> (4 codes each)
  /// memref<K/16 x rows x f32>; null for the K-quants.
  mlir::Value multipliers;
  /// The K-quants: each 16 elements' integer run scale (memref<K/16 x rows
  /// x i16>) and each block's d (memref<K/256 x rows x f32>); null
  /// otherwise.
  mlir::Value runWeights;
  mlir::Value blockScales;
  /// memref<K/16 x rows x f32>; null when every addend is 0 (signed codes).
  mlir::Value addends;
  /// Codes that are signed bytes (q8_0 when they cannot be offset to
  /// unsigned: VPMADDUBSW would saturate on 255 · 127 · 2); the products
  /// then take |w| times x with w's sign. Otherwise codes are unsigned.
  bool signedCodes = false;
  /// Multipliers that change every 16 elements (q6_k) rather than every 32.
  bool sixteenElementRuns = false;
  /// Weight rows in the tile: a multiple of kInt8PanelRows.
  int64_t rows = 0;
};

/// Decodes weight rows [n0, n0 + rows) of `blocks` (rows of `depth`
/// elements) into fresh buffers. Unsigned codes are the format's own (below
/// 64); q8_0's signed codes become code + 128 with addend -128 · d when
/// `kind` is VNNI (VPDPBUSD sums four products in int32 exactly).
WeightCodeTile decodeWeightCodeTile(mlir::OpBuilder &b, mlir::Location loc,
                                    const BlockDecoder &blocks, mlir::Value n0,
                                    int64_t rows, int64_t depth,
                                    Int8DotKind kind);

/// Σ over K of x[xRows[i], e] · w[j, e] for every x row i and tile row j,
/// as f32 scalars indexed i · tile.rows + j. An outer product in registers:
/// per K group of 4, each x row's 4 codes broadcast against every panel of
/// 8 weight rows' codes in one dot instruction (32 useful products each),
/// summed in int32 over a scale run (16 or 32 elements); per run the int32
/// sums converted to f32 and accumulated with the weight rows' multipliers
/// times x's scale, and the addends times x's scaled code sums. K-quant
/// tiles (x rounded per block) weight their products by the rows' integer
/// run scales and sum them in int32 over the block: with VNNI each scale
/// run's dots first (VPDPBUSD), then the run's sums times its scales
/// (VPMULLD); otherwise each dot's int16 pair sums
/// (createWeightedInt8Dot). Per block one conversion and one FMA with the
/// rows' d times x's scale, per scale run one FMA with the addends.
llvm::SmallVector<mlir::Value>
multiplyWeightCodeTile(mlir::OpBuilder &b, mlir::Location loc,
                       const WeightCodeTile &tile,
                       const QuantizedActivations &x,
                       llvm::ArrayRef<mlir::Value> xRows, int64_t depth,
                       Int8DotKind kind);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_INT8GEMM_H
