// CPU instructions called as LLVM intrinsics through func.call of private declarations.
#include "codegen/cpu/LLVMIntrinsicCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace llmc;

void llmc::declareIntrinsic(OpBuilder &b, Location loc, ModuleOp module,
                            const IntrinsicSignature &intrinsic) {
  if (declaresIntrinsic(module, intrinsic.name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  func::FuncOp::create(b, loc, intrinsic.name, intrinsic.type).setPrivate();
}

bool llmc::declaresIntrinsic(ModuleOp module, llvm::StringRef name) {
  return SymbolTable::lookupSymbolIn(module, name) != nullptr;
}

Value llmc::callIntrinsic(OpBuilder &b, Location loc,
                          const IntrinsicSignature &intrinsic, ValueRange args) {
  return func::CallOp::create(b, loc, intrinsic.name,
                              intrinsic.type.getResults(), args)
      .getResult(0);
}
