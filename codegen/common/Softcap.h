// Softcapping (c · tanh(z / c)) of attention scores and logits, shared by every target.
#ifndef LLMC_CODEGEN_COMMON_SOFTCAP_H
#define LLMC_CODEGEN_COMMON_SOFTCAP_H

#include "mlir/IR/Builders.h"

namespace llmc {

/// cap · tanh(z / cap) for a float scalar or vector `z` in the compute type
/// (Gemma-2's attention and final-logit softcapping): smooth, odd, and
/// bounded by ±cap. Built from arith and math ops only.
mlir::Value createSoftcap(mlir::OpBuilder &b, mlir::Location loc, mlir::Value z,
                          double cap);

/// The same with the cap and its reciprocal as values of z's type (a GPU
/// kernel's arguments, splat to z's vector type by the caller).
mlir::Value createSoftcap(mlir::OpBuilder &b, mlir::Location loc, mlir::Value z,
                          mlir::Value cap, mlir::Value inverseCap);

} // namespace llmc

#endif // LLMC_CODEGEN_COMMON_SOFTCAP_H
