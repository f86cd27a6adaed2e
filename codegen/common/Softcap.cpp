// Softcapping (c · tanh(z / c)) of attention scores and logits, shared by every target.
#include "codegen/common/Softcap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace {
/// `value` as a constant of `type`: a scalar, or a splat vector.
Value constantLike(OpBuilder &b, Location loc, Type type, double value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            vector, b.getFloatAttr(vector.getElementType(), value)));
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}
} // namespace

Value llmc::createSoftcap(OpBuilder &b, Location loc, Value z, Value cap,
                          Value inverseCap) {
  // z · (1/cap): a multiply instead of a divide; the reciprocal's rounding
  // (≤ 0.5 ulp) is far below the tolerance of f32 scores.
  Value tanh =
      math::TanhOp::create(b, loc, arith::MulFOp::create(b, loc, z, inverseCap));
  return arith::MulFOp::create(b, loc, tanh, cap);
}

Value llmc::createSoftcap(OpBuilder &b, Location loc, Value z, double cap) {
  Type type = z.getType();
  Value inverseCap = constantLike(b, loc, type, 1.0 / cap);
  return createSoftcap(b, loc, z, constantLike(b, loc, type, cap), inverseCap);
}
