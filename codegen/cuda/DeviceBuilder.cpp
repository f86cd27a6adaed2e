// Building blocks of kernel bodies: thread ids, warp and block reductions, float conversions.
#include "codegen/cuda/DeviceBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;

namespace llmc::cuda {

Value DeviceBuilder::threadId(gpu::Dimension dim) {
  return gpu::ThreadIdOp::create(b, loc, dim);
}

Value DeviceBuilder::blockId(gpu::Dimension dim) {
  return gpu::BlockIdOp::create(b, loc, dim);
}

Value DeviceBuilder::warpId() {
  return arith::DivUIOp::create(b, loc, threadId(), index(kWarpSize));
}

Value DeviceBuilder::laneId() {
  return arith::RemUIOp::create(b, loc, threadId(), index(kWarpSize));
}

Value DeviceBuilder::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value DeviceBuilder::f32(double value) {
  return arith::ConstantOp::create(b, loc, b.getF32Type(),
                                   b.getF32FloatAttr(value));
}

Value DeviceBuilder::i32(int32_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32Type(),
                                   b.getI32IntegerAttr(value));
}

Value DeviceBuilder::toF32(Value value) {
  Type type = value.getType();
  Type element = getElementTypeOrSelf(type);
  if (element.isF32())
    return value;
  Type target = b.getF32Type();
  if (auto vector = dyn_cast<VectorType>(type))
    target = vector.clone(target);
  return arith::ExtFOp::create(b, loc, target, value);
}

Value DeviceBuilder::fromF32(Value value, Type elementType) {
  Type type = value.getType();
  if (getElementTypeOrSelf(type) == elementType)
    return value;
  Type target = elementType;
  if (auto vector = dyn_cast<VectorType>(type))
    target = vector.clone(elementType);
  return arith::TruncFOp::create(b, loc, target, value);
}

Value DeviceBuilder::toIndex(Value value) {
  if (value.getType().isIndex())
    return value;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

Value DeviceBuilder::inverseSqrt(Value v) {
  Value root = LLVM::CallIntrinsicOp::create(
                   b, loc, v.getType(), b.getStringAttr("llvm.nvvm.sqrt.rn.f"),
                   ValueRange{v})
                   .getResult(0);
  return arith::DivFOp::create(b, loc, f32(1.0), root);
}

Value DeviceBuilder::combine(Value x, Value y, ReduceKind kind) {
  if (kind == ReduceKind::Sum)
    return arith::AddFOp::create(b, loc, x, y);
  return arith::MaximumFOp::create(b, loc, x, y);
}

Value DeviceBuilder::warpReduce(Value value, ReduceKind kind) {
  Value width = i32(kWarpSize);
  for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    auto shuffle = gpu::ShuffleOp::create(b, loc, value, i32(offset), width,
                                          gpu::ShuffleMode::XOR);
    value = combine(value, shuffle.getShuffleResult(), kind);
  }
  return value;
}

/// The alignment a vector access of `type` can claim: its size, capped at
/// the 16 bytes of the widest global access.
static llvm::Align getVectorAlignment(VectorType type) {
  int64_t bytes = type.getNumElements() *
                  type.getElementType().getIntOrFloatBitWidth() / 8;
  return llvm::Align(std::min<int64_t>(16, llvm::PowerOf2Ceil(bytes)));
}

Value DeviceBuilder::loadVector(VectorType type, Value buffer,
                                ValueRange indices) {
  return vector::LoadOp::create(b, loc, type, buffer, indices,
                                /*nontemporal=*/false, getVectorAlignment(type));
}

void DeviceBuilder::storeVector(Value vector, Value buffer, ValueRange indices) {
  vector::StoreOp::create(b, loc, vector, buffer, indices,
                          /*nontemporal=*/false,
                          getVectorAlignment(cast<VectorType>(vector.getType())));
}

void DeviceBuilder::barrier() { gpu::BarrierOp::create(b, loc); }

Value DeviceBuilder::blockReduce(Value value, ReduceKind kind, Value scratch,
                                 int64_t numWarps) {
  value = warpReduce(value, kind);
  if (numWarps == 1)
    return value;
  Value lane = laneId(), warp = warpId();
  Value zero = index(0);
  // Lane 0 of each warp publishes its warp's partial.
  Value isLaneZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  auto publish = scf::IfOp::create(b, loc, isLaneZero, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(publish.thenBlock());
    memref::StoreOp::create(b, loc, value, scratch, ValueRange{warp});
  }
  barrier();
  // Every warp reads the partials (lanes beyond numWarps read the identity)
  // and reduces them, so no second broadcast round is needed.
  double identity = kind == ReduceKind::Sum
                        ? 0.0
                        : -std::numeric_limits<double>::infinity();
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                        index(numWarps));
  Value safeLane = arith::SelectOp::create(b, loc, inRange, lane, zero);
  Value partial =
      memref::LoadOp::create(b, loc, scratch, ValueRange{safeLane});
  partial = arith::SelectOp::create(b, loc, inRange, partial, f32(identity));
  Value result = warpReduce(partial, kind);
  // The scratch buffer may be reused by the caller's next reduction.
  barrier();
  return result;
}

Value withDynamicRows(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.isDynamicDim(0))
    return buffer;
  auto dynamic = MemRefType::get({ShapedType::kDynamic, type.getDimSize(1)},
                                 type.getElementType());
  return memref::CastOp::create(b, loc, dynamic, buffer);
}

} // namespace llmc::cuda
