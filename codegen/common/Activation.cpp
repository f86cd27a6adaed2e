// Scalar formulas of the FFN activations (silu, gelu, gelu_tanh, relu), shared by every target.
#include "codegen/common/Activation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace {
/// 1/√2: gelu's erf argument scale.
constexpr double kInvSqrt2 = 0.70710678118654752440;
/// √(2/π): the tanh approximation's argument scale.
constexpr double kSqrt2OverPi = 0.79788456080286535588;
/// The cubic coefficient of the tanh approximation of gelu.
constexpr double kGeluTanhCubic = 0.044715;

/// Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7, below f32 resolution of
/// erf's range): MLIR 22's convert-math-to-llvm has no math.erf lowering, so
/// the exact gelu is expanded here instead of needing libm in every pipeline.
constexpr double kErfP = 0.3275911;
constexpr double kErfA[] = {0.254829592, -0.284496736, 1.421413741,
                            -1.453152027, 1.061405429};

Value constantLike(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// erf(x) for an f32/f64 scalar by A&S 7.1.26 on |x|, sign restored with
/// copysign (erf is odd).
Value createErf(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  Value one = constantLike(b, loc, type, 1.0);
  Value ax = math::AbsFOp::create(b, loc, x);
  Value t = arith::DivFOp::create(
      b, loc, one,
      arith::AddFOp::create(
          b, loc, one,
          arith::MulFOp::create(b, loc, constantLike(b, loc, type, kErfP), ax)));
  // Horner: t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5)))).
  Value poly = constantLike(b, loc, type, kErfA[4]);
  for (int i = 3; i >= 0; --i)
    poly = arith::AddFOp::create(b, loc, constantLike(b, loc, type, kErfA[i]),
                                 arith::MulFOp::create(b, loc, t, poly));
  poly = arith::MulFOp::create(b, loc, t, poly);
  Value negSquare = arith::NegFOp::create(
      b, loc, arith::MulFOp::create(b, loc, ax, ax));
  Value tail =
      arith::MulFOp::create(b, loc, poly, math::ExpOp::create(b, loc, negSquare));
  Value magnitude = arith::SubFOp::create(b, loc, one, tail);
  return math::CopySignOp::create(b, loc, magnitude, x);
}

} // namespace

Value llmc::createActivation(OpBuilder &b, Location loc, llm::Activation activation,
                       Value x) {
  Type type = x.getType();
  switch (activation) {
  case llm::Activation::silu: {
    Value one = constantLike(b, loc, type, 1.0);
    // x · sigmoid(x) = x / (1 + exp(−x)).
    Value expNeg = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, x,
                                 arith::AddFOp::create(b, loc, one, expNeg));
  }
  case llm::Activation::gelu: {
    Value one = constantLike(b, loc, type, 1.0);
    Value half = constantLike(b, loc, type, 0.5);
    // 0.5·x·(1 + erf(x/√2)).
    Value scaled = arith::MulFOp::create(
        b, loc, x, constantLike(b, loc, type, kInvSqrt2));
    Value onePlus =
        arith::AddFOp::create(b, loc, one, createErf(b, loc, scaled));
    return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                                 onePlus);
  }
  case llm::Activation::gelu_tanh: {
    Value one = constantLike(b, loc, type, 1.0);
    Value half = constantLike(b, loc, type, 0.5);
    // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
    Value cube = arith::MulFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value inner = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, constantLike(b, loc, type, kGeluTanhCubic),
                              cube));
    Value tanh = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, constantLike(b, loc, type, kSqrt2OverPi),
                              inner));
    Value onePlus = arith::AddFOp::create(b, loc, one, tanh);
    return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                                 onePlus);
  }
  case llm::Activation::relu:
    // maximumf propagates NaN, as torch.relu does.
    return arith::MaximumFOp::create(b, loc, x,
                                     constantLike(b, loc, type, 0.0));
  }
  llvm_unreachable("unknown activation");
}

