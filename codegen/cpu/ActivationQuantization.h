// Rounds the rows of a projection's input to int8 in blocks of 32 elements (or of a K-quant's 256) sharing one
// scale, for the int8 dot products with block-quantized weights.
#ifndef LLMC_CODEGEN_CPU_ACTIVATIONQUANTIZATION_H
#define LLMC_CODEGEN_CPU_ACTIVATIONQUANTIZATION_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace llmc {

/// Elements of x quantized together: the 32 of GGUF's small blocks (llama.cpp's
/// Q8_0 activations), one scale each. A scale block is a whole number of them.
constexpr int64_t kActivationBlock = 32;
/// Elements per partial sum of codes: Q6_K's scale runs are 16 long.
constexpr int64_t kActivationSumRun = 16;

/// x rows as int8 codes: x[m, e] ≈ codes[m, e] · scales[m, e / scaleBlock],
/// with scale = max|x| / 127 over the scale block (0 for an all-zero block)
/// and each code x / scale rounded to nearest even. `sums[m, e / 16]` is
/// scale · Σ codes over each 16 elements, for the weights' addends (value =
/// code · multiplier + addend needs Σ x over the addend's run).
struct QuantizedActivations {
  mlir::Value codes;  // memref<M x K x i8>
  mlir::Value scales; // memref<M x K/scaleBlock x f32>
  mlir::Value sums;   // memref<M x K/16 x f32>
  /// Elements per scale: kActivationBlock, or a K-quant's 256 (llama.cpp's
  /// Q8_K activations), under which all scale runs of a super-block meet
  /// one activation scale and their products add up as integers.
  int64_t scaleBlock = kActivationBlock;
};

/// x row `row`'s scale of the elements from `column` on (a multiple of 32):
/// scales[row, column / scaleBlock].
mlir::Value loadActivationScale(mlir::OpBuilder &b, mlir::Location loc,
                                const QuantizedActivations &x, mlir::Value row,
                                mlir::Value column);
/// x row `row`'s scaled code sum over the 32 elements from `column` on (a
/// multiple of 32): the sums of its two 16-element halves added.
mlir::Value loadActivationBlockSum(mlir::OpBuilder &b, mlir::Location loc,
                                   const QuantizedActivations &x,
                                   mlir::Value row, mlir::Value column);

/// Quantizes the rows of `x` (tensor<M x K x f32|bf16|f16>, K a multiple of
/// `scaleBlock`, itself a multiple of 32) into fresh buffers; `rows` is M as
/// an index.
QuantizedActivations quantizeActivations(mlir::OpBuilder &b,
                                         mlir::Location loc, mlir::Value x,
                                         mlir::Value rows, int64_t depth,
                                         int64_t scaleBlock = kActivationBlock);

/// The rounded rows of the projection inputs quantized so far in one
/// lowering, so that the projections of one input (Q, K and V of the
/// normalized x; gate and up) share one quantization: x is rounded once,
/// and only the projections' result buffers lie between their loops, which
/// llm-parallel-to-openmp then runs as one region (a quantization loop
/// between them had kept SmolLM2's K and V GEMVs, too small for a region of
/// their own, on one thread while the other waited).
class QuantizedActivationCache {
public:
  /// quantizeActivations(b, loc, rows2d, rows, depth, scaleBlock) for the
  /// projection input `x` (`rows2d` its rows as a matrix), or the buffers of
  /// an earlier call for the same `x` and `scaleBlock` that precede the
  /// insertion point in its block.
  QuantizedActivations getOrQuantize(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value x, mlir::Value rows2d,
                                     mlir::Value rows, int64_t depth,
                                     int64_t scaleBlock);

private:
  llvm::DenseMap<std::pair<mlir::Value, int64_t>, QuantizedActivations>
      quantized;
};

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_ACTIVATIONQUANTIZATION_H
