// Rounds the rows of a projection's input to int8 in 32-element blocks, for the int8 dot products with
// block-quantized weights.
#ifndef LLMC_CODEGEN_CPU_ACTIVATIONQUANTIZATION_H
#define LLMC_CODEGEN_CPU_ACTIVATIONQUANTIZATION_H

#include "mlir/IR/Builders.h"

namespace llmc {

/// Elements of x that share one int8 scale: the 32 of GGUF's small blocks
/// and of the K-quants' sub-blocks (llama.cpp's Q8_0 activations), so that
/// every weight scale run meets a single activation scale.
constexpr int64_t kActivationBlock = 32;
/// Elements per partial sum of codes: Q6_K's scale runs are 16 long.
constexpr int64_t kActivationSumRun = 16;

/// x rows as int8 codes: x[m, e] ≈ codes[m, e] · scales[m, e / 32], with
/// scale = max|x| / 127 over the block (0 for an all-zero block) and each
/// code x / scale rounded to nearest even. `sums[m, e / 16]` is scale · Σ
/// codes over each 16 elements, for the weights' addends (value = code ·
/// multiplier + addend needs Σ x over the addend's run).
struct QuantizedActivations {
  mlir::Value codes;  // memref<M x K x i8>
  mlir::Value scales; // memref<M x K/32 x f32>
  mlir::Value sums;   // memref<M x K/16 x f32>
};

/// x row `row`'s scale of the 32-element block at `column` (a multiple of
/// 32): scales[row, column / 32].
mlir::Value loadActivationScale(mlir::OpBuilder &b, mlir::Location loc,
                                const QuantizedActivations &x, mlir::Value row,
                                mlir::Value column);
/// x row `row`'s scaled code sum over the 32 elements from `column` on (a
/// multiple of 32): the sums of its two 16-element halves added.
mlir::Value loadActivationBlockSum(mlir::OpBuilder &b, mlir::Location loc,
                                   const QuantizedActivations &x,
                                   mlir::Value row, mlir::Value column);

/// Quantizes the rows of `x` (tensor<M x K x f32|bf16|f16>, K a multiple of
/// 32) into fresh buffers; `rows` is M as an index.
QuantizedActivations quantizeActivations(mlir::OpBuilder &b,
                                         mlir::Location loc, mlir::Value x,
                                         mlir::Value rows, int64_t depth);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_ACTIVATIONQUANTIZATION_H
