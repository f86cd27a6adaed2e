// Small builders shared by the CPU lowering patterns (tensor creation, casts, prefetches).
#ifndef LLMC_CODEGEN_CPU_LOWERINGUTILS_H
#define LLMC_CODEGEN_CPU_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace llmc {

/// The dynamic extents of `tensor` (one index value per `?`), in order: what
/// tensor.empty needs to build a tensor of the same shape.
llvm::SmallVector<mlir::Value> getDynamicExtents(mlir::OpBuilder &builder,
                                                 mlir::Location loc,
                                                 mlir::Value tensor);

/// A tensor.empty of `type` whose dynamic extents are read from `shapeSource`
/// (which must have the same rank and the same dynamic dimensions).
mlir::Value createEmptyLike(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::RankedTensorType type,
                            mlir::Value shapeSource);

/// linalg.fill of `init` with the float constant `value`.
mlir::Value createFilled(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value init, double value);

/// An index constant.
mlir::Value indexConstant(mlir::OpBuilder &builder, mlir::Location loc,
                          int64_t value);

/// Converts a scalar float to `to` (extf / truncf; no-op when equal).
mlir::Value convertFloat(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value scalar, mlir::Type to);

/// Reads one vector<lanes> of row `row` of the 2-D tensor or buffer
/// `source` (f32, f16 or bf16) from column `column`, widened to f32 in
/// registers; with `mask`, lanes past its count read as zero. The kernels
/// read their operands on tensors (rather than on a bufferization.to_buffer)
/// so that bufferization sees the reads where they happen and never lets an
/// in-place write clobber the operand first.
mlir::Value readWidenedRowVector(mlir::OpBuilder &builder, mlir::Location loc,
                                 mlir::Value source, mlir::Value row,
                                 mlir::Value column, mlir::Value mask,
                                 int64_t lanes);

/// The type scalar math on `elementType` is done in: f32 for narrower floats
/// (bf16/f16 lack the precision for sums and transcendental functions), the
/// type itself otherwise.
mlir::Type getComputeType(mlir::Type elementType);

/// `fn` applied to every element of the float tensor `tensor`, in its
/// compute type, by one parallel linalg.generic whose init is `tensor`
/// itself (updated in place once bufferized): the epilogues that follow a
/// kernel (logit softcapping, embedding scaling).
mlir::Value mapElementsInPlace(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::Value tensor,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value)>
        fn);

/// Bytes of a cache line: the step of the kernels' prefetches.
constexpr int64_t kCacheLineBytes = 64;

/// Prefetches for reading, into L2 (LLVM's locality hint 2, and L3), the
/// cache line of `buffer` at `indices`.
void prefetchLine(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::Value buffer, mlir::ValueRange indices);

/// Prefetches for reading, into L2, the cache lines (64 bytes) of `bytes`
/// bytes of `buffer` from `indices`, the last of which is the column that
/// steps by a line's elements (clamped to `lastColumn` when given).
void prefetchLines(mlir::OpBuilder &builder, mlir::Location loc,
                   mlir::Value buffer, mlir::ValueRange indices, int64_t bytes,
                   mlir::Value lastColumn = mlir::Value());

/// `tensor` softcapped element-wise (cap · tanh(z / cap), in place), or
/// `tensor` itself without a cap: the epilogue of a softcapped llm.logits
/// after whichever projection kernel computed it.
mlir::Value softcapInPlace(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value tensor,
                           std::optional<llvm::APFloat> cap);

/// The transpose of the n × n matrix whose rows are `rows` (n vectors of n
/// lanes, n a power of two): log2(n) rounds, each row pair (i, i + n/2)
/// becoming rows 2i and 2i + 1, the interleaving of their first and of their
/// second halves.
llvm::SmallVector<mlir::Value> transposeRows(mlir::OpBuilder &builder,
                                             mlir::Location loc,
                                             llvm::SmallVector<mlir::Value> rows);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_LOWERINGUTILS_H
