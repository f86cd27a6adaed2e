// The CPU's 8-bit integer dot-product instructions, as calls of LLVM intrinsics (no MLIR dialect has them for
// unsigned × signed bytes).
#include "codegen/cpu/Int8Dot.h"
#include "codegen/cpu/LLVMIntrinsicCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringSwitch.h"

#include <array>

using namespace mlir;
using namespace llmc;

llvm::StringRef llmc::getInt8DotKindName(Int8DotKind kind) {
  switch (kind) {
  case Int8DotKind::None:
    return "none";
  case Int8DotKind::AVX2:
    return "avx2";
  case Int8DotKind::VNNI:
    return "vnni";
  }
  llvm_unreachable("unknown int8 dot kind");
}

std::optional<Int8DotKind> llmc::parseInt8DotKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Int8DotKind>>(name)
      .Case("none", Int8DotKind::None)
      .Case("avx2", Int8DotKind::AVX2)
      .Case("vnni", Int8DotKind::VNNI)
      .Default(std::nullopt);
}

namespace {

using Intrinsic = IntrinsicSignature;

/// VPSIGNB (AVX2, so on every CPU of either kind): the signs of signed
/// weight codes moved onto x (applyWeightSigns).
Intrinsic getSignIntrinsic(Builder &b) {
  auto i8x32 = VectorType::get({kInt8DotBytes}, b.getI8Type());
  return {"llvm.x86.avx2.psign.b", b.getFunctionType({i8x32, i8x32}, i8x32)};
}

/// VPMADDUBSW then VPMADDWD (AVX2, so on every CPU of either kind): bytes
/// into int16 pair sums, then int16 pairs weighted and summed into int32.
std::array<Intrinsic, 2> getPairIntrinsics(Builder &b) {
  auto i8x32 = VectorType::get({kInt8DotBytes}, b.getI8Type());
  auto i16x16 = VectorType::get({kInt8DotBytes / 2}, b.getI16Type());
  auto i32x8 = VectorType::get({kInt8DotBytes / 4}, b.getI32Type());
  return {Intrinsic{"llvm.x86.avx2.pmadd.ub.sw",
                    b.getFunctionType({i8x32, i8x32}, i16x16)},
          Intrinsic{"llvm.x86.avx2.pmadd.wd",
                    b.getFunctionType({i16x16, i16x16}, i32x8)}};
}

/// The dot-product intrinsics of `kind` first (VPDPBUSD, or the pair
/// intrinsics in the order createInt8Dot calls them), then the pair
/// intrinsics (createWeightedInt8Dot) and VPSIGNB.
SmallVector<Intrinsic> getIntrinsics(Builder &b, Int8DotKind kind) {
  auto i8x32 = VectorType::get({kInt8DotBytes}, b.getI8Type());
  auto i32x8 = VectorType::get({kInt8DotBytes / 4}, b.getI32Type());
  std::array<Intrinsic, 2> pairs = getPairIntrinsics(b);
  switch (kind) {
  case Int8DotKind::None:
    return {};
  case Int8DotKind::VNNI:
    return {{"llvm.x86.avx512.vpdpbusd.256",
             b.getFunctionType({i32x8, i8x32, i8x32}, i32x8)},
            pairs[0], pairs[1], getSignIntrinsic(b)};
  case Int8DotKind::AVX2:
    return {pairs[0], pairs[1], getSignIntrinsic(b)};
  }
  llvm_unreachable("unknown int8 dot kind");
}

} // namespace

void llmc::declareInt8Dot(OpBuilder &b, Location loc, ModuleOp module,
                          Int8DotKind kind) {
  for (const Intrinsic &intrinsic : getIntrinsics(b, kind))
    declareIntrinsic(b, loc, module, intrinsic);
}

Int8DotKind llmc::findInt8Dot(ModuleOp module) {
  Builder b(module.getContext());
  for (Int8DotKind kind : {Int8DotKind::VNNI, Int8DotKind::AVX2})
    if (declaresIntrinsic(module, getIntrinsics(b, kind)[0].name))
      return kind;
  return Int8DotKind::None;
}

Value llmc::createInt8Dot(OpBuilder &b, Location loc, Int8DotKind kind,
                          Value unsignedBytes, Value signedBytes,
                          Value accumulator) {
  assert(kind != Int8DotKind::None && "no int8 dot instruction");
  if (kind == Int8DotKind::VNNI) {
    if (!accumulator) {
      auto i32x8 = VectorType::get({kInt8DotBytes / 4}, b.getI32Type());
      accumulator = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(i32x8, b.getI32IntegerAttr(0)));
    }
    return callIntrinsic(b, loc, getIntrinsics(b, kind)[0],
                         {accumulator, unsignedBytes, signedBytes});
  }
  // Pairs summed into int16 (saturating), then pairs of those into int32.
  auto i16x16 = VectorType::get({kInt8DotBytes / 2}, b.getI16Type());
  Value ones = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(i16x16, b.getI16IntegerAttr(1)));
  return createWeightedInt8Dot(b, loc, unsignedBytes, signedBytes, ones,
                               accumulator);
}

Value llmc::createWeightedInt8Dot(OpBuilder &b, Location loc,
                                  Value unsignedBytes, Value signedBytes,
                                  Value pairWeights, Value accumulator) {
  std::array<Intrinsic, 2> intrinsics = getPairIntrinsics(b);
  Value pairs =
      callIntrinsic(b, loc, intrinsics[0], {unsignedBytes, signedBytes});
  Value sums = callIntrinsic(b, loc, intrinsics[1], {pairs, pairWeights});
  return accumulator ? arith::AddIOp::create(b, loc, accumulator, sums)
                     : sums;
}

Value llmc::applyWeightSigns(OpBuilder &b, Location loc, Int8DotKind kind,
                             Value xBytes, Value weightBytes) {
  assert(kind != Int8DotKind::None && "no int8 dot instruction");
  return callIntrinsic(b, loc, getSignIntrinsic(b), {xBytes, weightBytes});
}
