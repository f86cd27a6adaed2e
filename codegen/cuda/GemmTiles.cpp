// GEMM operand tiles: guarded global → shared copies and the K loop over them.
#include "codegen/cuda/ProjectionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace llmc::cuda {

namespace {

/// Row and column inside the tile of this thread's `i`-th chunk.
std::pair<Value, Value> getChunkPosition(DeviceBuilder &d,
                                         const OperandTile &tile, int64_t i) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  int64_t chunksPerRow = tile.depth / tile.width;
  Value chunk =
      arith::AddIOp::create(b, loc, d.threadId(), d.index(i * tile.numThreads));
  Value row = arith::DivUIOp::create(b, loc, chunk, d.index(chunksPerRow));
  Value column = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, chunk, d.index(chunksPerRow)),
      d.index(tile.width));
  return {row, column};
}

/// `value` (a float vector) converted to `elementType`.
Value convertVector(DeviceBuilder &d, Value value, Type elementType) {
  auto type = cast<VectorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return d.fromF32(d.toF32(value), elementType);
}

} // namespace

SmallVector<Value> loadTile(DeviceBuilder &d, const OperandTile &tile,
                            Value k0) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  assert(tile.rows * tile.depth % (tile.width * tile.numThreads) == 0 &&
         "every thread copies the same number of chunks");
  Type elementType = cast<MemRefType>(tile.source.getType()).getElementType();
  auto type = VectorType::get({tile.width}, elementType);
  bool guardDepth = tile.k % tile.depth != 0;
  Value lastRow = tile.guardRows
                      ? arith::SubIOp::create(b, loc, tile.rowCount, d.index(1))
                      : Value();
  SmallVector<Value> chunks;
  for (int64_t i = 0, e = tile.getChunksPerThread(); i < e; ++i) {
    auto [row, column] = getChunkPosition(d, tile, i);
    Value globalRow = arith::AddIOp::create(b, loc, tile.firstRow, row);
    Value globalColumn = arith::AddIOp::create(b, loc, k0, column);
    // Chunks never straddle K (width divides it): each is all in or all out.
    // Out-of-range chunks read a clamped, valid address; the consumer
    // replaces them by zeros. No branch and no use of the value right after
    // the load, so the loads stay in flight while the CTA computes.
    Value valid = arith::ConstantIntOp::create(b, loc, 1, 1);
    if (tile.guardRows) {
      valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    globalRow, tile.rowCount);
      globalRow = arith::MinUIOp::create(b, loc, globalRow, lastRow);
    }
    if (guardDepth) {
      valid = arith::AndIOp::create(
          b, loc, valid,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, globalColumn,
                                d.index(tile.k)));
      globalColumn = arith::MinUIOp::create(b, loc, globalColumn,
                                            d.index(tile.k - tile.width));
    }
    chunks.push_back(
        d.loadVector(type, tile.source, {globalRow, globalColumn}));
    chunks.push_back(valid);
  }
  return chunks;
}

void storeTile(DeviceBuilder &d, const OperandTile &tile,
               ArrayRef<Value> chunks, Value shared, Value buffer,
               bool transposed) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Type sharedType = cast<MemRefType>(shared.getType()).getElementType();
  for (int64_t i = 0, e = tile.getChunksPerThread(); i < e; ++i) {
    auto [row, column] = getChunkPosition(d, tile, i);
    Value chunk = chunks[2 * i];
    auto type = cast<VectorType>(chunk.getType());
    Value zero = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type,
                               b.getFloatAttr(type.getElementType(), 0.0)));
    chunk = arith::SelectOp::create(b, loc, chunks[2 * i + 1], chunk, zero);
    Value converted = convertVector(d, chunk, sharedType);
    if (!transposed) {
      d.storeVector(converted, shared, {buffer, row, column});
      continue;
    }
    for (int64_t lane = 0; lane < tile.width; ++lane) {
      Value element = vector::ExtractOp::create(b, loc, converted, lane);
      Value depth = arith::AddIOp::create(b, loc, column, d.index(lane));
      memref::StoreOp::create(b, loc, element, shared,
                              ValueRange{buffer, depth, row});
    }
  }
}

