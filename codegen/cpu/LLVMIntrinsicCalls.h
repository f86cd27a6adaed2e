// CPU instructions that no MLIR dialect of this era spells for the kernels' types, called as LLVM intrinsics.
#ifndef LLMC_CODEGEN_CPU_LLVMINTRINSICCALLS_H
#define LLMC_CODEGEN_CPU_LLVMINTRINSICCALLS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace llmc {

/// An LLVM intrinsic ("llvm.x86.avx512bf16.dpbf16ps.512") and its type.
struct IntrinsicSignature {
  llvm::StringRef name;
  mlir::FunctionType type;
};

/// Declares `intrinsic` in `module` once, as a private func.func named after
/// it: LLVM takes a function named llvm.* for that intrinsic (and checks its
/// signature), while llvm.call_intrinsic, having no memory-effect interface,
/// would stop the buffer deallocation pipeline that runs later.
void declareIntrinsic(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::ModuleOp module,
                      const IntrinsicSignature &intrinsic);

/// Whether `module` declares the intrinsic `name` (at any phase from
/// kernels on).
bool declaresIntrinsic(mlir::ModuleOp module, llvm::StringRef name);

/// A func.call of `intrinsic` (declared by declareIntrinsic); its one result.
mlir::Value callIntrinsic(mlir::OpBuilder &b, mlir::Location loc,
                          const IntrinsicSignature &intrinsic,
                          mlir::ValueRange args);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_LLVMINTRINSICCALLS_H
