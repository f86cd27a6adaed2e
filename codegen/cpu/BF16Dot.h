// The CPU's bf16 pair dot product (AVX-512 BF16's VDPBF16PS), for the prefill GEMM on bf16 weights with x rounded
// to bf16.
#ifndef LLMC_CODEGEN_CPU_BF16DOT_H
#define LLMC_CODEGEN_CPU_BF16DOT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace llmc {

/// f32 lanes of one VDPBF16PS on a 512-bit register: each adds the products
/// of one pair of bf16 elements of its two operands (vector<32xbf16>).
constexpr int64_t kBF16DotLanes = 16;

/// Declares, once per module, the intrinsic createBF16Dot calls.
void declareBF16Dot(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ModuleOp module);

/// Whether `module` declares it (at any phase from kernels on): what the
/// manifest records of a compiled module.
bool findBF16Dot(mlir::ModuleOp module);

/// accumulator[i] + a[2i]·b[2i] + a[2i+1]·b[2i+1] for i < 16: accumulator a
/// vector<16xf32>, a and b vector<32xbf16>. The products of two bf16 are
/// exact in f32; the instruction adds them with round-to-nearest-even, and
/// reads and writes denormals as zero.
mlir::Value createBF16Dot(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value accumulator, mlir::Value a,
                          mlir::Value bPairs);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_BF16DOT_H