SmallVector<Value> emitPipelinedKLoop(
    DeviceBuilder &d, int64_t numTiles, int64_t depth, ValueRange init,
    function_ref<SmallVector<Value>(Value)> load,
    function_ref<void(ArrayRef<Value>, Value)> store,
    function_ref<SmallVector<Value>(Value, ValueRange)> compute) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  static_assert(kSharedBuffers == 2, "the other buffer is 1 - current");
  // Prologue: tile 0 into buffer 0.
  store(load(d.index(0)), d.index(0));
  d.barrier();
  // Tiles 0 .. numTiles-2 each prefetch their successor into the other
  // buffer, which the CTA last read one tile earlier (before the barrier
  // that ended it). The last tile is peeled off, so the loop has no
  // condition on the prefetch.
  auto loop = scf::ForOp::create(
      b, loc, d.index(0), d.index(numTiles - 1), d.index(1), init,
      [&](OpBuilder &nb, Location nloc, Value tileIndex, ValueRange acc) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        Value next = arith::AddIOp::create(b, loc, tileIndex, d.index(1));
        SmallVector<Value> prefetched =
            load(arith::MulIOp::create(b, loc, next, d.index(depth)));
        Value current =
            arith::RemUIOp::create(b, loc, tileIndex, d.index(kSharedBuffers));
        SmallVector<Value> updated = compute(current, acc);
        store(prefetched, arith::SubIOp::create(b, loc, d.index(1), current));
        d.barrier();
        scf::YieldOp::create(b, loc, updated);
      });
  return compute(d.index((numTiles - 1) % kSharedBuffers), loop.getResults());
}

GemmBlock::GemmBlock(DeviceBuilder &d, const ProjectionOperands &operands,
                     int64_t n, int64_t k, GemmTileShape tile, int64_t xWidth,
                     int64_t weightWidth, int64_t numThreads) {
  OpBuilder &b = d.builder();
  Location l = d.location();
  rowCount = memref::DimOp::create(b, l, operands.x, 0);
  firstRow = arith::MulIOp::create(b, l, d.blockId(), d.index(tile.rows));
  firstColumn = arith::MulIOp::create(b, l, d.blockId(gpu::Dimension::y),
                                      d.index(tile.columns));
  x = OperandTile{operands.x, rowCount, /*guardRows=*/true,
                  firstRow,   tile.rows, tile.depth,
                  k,          xWidth,   numThreads};
  weight = OperandTile{operands.weight, d.index(n),  n % tile.columns != 0,
                       firstColumn,     tile.columns, tile.depth,
                       k,               weightWidth,  numThreads};
}

SmallVector<Value> GemmBlock::load(DeviceBuilder &d, Value k0) const {
  SmallVector<Value> values = loadTile(d, x, k0);
  llvm::append_range(values, loadTile(d, weight, k0));
  return values;
}

void GemmBlock::store(DeviceBuilder &d, ArrayRef<Value> chunks, Value sharedX,
                      Value sharedWeight, Value buffer, bool transposed) const {
  size_t xChunks = 2 * x.getChunksPerThread();
  storeTile(d, x, chunks.take_front(xChunks), sharedX, buffer, transposed);
  storeTile(d, weight, chunks.drop_front(xChunks), sharedWeight, buffer,
            transposed);
}

void launchGemmGrid(OpBuilder &builder, Location loc, gpu::GPUFuncOp kernel,
                    const ProjectionOperands &operands, int64_t n,
                    GemmTileShape tile, int64_t numThreads) {
  LaunchShape shape;
  Value rows = memref::DimOp::create(builder, loc, operands.x, 0);
  shape.grid[0] = ceilDiv(builder, loc, rows, tile.rows);
  shape.grid[1] = indexConstant(builder, loc, llvm::divideCeil(n, tile.columns));
  shape.block = {numThreads, 1, 1};
  SmallVector<Value> args = operands.getArgs();
  emitLaunch(builder, loc, kernel, shape, args);
}

} // namespace llmc::cuda
