// VDPBF16PS as a call of its LLVM intrinsic.
#include "codegen/cpu/BF16Dot.h"
#include "codegen/cpu/LLVMIntrinsicCalls.h"

using namespace mlir;
using namespace llmc;

namespace {

IntrinsicSignature getDotIntrinsic(Builder &b) {
  auto f32x16 = VectorType::get({kBF16DotLanes}, b.getF32Type());
  auto bf16x32 = VectorType::get({2 * kBF16DotLanes}, b.getBF16Type());
  return {"llvm.x86.avx512bf16.dpbf16ps.512",
          b.getFunctionType({f32x16, bf16x32, bf16x32}, f32x16)};
}

} // namespace

void llmc::declareBF16Dot(OpBuilder &b, Location loc, ModuleOp module) {
  declareIntrinsic(b, loc, module, getDotIntrinsic(b));
}

bool llmc::findBF16Dot(ModuleOp module) {
  Builder b(module.getContext());
  return declaresIntrinsic(module, getDotIntrinsic(b).name);
}

Value llmc::createBF16Dot(OpBuilder &b, Location loc, Value accumulator,
                          Value a, Value bPairs) {
  return callIntrinsic(b, loc, getDotIntrinsic(b), {accumulator, a, bPairs});
}
