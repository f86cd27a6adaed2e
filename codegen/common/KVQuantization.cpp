// The scalar formulas of a quantized KV cache: a head row's code factor and scale, int8 and fp8 e4m3 codes, and the bytes of the f32 scales.
#include "codegen/common/KVQuantization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cassert>

using namespace mlir;

namespace {

/// e4m3's largest finite value (0x7E): 1.75 · 2^8.
constexpr double kE4M3Max = 448.0;
/// Its smallest normal value, 2^-6, and the step of its subnormals, 2^-9.
constexpr double kE4M3MinNormal = 0x1p-6;
constexpr double kE4M3SubnormalStep = 0x1p-9;
/// f32's exponent bias minus e4m3's (127 − 7), and the f32 mantissa bits
/// below e4m3's three.
constexpr int64_t kExponentBiasDelta = 120;
constexpr int64_t kDroppedMantissaBits = 20;

struct I32 {
  OpBuilder &b;
  Location loc;
  Value constant(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value f32(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
};

Value encodeE4M3(OpBuilder &b, Location loc, Value scaled) {
  I32 c{b, loc};
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, scaled);
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c.constant(24)),
      c.constant(0x80));
  Value magnitude = arith::MinimumFOp::create(
      b, loc, math::AbsFOp::create(b, loc, scaled), c.f32(kE4M3Max));
  // Normal: round the f32 mantissa to three bits, ties to even (a carry
  // moves into the exponent), then rebias the exponent.
  Value magnitudeBits = arith::BitcastOp::create(b, loc, i32, magnitude);
  Value lowestKept = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, magnitudeBits,
                             c.constant(kDroppedMantissaBits)),
      c.constant(1));
  Value rounded = arith::AddIOp::create(
      b, loc, magnitudeBits,
      arith::AddIOp::create(
          b, loc, c.constant((int64_t{1} << (kDroppedMantissaBits - 1)) - 1),
          lowestKept));
  Value normal = arith::SubIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, rounded,
                             c.constant(kDroppedMantissaBits)),
      c.constant(kExponentBiasDelta << 3));
  // Subnormal: a multiple of 2^-9; a round up to 8 steps is 0x08, the
  // smallest normal.
  Value steps = arith::FPToSIOp::create(
      b, loc, i32,
      math::RoundEvenOp::create(
          b, loc,
          arith::MulFOp::create(b, loc, magnitude,
                                c.f32(1.0 / kE4M3SubnormalStep))));
  Value isSubnormal = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, magnitude, c.f32(kE4M3MinNormal));
  Value code = arith::SelectOp::create(b, loc, isSubnormal, steps, normal);
  code = arith::MinSIOp::create(b, loc, code, c.constant(0x7E));
  code = arith::OrIOp::create(b, loc, code, sign);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
}

Value decodeE4M3(OpBuilder &b, Location loc, Value code) {
  I32 c{b, loc};
  Type i32 = b.getI32Type();
  Value bits = arith::ExtUIOp::create(b, loc, i32, code);
  Value exponent = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c.constant(3)),
      c.constant(0xF));
  Value mantissa = arith::AndIOp::create(b, loc, bits, c.constant(7));
  Value normalBits = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, exponent,
                                c.constant(kExponentBiasDelta)),
          c.constant(23)),
      arith::ShLIOp::create(b, loc, mantissa,
                            c.constant(kDroppedMantissaBits)));
  Value normal = arith::BitcastOp::create(b, loc, b.getF32Type(), normalBits);
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::SIToFPOp::create(b, loc, b.getF32Type(), mantissa),
      c.f32(kE4M3SubnormalStep));
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            exponent, c.constant(0));
  Value magnitude =
      arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  Value negative = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, loc, bits, c.constant(0x80)), c.constant(0));
  return arith::SelectOp::create(
      b, loc, negative, arith::NegFOp::create(b, loc, magnitude), magnitude);
}

} // namespace

llmc::KVRowQuantization llmc::getKVRowQuantization(OpBuilder &b, Location loc,
                                                 Value largest,
                                                 double maxCode) {
  I32 c{b, loc};
  Value zero = c.f32(0.0);
  Value maxCodeValue = c.f32(maxCode);
  Value nonzero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, largest, zero);
  Value factor = arith::SelectOp::create(
      b, loc, nonzero, arith::DivFOp::create(b, loc, maxCodeValue, largest),
      zero);
  return {factor, arith::DivFOp::create(b, loc, largest, maxCodeValue)};
}

Value llmc::encodeKVCode(OpBuilder &b, Location loc, Value scaled,
                         Type codeType) {
  if (isa<Float8E4M3FNType>(codeType))
    return encodeE4M3(b, loc, scaled);
  assert(codeType.isSignlessInteger(8) && "KV codes are i8 or f8E4M3FN");
  I32 c{b, loc};
  Value rounded = math::RoundEvenOp::create(b, loc, scaled);
  rounded = arith::MaximumFOp::create(
      b, loc, arith::MinimumFOp::create(b, loc, rounded, c.f32(127.0)),
      c.f32(-127.0));
  Value code = arith::FPToSIOp::create(b, loc, b.getI32Type(), rounded);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
}

Value llmc::decodeKVCode(OpBuilder &b, Location loc, Value code,
                         Type codeType) {
  if (isa<Float8E4M3FNType>(codeType))
    return decodeE4M3(b, loc, code);
  assert(codeType.isSignlessInteger(8) && "KV codes are i8 or f8E4M3FN");
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), code);
}

Value llmc::getKVScaleByte(OpBuilder &b, Location loc, Value scale,
                           Value byteIndex) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, scale);
  Value shift = arith::MulIOp::create(
      b, loc, arith::IndexCastUIOp::create(b, loc, i32, byteIndex),
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(8)));
  return arith::TruncIOp::create(
      b, loc, b.getI8Type(), arith::ShRUIOp::create(b, loc, bits, shift));
}

Value llmc::assembleKVScale(OpBuilder &b, Location loc, ValueRange bytes) {
  Type i32 = b.getI32Type();
  Value bits;
  for (auto [index, byte] : llvm::enumerate(bytes)) {
    Value part = arith::ShLIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i32, byte),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(8 * index)));
    bits = bits ? arith::OrIOp::create(b, loc, bits, part).getResult() : part;
  }
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}
