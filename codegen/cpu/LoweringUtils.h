// Small builders shared by the CPU lowering patterns (tensor creation, casts).
#ifndef LLMC_CODEGEN_CPU_LOWERINGUTILS_H
#define LLMC_CODEGEN_CPU_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

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

/// The type scalar math on `elementType` is done in: f32 for narrower floats
/// (bf16/f16 lack the precision for sums and transcendental functions), the
/// type itself otherwise.
mlir::Type getComputeType(mlir::Type elementType);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_LOWERINGUTILS_H
