// RoPE inverse frequencies for every scaling method, shared by the CPU and CUDA
// lowerings.
#ifndef LLMC_CODEGEN_COMMON_ROPEFREQUENCIES_H
#define LLMC_CODEGEN_COMMON_ROPEFREQUENCIES_H

#include "dialect/LLMAttrs.h"

#include "mlir/IR/Builders.h"

namespace llmc {

/// Whether `scaling` raises θ by d/(d−2) (static and dynamic NTK), which is
/// undefined for a single rotated pair (rotary_dim == 2).
bool usesNtkExponent(mlir::llm::RopeScalingAttrInterface scaling);

/// Whether `scaling` picks its frequencies per call from the sequence length
/// L = max(positions) + 1 (dynamic NTK, longrope), as transformers does.
bool choosesFrequenciesPerCall(mlir::llm::RopeScalingAttrInterface scaling);

/// The inverse frequencies of plain RoPE (null `scaling`) and of every
/// scaling method known at compile time (all but the per-call ones, which
/// get the plain θ^(−2i/d)), computed in double following Hugging Face's
/// modeling_rope_utils.py and rounded to f32: the table both targets use.
llvm::SmallVector<float>
getStaticInverseFrequencies(double theta, int64_t rotaryDim,
                            mlir::llm::RopeScalingAttrInterface scaling);

/// longrope's two candidate tables, d/2 entries each, one after the other:
/// θ^(−2i/d) / short_factor[i], then θ^(−2i/d) / long_factor[i] (computed in
/// double, rounded to f32).
llvm::SmallVector<float>
getLongropeInverseFrequencies(double theta, int64_t rotaryDim,
                              mlir::llm::RopeLongropeAttr scaling);

/// The index-typed offset of the table a longrope call uses within
/// getLongropeInverseFrequencies' values, for the f64 sequence length
/// `length`: d/2 (the long factors) when L > M, else 0.
mlir::Value createLongropeTableOffset(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value length, int64_t rotaryDim,
                                      mlir::llm::RopeLongropeAttr scaling);

/// The factor cos and sin are multiplied by: YaRN's or longrope's
/// attention_factor when set, else YaRN's 0.1·ln(factor) + 1 or longrope's
/// sqrt(1 + ln(factor)/ln(M)) (1 for factor 1); 1 for every other method
/// and for plain RoPE (null `scaling`).
double getRopeAttentionFactor(mlir::llm::RopeScalingAttrInterface scaling);

/// Dynamic NTK's ln θ' as an f64 value for the sequence length `length`
/// (an f64 value, L = max(positions) + 1): ln θ + d/(d−2)·ln(factor·L/M −
/// factor + 1) when L > M, ln θ otherwise. Emits arith/math ops only, so it
/// serves CPU loops and GPU kernels alike.
mlir::Value createDynamicNtkLogTheta(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value length, double theta,
                                     int64_t rotaryDim,
                                     mlir::llm::RopeDynamicAttr scaling);

/// inv_freq[i] = exp(−(2i/d)·ln θ') computed in f64 and rounded to f32, for
/// an i64 pair index `i` and the f64 `logTheta` of createDynamicNtkLogTheta.
mlir::Value createDynamicInverseFrequency(mlir::OpBuilder &b,
                                          mlir::Location loc,
                                          mlir::Value logTheta, mlir::Value i,
                                          int64_t rotaryDim);

} // namespace llmc

#endif // LLMC_CODEGEN_COMMON_ROPEFREQUENCIES_H
