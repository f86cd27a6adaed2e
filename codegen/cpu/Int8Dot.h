// The CPU's 8-bit integer dot-product instructions, for the kernels that multiply block-quantized weights with
// activations rounded to int8.
#ifndef LLMC_CODEGEN_CPU_INT8DOT_H
#define LLMC_CODEGEN_CPU_INT8DOT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace llmc {

/// Which instructions multiply bytes on the target CPU (x86 only; nothing
/// elsewhere): `vnni` is VPDPBUSD (AVX-512 VNNI with VL, or AVX-VNNI), one
/// instruction for 32 products summed in groups of four; `avx2` is VPMADDUBSW
/// then VPMADDWD (two); `none` leaves block-quantized weights to the f32
/// kernels.
enum class Int8DotKind { None, AVX2, VNNI };

/// "none", "avx2", "vnni" (the option's spelling in llm-lower-to-linalg).
llvm::StringRef getInt8DotKindName(Int8DotKind kind);
std::optional<Int8DotKind> parseInt8DotKind(llvm::StringRef name);

/// Bytes of one dot-product step: one 256-bit register of weight codes and
/// one of activations.
constexpr int64_t kInt8DotBytes = 32;

/// Signed codes (q8_0's) enter VPDPBUSD (the vnni kind) as the unsigned
/// bytes code + 128 (the sign bit flipped): value = (code + 128) · d −
/// 128 · d. The avx2 kind would saturate its int16 pair sums on those and
/// takes applyWeightSigns instead.
constexpr int64_t kSignedCodeOffset = 128;

/// Declares, once per module, the LLVM intrinsics createInt8Dot calls for
/// `kind` (call it where the builder may insert into `module`).
void declareInt8Dot(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ModuleOp module, Int8DotKind kind);

/// The kind whose intrinsics `module` declares (at any phase from kernels
/// on), or none: what the manifest records of a compiled module.
Int8DotKind findInt8Dot(mlir::ModuleOp module);

/// Σ over each group of four adjacent lanes of unsigned[i] · signed[i]:
/// vector<32xi8> × vector<32xi8> → vector<8xi32>, exactly, as long as no
/// pair of adjacent products sums beyond int16 (the avx2 kind saturates
/// there: unsigned codes below 64 against |signed| ≤ 127 never do); added
/// to `accumulator` (a vector<8xi32>) when one is given.
mlir::Value createInt8Dot(mlir::OpBuilder &b, mlir::Location loc,
                          Int8DotKind kind, mlir::Value unsignedBytes,
                          mlir::Value signedBytes,
                          mlir::Value accumulator = {});

/// Lane i of the result: pairWeights[2i] · (u[4i]·s[4i] + u[4i+1]·s[4i+1])
/// + pairWeights[2i+1] · (u[4i+2]·s[4i+2] + u[4i+3]·s[4i+3]) for the
/// unsigned bytes u and signed bytes s (vector<32xi8>) and pairWeights a
/// vector<16xi16>, with `accumulator` (a vector<8xi32>) added when given:
/// VPMADDUBSW then VPMADDWD, on either kind. Exact as long as no pair sum
/// exceeds int16 (unsigned codes below 64 against |s| ≤ 127 never do) and
/// the weighted sums stay within int32. A kernel weights each pair by its
/// weight row's integer scale for the pair's elements (the K-quants' runs).
mlir::Value createWeightedInt8Dot(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value unsignedBytes,
                                  mlir::Value signedBytes,
                                  mlir::Value pairWeights,
                                  mlir::Value accumulator = {});

/// The bytes of x (vector<32xi8>, none of them −128) with the signs of the
/// signed weight codes w: −x where w < 0, x where w > 0, 0 where w = 0
/// (VPSIGNB). Since |w| · (that) = w · x in every lane, signed codes enter
/// the unsigned × signed dot product as |w| against these.
mlir::Value applyWeightSigns(mlir::OpBuilder &b, mlir::Location loc,
                             Int8DotKind kind, mlir::Value xBytes,
                             mlir::Value weightBytes);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_INT8DOT_H
