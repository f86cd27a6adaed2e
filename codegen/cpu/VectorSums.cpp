// Several 8-lane vectors' sums packed into one vector (the shuffles of VPHADDD
// / VHADDPS).
#include "codegen/cpu/VectorSums.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

Value add(OpBuilder &b, Location loc, Value u, Value v) {
  if (isa<IntegerType>(cast<VectorType>(u.getType()).getElementType()))
    return arith::AddIOp::create(b, loc, u, v);
  return arith::AddFOp::create(b, loc, u, v);
}

/// Per 128-bit half: u's two pair sums, then v's.
Value pairSums(OpBuilder &b, Location loc, Value u, Value v) {
  Value even = vector::ShuffleOp::create(
      b, loc, u, v, ArrayRef<int64_t>{0, 2, 8, 10, 4, 6, 12, 14});
  Value odd = vector::ShuffleOp::create(
      b, loc, u, v, ArrayRef<int64_t>{1, 3, 9, 11, 5, 7, 13, 15});
  return add(b, loc, even, odd);
}

} // namespace

Value llmc::packQuarterSums(OpBuilder &b, Location loc,
                            ArrayRef<Value> vectors) {
  assert(vectors.size() == 4 && "four vectors");
  return pairSums(b, loc, pairSums(b, loc, vectors[0], vectors[1]),
                  pairSums(b, loc, vectors[2], vectors[3]));
}

Value llmc::packLaneSums(OpBuilder &b, Location loc, ArrayRef<Value> vectors) {
  assert(vectors.size() == 8 && "eight vectors");
  // Lanes 0-3 and 4-7 of each: vectors 0-3's (or 4-7's) half sums.
  Value low = packQuarterSums(b, loc, vectors.take_front(4));
  Value high = packQuarterSums(b, loc, vectors.drop_front(4));
  Value firstHalves = vector::ShuffleOp::create(
      b, loc, low, high, ArrayRef<int64_t>{0, 1, 2, 3, 8, 9, 10, 11});
  Value secondHalves = vector::ShuffleOp::create(
      b, loc, low, high, ArrayRef<int64_t>{4, 5, 6, 7, 12, 13, 14, 15});
  return add(b, loc, firstHalves, secondHalves);
}
