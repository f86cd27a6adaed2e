// Dequantizes GGUF blocks into f32 vectors in registers, for the CPU and CUDA
// kernels that compute on them.
#ifndef LLMC_CODEGEN_COMMON_BLOCKDECODING_H
#define LLMC_CODEGEN_COMMON_BLOCKDECODING_H

#include "dialect/LLMTypes.h"

#include "mlir/IR/Builders.h"

#include <functional>

namespace llmc {

/// Reads the elements of a block-quantized weight from its bytes: the
/// tensor<N x rowBytes x i8> that `!llm.block<...>` weights lower to
/// (getBlockStorageType). A kernel first loads a block's scales (`loadBlock`,
/// scalar work once per block and row), then decodes `lanes` consecutive
/// elements at a time (`decode`): one vector read of the packed codes, integer
/// unpacking, one conversion to f32 and one FMA with the scale (and the
/// offset or min), so that the weights never exist dequantized in memory.
/// By default reads stay on the tensor (vector.transfer_read), like the CPU's
/// float kernels', so bufferization sees them where they happen; a ByteReader
/// replaces them (the CUDA kernels load from device buffers with the
/// alignment the block's position guarantees).
class BlockDecoder {
public:
  /// The scales of one block of one row, as f32 scalars.
  struct Block {
    /// The row of storage that holds the block: the weight row, or for an
    /// interleaved weight its group of rows.
    mlir::Value row;
    /// Byte offset of the block in that row (interleaved: of the group's
    /// block, all its rows' headers and codes); for a planar weight the
    /// block's number in the matrix, row · blocks per row + block.
    mlir::Value offset;
    /// Interleaved weights only: the weight row's place in its group.
    mlir::Value lane;
    /// Format-specific: multipliers and addends of each sub-block, the high
    /// bits of the 5-bit formats, the K-quants' d (and dmin) after their
    /// multipliers and addends.
    llvm::SmallVector<mlir::Value> params;
  };

  /// Bytes [byte, byte + count) of `block` (byte offsets within the block,
  /// the layout of the file's blocks) as a vector<count x i8>; for an
  /// interleaved weight the reads readBytes splits them into.
  using ByteReader =
      std::function<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                const Block &, int64_t byte, int64_t count)>;

  /// `lanes` must divide the 16-element halves of a 32-element chunk (4, 8 or
  /// 16), so that every decoded vector lies in one sub-block. Without
  /// `reader`, bytes are read from `storage` with vector.transfer_read (the
  /// file's rows or interleaved groups; a planar weight needs a reader).
  BlockDecoder(mlir::llm::BlockQuantType format, mlir::Value storage,
               int64_t lanes, ByteReader reader = {});

  mlir::llm::BlockQuantType getFormat() const { return format; }
  int64_t getBlockElements() const { return format.getBlockElements(); }
  int64_t getBlockBytes() const { return format.getBlockBytes(); }
  int64_t getLanes() const { return lanes; }

  /// The scales of block `block` (an index) of row `row`.
  Block loadBlock(mlir::OpBuilder &b, mlir::Location loc, mlir::Value row,
                  mlir::Value block) const;

  /// Elements [first, first + lanes) of `block` as a vector<lanes x f32>;
  /// `first` is a multiple of `lanes` below getBlockElements().
  mlir::Value decode(mlir::OpBuilder &b, mlir::Location loc, const Block &block,
                     int64_t first) const;

  /// Blocks per row of the matrix.
  int64_t getRowBlocks() const;
  /// A planar weight's byte `byte` of `block` (an offset in the file's
  /// block layout) as an offset into the storage's bytes taken as one
  /// array: its segment's plane, the run of that piece of every block in
  /// it, the block's piece, the byte in the piece.
  mlir::Value getPlanarAddress(mlir::OpBuilder &b, mlir::Location loc,
                               const Block &block, int64_t byte) const;

