// Scalar formulas of the FFN activations (silu, gelu, gelu_tanh, relu), shared by every target.
#ifndef LLMC_CODEGEN_COMMON_ACTIVATION_H
#define LLMC_CODEGEN_COMMON_ACTIVATION_H

#include "dialect/LLMAttrs.h"

#include "mlir/IR/Builders.h"

namespace llmc {

/// act(x) for a float scalar already in the compute type (f32 or f64),
/// built from arith and math ops only (erf is expanded), so the same code
/// serves CPU loops and GPU kernels.
mlir::Value createActivation(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::llm::Activation activation, mlir::Value x);

} // namespace llmc

#endif // LLMC_CODEGEN_COMMON_ACTIVATION_H
