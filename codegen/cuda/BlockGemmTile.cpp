// The dequantizing prologue of the tensor-core GEMM: block-quantized weight tiles decoded into f16 in shared memory.
#include "codegen/cuda/BlockDequant.h"
#include "codegen/cuda/ProjectionKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace llmc::cuda {

namespace {

/// Position of this thread's run of kBlockDecodeLanes elements in the tile:
/// run t covers row t / runsPerRow at column (t mod runsPerRow) · lanes.
std::pair<Value, Value> getRunPosition(DeviceBuilder &d,
                                       const BlockWeightTile &tile) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  int64_t runsPerRow = tile.depth / kBlockDecodeLanes;
  Value thread = d.threadId();
  Value row = arith::DivUIOp::create(b, loc, thread, d.index(runsPerRow));
  Value column = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, thread, d.index(runsPerRow)),
      d.index(kBlockDecodeLanes));
  return {row, column};
}

/// decoder.decode(block, first) for the run starting at element `first` of
/// the block (an index value): the decoder takes the element statically
/// (it picks the sub-block's scale and the codes' bit positions), so one
/// branch per possible run, the last one unconditional.
Value decodeRunAt(DeviceBuilder &d, const BlockDecoder &decoder,
                  const BlockDecoder::Block &block, Value first,
                  int64_t candidate) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  if (candidate + kBlockDecodeLanes >= decoder.getBlockElements())
    return decoder.decode(b, loc, block, candidate);
  Value matches = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        first, d.index(candidate));
  auto type = VectorType::get({kBlockDecodeLanes}, b.getF32Type());
  auto ifOp = scf::IfOp::create(b, loc, type, matches, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, decoder.decode(b, loc, block, candidate));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(
      b, loc,
      decodeRunAt(d, decoder, block, first, candidate + kBlockDecodeLanes));
  return ifOp.getResult(0);
}

} // namespace

SmallVector<Value> loadBlockTile(DeviceBuilder &d, const BlockWeightTile &tile,
                                 Value k0) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  assert(tile.rows * tile.depth == tile.numThreads * kBlockDecodeLanes &&
         "one run of decoded elements per thread");
  assert(tile.format.getBlockElements() % tile.depth == 0 &&
         "a stage lies in one block");
  auto [row, column] = getRunPosition(d, tile);
  Value globalRow = arith::AddIOp::create(b, loc, tile.firstRow, row);
  // Rows past N decode row N - 1, and the store writes zeros for them.
  Value valid = arith::ConstantIntOp::create(b, loc, 1, 1);
  if (tile.n % tile.rows != 0) {
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                  globalRow, d.index(tile.n));
    globalRow =
        arith::MinUIOp::create(b, loc, globalRow, d.index(tile.n - 1));
  }
  int64_t blockElements = tile.format.getBlockElements();
  Value element = arith::AddIOp::create(b, loc, k0, column);
  Value blockIndex =
      arith::DivUIOp::create(b, loc, element, d.index(blockElements));
  Value first = arith::RemUIOp::create(b, loc, element, d.index(blockElements));
  BlockDecoder decoder = makeBlockDecoder(tile.format, tile.source);
  BlockDecoder::Block block = decoder.loadBlock(b, loc, globalRow, blockIndex);
  Value values = decodeRunAt(d, decoder, block, first, 0);
  return {values, valid};
}

void storeBlockTile(DeviceBuilder &d, const BlockWeightTile &tile,
                    ArrayRef<Value> values, Value shared, Value buffer) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto [row, column] = getRunPosition(d, tile);
  Type sharedType = cast<MemRefType>(shared.getType()).getElementType();
  auto type = cast<VectorType>(values[0].getType());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0f)));
  Value run = arith::SelectOp::create(b, loc, values[1], values[0], zero);
  d.storeVector(d.fromF32(run, sharedType), shared, {buffer, row, column});
}

} // namespace llmc::cuda
