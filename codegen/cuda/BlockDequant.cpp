// Block-quantized weights in the CUDA kernels: aligned reads of a block's bytes and the decoders over them.
#include "codegen/cuda/BlockDequant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;

namespace llmc::cuda {

namespace {

/// The widest global access: 16 bytes (ld.global.v4.u32).
constexpr int64_t kMaxAlignment = 16;

/// The largest power of two dividing `value` (kMaxAlignment for 0), capped
/// at kMaxAlignment.
int64_t getPowerOfTwoDivisor(int64_t value) {
  if (value == 0)
    return kMaxAlignment;
  return std::min<int64_t>(kMaxAlignment, value & -value);
}

} // namespace

int64_t getBlockAlignment(llm::BlockQuantType format, int64_t rowBytes) {
  return getPowerOfTwoDivisor(std::gcd(rowBytes, format.getBlockBytes()));
}

BlockDecoder makeBlockDecoder(llm::BlockQuantType format, Value storage,
                              int64_t lanes) {
  int64_t rowBytes = cast<MemRefType>(storage.getType()).getDimSize(1);
  int64_t blockAlignment = getBlockAlignment(format, rowBytes);
  auto reader = [storage, blockAlignment](OpBuilder &b, Location loc,
                                          const BlockDecoder::Block &block,
                                          int64_t byte, int64_t count) {
    Value column = block.offset;
    if (byte)
      column = arith::AddIOp::create(
          b, loc, column, arith::ConstantIndexOp::create(b, loc, byte));
    int64_t alignment =
        std::min(blockAlignment, getPowerOfTwoDivisor(byte));
    return vector::LoadOp::create(
               b, loc, VectorType::get({count}, b.getI8Type()), storage,
               ValueRange{block.row, column}, /*nontemporal=*/false,
               llvm::Align(alignment))
        .getResult();
  };
  return BlockDecoder(format, storage, lanes, reader);
}

std::string getBlockTag(llm::BlockQuantType format) {
  return llm::stringifyBlockFormat(format.getFormat()).str();
}

} // namespace llmc::cuda