  /// Elements that share one multiplier and addend: 32, or 16 for q6_k.
  int64_t getScaleRun() const;
  /// Whether the codes are signed bytes (q8_0: value = d·code) rather than
  /// unsigned ones below 64 (value = code·multiplier + addend).
  bool hasSignedCodes() const;
  /// The multiplier and addend of element `element`'s scale run (the addend
  /// is null for signed codes).
  std::pair<mlir::Value, mlir::Value> getScale(const Block &block,
                                               int64_t element) const;
  /// Scale runs per block: 1 for the 32-element formats, 8 for q4_k and
  /// q5_k, 16 for q6_k.
  int64_t getRunsPerBlock() const { return getBlockElements() / getScaleRun(); }
  /// The multipliers and addends of all runs of `block`, as two
  /// vector<getRunsPerBlock() x f32> (the addends null for signed codes), so
  /// that a kernel scales whole vectors of runs at once. q6_k's 16 int8
  /// scales are converted in one vector, q4_k's and q5_k's 8 packed 6-bit
  /// scales and mins unpacked in vector ops; the 32-element formats gather
  /// the scalars loadBlock decoded.
  std::pair<mlir::Value, mlir::Value> getScaleVectors(mlir::OpBuilder &b,
                                                      mlir::Location loc,
                                                      const Block &block) const;
  /// The K-quants' integer scales of all runs of `block`, each a
  /// vector<getRunsPerBlock() x i32>: q6_k's 16 signed 8-bit scales sc_j
  /// (run j's multiplier d · sc_j, its addend -32 · d · sc_j); q4_k's and
  /// q5_k's 8 unsigned 6-bit scales sc_j and mins m_j (multiplier d · sc_j,
  /// addend -dmin · m_j; `mins` is null for q6_k). A kernel can weight the
  /// integer products of a run by sc_j and scale the block's sum by d once.
  struct IntegerScales {
    mlir::Value scales;
    mlir::Value mins;
  };
  IntegerScales getIntegerScales(mlir::OpBuilder &b, mlir::Location loc,
                                 const Block &block) const;
  /// getScaleVectors of a K-quant block whose integer scales a kernel has
  /// read already (getIntegerScales), for its integer products.
  std::pair<mlir::Value, mlir::Value>
  getScaleVectors(mlir::OpBuilder &b, mlir::Location loc, const Block &block,
                  const IntegerScales &integers) const;
  /// The K-quants' d: the f32 factor of every run's integer scale.
  mlir::Value getSuperBlockScale(const Block &block) const;
  /// The codes of elements [first, first + 32) as a vector<32xi8>, unpacked
  /// from their nibbles and high bits (what the int8 dot products multiply);
  /// `first` is a multiple of 32.
  mlir::Value decodeCodes(mlir::OpBuilder &b, mlir::Location loc,
                          const Block &block, int64_t first) const;

  /// Writes every element of `block` (block index `blockIndex` of its row)
  /// into row `destRow` of the 2-D memref `dest`, at the block's columns,
  /// converted to `dest`'s float element type.
  void decodeInto(mlir::OpBuilder &b, mlir::Location loc, const Block &block,
                  mlir::Value blockIndex, mlir::Value dest,
                  mlir::Value destRow) const;

private:
  /// `count` bytes of the block from byte `byte` on, as vector<count x i8>:
  /// one read of the row's bytes, or for an interleaved weight one per
  /// stretch its layout keeps together (the header, each run of 4 codes).
  mlir::Value readBytes(mlir::OpBuilder &b, mlir::Location loc,
                        const Block &block, int64_t byte, int64_t count) const;
  /// One contiguous read of `count` bytes at `column` of the block's row of
  /// storage.
  mlir::Value readStorage(mlir::OpBuilder &b, mlir::Location loc,
                          const Block &block, mlir::Value column,
                          int64_t count) const;
  /// The 4-bit codes of elements [first, first + lanes) of a run of packed
  /// bytes at `byte` that holds `run` elements in its low nibbles, then `run`
  /// in its high ones (ggml's layout), zero-extended to i32.
  mlir::Value readNibbles(mlir::OpBuilder &b, mlir::Location loc,
                          const Block &block, int64_t byte, int64_t run,
                          int64_t first) const;

  mlir::llm::BlockQuantType format;
  mlir::Value storage;
  int64_t lanes;
  ByteReader reader;
};

/// `bytes` followed by `more` (two vector<n x i8>) in one vector, or `more`
/// when `bytes` is null: the pieces of one read, joined in order.
mlir::Value appendBytes(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value bytes, mlir::Value more);

} // namespace llmc

#endif // LLMC_CODEGEN_COMMON_BLOCKDECODING_H
