// Block-quantized weights in the CUDA kernels: aligned reads of a planar block's bytes and the decoders over them.
#include "codegen/cuda/BlockDequant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace llmc::cuda {

namespace {

/// Bytes [byte, byte + count) of a planar weight's block: a load of the
/// aligned piece of its segment that holds them (as wide as the segment's
/// alignment, at most 16 bytes: a 32-element block's codes are one 128-bit
/// load, its scales one 16- or 32-bit load), then the bytes asked for. The
/// decodes of one block ask for pieces of the same loads, which CSE merges.
/// High bits are loaded as asked: each run of elements reads all of a
/// K-quant's high-bit bytes again (one bit of each), and whole 16-byte
/// pieces of them kept live spilled the two-row Q5_K GEMV. So is a read
/// that crosses a piece (a load per piece it touches), at the alignment its
/// offset in the segment allows.
Value readPlanarBytes(OpBuilder &b, Location loc, const BlockDecoder &layout,
                      Value storage, const BlockDecoder::Block &block,
                      int64_t byte, int64_t count) {
  llm::BlockQuantType::PlanarSegment segment =
      layout.getFormat().getPlanarSegment(byte, count);
  int64_t width = segment.getAlignment();
  int64_t offset = byte - segment.start;
  int64_t first = offset / width * width;
  // The storage's bytes as one array: planes do not follow its rows.
  Value bytes = memref::CollapseShapeOp::create(
      b, loc, storage, ArrayRef<ReassociationIndices>{{0, 1}});
  auto load = [&](int64_t at, int64_t size, int64_t alignment) {
    return vector::LoadOp::create(
               b, loc, VectorType::get({size}, b.getI8Type()), bytes,
               ValueRange{layout.getPlanarAddress(b, loc, block, at)},
               /*nontemporal=*/false, llvm::Align(alignment))
        .getResult();
  };
  if (segment.highBits || offset + count > first + width) {
    // The bytes as asked, one load per piece they touch (pieces of a block
    // are not adjacent), joined in order.
    Value joined;
    for (int64_t next = offset, end = offset + count; next < end;) {
      int64_t size = std::min(end, next / width * width + width) - next;
      joined = appendBytes(
          b, loc, joined,
          load(segment.start + next, size,
               next % width ? std::min(width, next & -next) : width));
      next += size;
    }
    return joined;
  }
  Value piece = load(segment.start + first, width, width);
  if (count == width)
    return piece;
  return vector::ExtractStridedSliceOp::create(
      b, loc, piece, ArrayRef<int64_t>{offset - first},
      ArrayRef<int64_t>{count}, ArrayRef<int64_t>{1});
}

} // namespace

BlockDecoder makeBlockDecoder(llm::BlockQuantType format, Value storage,
                              int64_t lanes) {
  assert(format.getPlanar() && "the CUDA kernels read planar block weights");
  BlockDecoder layout(format, storage, lanes);
  return BlockDecoder(format, storage, lanes,
                      [layout, storage](OpBuilder &b, Location loc,
                                        const BlockDecoder::Block &block,
                                        int64_t byte, int64_t count) {
                        return readPlanarBytes(b, loc, layout, storage, block,
                                               byte, count);
                      });
}

std::string getBlockTag(llm::BlockQuantType format) {
  return llm::stringifyBlockFormat(format.getFormat()).str();
}

} // namespace llmc::cuda
