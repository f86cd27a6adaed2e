// Small builders shared by the CPU lowering patterns (tensor creation, casts).
#include "codegen/cpu/LoweringUtils.h"
#include "codegen/common/Softcap.h"
#include "codegen/cpu/LLMToLinalg.h"
#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

Value llmc::mapElementsInPlace(
    OpBuilder &builder, Location loc, Value tensor,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type elementType = type.getElementType();
  Type computeType = getComputeType(elementType);
  AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             builder, loc, TypeRange{type}, ValueRange{}, ValueRange{tensor},
             ArrayRef<AffineMap>{identity}, parallel,
             [&](OpBuilder &b, Location l, ValueRange args) {
               Value value = fn(b, l, convertFloat(b, l, args[0], computeType));
               linalg::YieldOp::create(b, l,
                                       convertFloat(b, l, value, elementType));
             })
      .getResult(0);
}

Value llmc::softcapInPlace(OpBuilder &builder, Location loc, Value tensor,
                           std::optional<APFloat> cap) {
  if (!cap)
    return tensor;
  double value = cap->convertToDouble();
  return mapElementsInPlace(builder, loc, tensor,
                            [&](OpBuilder &b, Location l, Value z) {
                              return createSoftcap(b, l, z, value);
                            });
}

void llmc::addWeightStorageTypeConversion(TypeConverter &converter) {
  converter.addConversion([](RankedTensorType type) -> std::optional<Type> {
    RankedTensorType storage = llm::getWeightStorageType(type);
    if (storage == type)
      return std::nullopt;
    return storage;
  });
}

Value llmc::readWidenedRowVector(OpBuilder &builder, Location loc,
                                 Value source, Value row, Value column,
                                 Value mask, int64_t lanes) {
  Type elementType = cast<ShapedType>(source.getType()).getElementType();
  Value padding = arith::ConstantOp::create(
      builder, loc, builder.getFloatAttr(elementType, 0.0));
  Value vector = vector::TransferReadOp::create(
      builder, loc, VectorType::get({lanes}, elementType), source,
      ValueRange{row, column},
      AffineMap::getMinorIdentityMap(2, 1, builder.getContext()), padding,
      mask, builder.getBoolArrayAttr({true}));
  if (elementType.isF32())
    return vector;
  return arith::ExtFOp::create(
      builder, loc, VectorType::get({lanes}, builder.getF32Type()), vector);
}

void llmc::prefetchLine(OpBuilder &b, Location loc, Value buffer,
                        ValueRange indices) {
  // LLVM's locality hint 2: into L2 (and L3). Into L1 (3) the decode
  // GEMV's lines 16 KiB ahead evict x: TinyLlama-1.1B F16 decode 0.71x on
  // Zen 4 (bench/turns.c --decode, 40 rounds); non-temporal (0) 0.89x,
  // hint 1 the same as 2.
  constexpr int32_t kPrefetchLocality = 2;
  memref::PrefetchOp::create(b, loc, buffer, indices, /*isWrite=*/false,
                             kPrefetchLocality, /*isDataCache=*/true);
}

void llmc::prefetchLines(OpBuilder &b, Location loc, Value buffer,
                         ValueRange indices, int64_t bytes, Value lastColumn) {
  int64_t elementBytes =
      cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() / 8;
  SmallVector<Value> at(indices);
  Value column = indices.back();
  for (int64_t line = 0; line < bytes; line += kCacheLineBytes) {
    at.back() = b.createOrFold<arith::AddIOp>(
        loc, column, indexConstant(b, loc, line / elementBytes));
    if (lastColumn)
      at.back() = b.createOrFold<arith::MinUIOp>(loc, at.back(), lastColumn);
    prefetchLine(b, loc, buffer, at);
  }
}

SmallVector<Value> llmc::transposeRows(OpBuilder &b, Location loc,
                                       SmallVector<Value> rows) {
  int64_t n = rows.size();
  assert(llvm::isPowerOf2_64(n) && "a power of two");
  SmallVector<int64_t> low, high;
  for (int64_t k = 0; k < n / 2; ++k) {
    low.append({k, n + k});
    high.append({n / 2 + k, n + n / 2 + k});
  }
  for (int64_t round = 1; round < n; round *= 2) {
    SmallVector<Value> next(n);
    for (int64_t i = 0; i < n / 2; ++i) {
      next[2 * i] =
          vector::ShuffleOp::create(b, loc, rows[i], rows[i + n / 2], low);
      next[2 * i + 1] =
          vector::ShuffleOp::create(b, loc, rows[i], rows[i + n / 2], high);
    }
    rows = std::move(next);
  }
  return rows;
}
