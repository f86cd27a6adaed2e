// Small builders shared by the CPU lowering patterns (tensor creation, casts).
#include "codegen/cpu/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

SmallVector<Value> llmc::getDynamicExtents(OpBuilder &builder, Location loc,
                                           Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> extents;
  for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim)
    if (type.isDynamicDim(dim))
      extents.push_back(tensor::DimOp::create(builder, loc, tensor, dim));
  return extents;
}

Value llmc::createEmptyLike(OpBuilder &builder, Location loc,
                            RankedTensorType type, Value shapeSource) {
  return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                 type.getElementType(),
                                 getDynamicExtents(builder, loc, shapeSource));
}

Value llmc::createFilled(OpBuilder &builder, Location loc, Value init,
                         double value) {
  Type elementType = cast<RankedTensorType>(init.getType()).getElementType();
  Value constant = arith::ConstantOp::create(
      builder, loc, builder.getFloatAttr(elementType, value));
  return linalg::FillOp::create(builder, loc, constant, init).getResult(0);
}

Value llmc::indexConstant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

Value llmc::convertFloat(OpBuilder &builder, Location loc, Value scalar,
                         Type to) {
  Type from = scalar.getType();
  if (from == to)
    return scalar;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(builder, loc, to, scalar);
  return arith::TruncFOp::create(builder, loc, to, scalar);
}

Type llmc::getComputeType(Type elementType) {
  if (elementType.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(elementType.getContext());
  return elementType;
}
