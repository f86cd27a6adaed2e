// Dequantizes GGUF blocks into f32 vectors in registers, for the CPU kernels
// that compute on them.
//
// Layouts (ggml's block structs; byte offsets within one block, codes packed
// as ggml packs them):
//   q8_0  d f16 @0, 32 x int8 @2                           value d·q
//   q4_0  d @0, 16 bytes @2: elements 0-15 low nibbles,     d·(q - 8)
//         16-31 high nibbles
//   q4_1  d @0, m @2, nibbles @4                            d·q + m
//   q5_0  d @0, u32 qh @2 (bit e: bit 4 of element e),      d·(q - 16)
//         nibbles @6
//   q5_1  d @0, m @2, qh @4, nibbles @8                     d·q + m
//   q4_k  d @0, dmin @2, 12 bytes of 6-bit scales/mins @4,  d·sc_j·q - dmin·m_j
//         nibbles @16: 32 bytes per 64 elements (low: the
//         first 32, high: the next 32); j = element / 32
//   q5_k  as q4_k, qh @16 (32 bytes; bit j of byte e % 32:
//         bit 4 of element e), nibbles @48
//   q6_k  ql @0: 64 bytes per 128 elements (low nibbles:    d·sc_i·(q - 32)
//         the first 64, high: the next 64), qh @128: 32
//         bytes per 128 (bits 2g, 2g+1 of byte e % 32:
//         bits 4-5 of element 32g + e % 32), int8 sc @192
//         (i = element / 16), d @208
#include "codegen/common/BlockDecoding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;
using namespace llmc;
using llm::BlockFormat;

namespace {

/// Elements that share a scale in the 32-element formats and the K-quants'
/// sub-blocks (Q6_K halves them).
constexpr int64_t kChunk = 32;
constexpr int64_t kQ6KScaleRun = 16;
/// Code offsets: q4_0 and q5_0 store q + 8 and q + 16, q6_k q + 32.
constexpr double kQ4_0Offset = 8, kQ5_0Offset = 16, kQ6_KOffset = 32;

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

/// vector<lanes x i32> with every lane `value`.
Value i32Splat(OpBuilder &b, Location loc, int64_t lanes, int64_t value) {
  auto type = VectorType::get({lanes}, b.getI32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(value)));
}

/// (v >> shift) & mask, on scalars or vectors of i32 (`constant` builds the
/// operands' constants).
template <typename MakeConstant>
Value bitField(OpBuilder &b, Location loc, Value v, int64_t shift, int64_t mask,
               MakeConstant constant) {
  if (shift)
    v = arith::ShRUIOp::create(b, loc, v, constant(shift));
  return arith::AndIOp::create(b, loc, v, constant(mask));
}

/// Byte `index` of the vector<n x i8> `bytes`, zero-extended to i32.
Value byteAt(OpBuilder &b, Location loc, Value bytes, int64_t index) {
  Value byte = vector::ExtractOp::create(b, loc, bytes, index);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), byte);
}

/// vector<n x i8> `bytes` reinterpreted as one `type` scalar (f16, i32).
Value bitcastScalar(OpBuilder &b, Location loc, Value bytes, Type type) {
  Value cast =
      vector::BitCastOp::create(b, loc, VectorType::get({1}, type), bytes);
  return vector::ExtractOp::create(b, loc, cast, 0);
}

} // namespace

Value llmc::appendBytes(OpBuilder &b, Location loc, Value bytes, Value more) {
  if (!bytes)
    return more;
  int64_t size = cast<VectorType>(bytes.getType()).getNumElements() +
                 cast<VectorType>(more.getType()).getNumElements();
  SmallVector<int64_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  return vector::ShuffleOp::create(b, loc, bytes, more, order);
}

BlockDecoder::BlockDecoder(llm::BlockQuantType format, Value storage,
                           int64_t lanes, ByteReader reader)
    : format(format), storage(storage), lanes(lanes),
      reader(std::move(reader)) {
  assert(kQ6KScaleRun % lanes == 0 && "decoded vectors must not span scales");
}

Value BlockDecoder::readStorage(OpBuilder &b, Location loc, const Block &block,
                                Value column, int64_t count) const {
  Value padding = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
  return vector::TransferReadOp::create(
      b, loc, VectorType::get({count}, b.getI8Type()), storage,
      ValueRange{block.row, column},
      AffineMap::getMinorIdentityMap(2, 1, b.getContext()), padding,
      /*mask=*/Value(), b.getBoolArrayAttr({true}));
}

Value BlockDecoder::readBytes(OpBuilder &b, Location loc, const Block &block,
                              int64_t byte, int64_t count) const {
  if (reader)
    return reader(b, loc, block, byte, count);
  assert(!format.getPlanar() &&
         "planar weights are read through a ByteReader (getPlanarAddress)");
  auto at = [&](Value base, int64_t bytes) {
    return bytes ? b.createOrFold<arith::AddIOp>(loc, base,
                                                 indexConstant(b, loc, bytes))
                 : base;
  };
  if (!format.isInterleaved())
    return readStorage(b, loc, block, at(block.offset, byte), count);
  // The group's block: its rows' headers (lane · header bytes on), then per
  // run of 4 code bytes the runs of all rows (lane · 4 on).
  int64_t rows = format.getInterleave(), header = format.getHeaderBytes();
  auto laneTimes = [&](int64_t bytes) {
    return b.createOrFold<arith::MulIOp>(loc, block.lane,
                                         indexConstant(b, loc, bytes));
  };
  // The pieces, appended to the bytes read so far (one vector.shuffle of
  // the two each).
  Value bytes;
  for (int64_t next = byte, end = byte + count; next < end;) {
    int64_t size;
    Value column;
    if (next < header) {
      size = std::min(end, header) - next;
      column = at(b.createOrFold<arith::AddIOp>(loc, block.offset,
                                                laneTimes(header)),
                  next);
    } else {
      int64_t code = next - header, run = code / 4;
      size = std::min(end - next, 4 - code % 4);
      column = at(b.createOrFold<arith::AddIOp>(loc, block.offset,
                                                laneTimes(4)),
                  rows * header + run * rows * 4 + code % 4);
    }
    bytes =
        appendBytes(b, loc, bytes, readStorage(b, loc, block, column, size));
    next += size;
  }
  return bytes;
}

int64_t BlockDecoder::getRowBlocks() const {
  return cast<ShapedType>(storage.getType()).getDimSize(1) /
         format.getBlockBytes();
}

Value BlockDecoder::getPlanarAddress(OpBuilder &b, Location loc,
                                     const Block &block, int64_t byte) const {
  assert(format.getPlanar() && "only planar weights have plane addresses");
  llm::BlockQuantType::PlanarSegment segment =
      format.getPlanarSegment(byte, 1);
  int64_t blocks = cast<ShapedType>(storage.getType()).getDimSize(0) *
                   getRowBlocks();
  // Piece `piece` of every block lies together in the segment's plane.
  int64_t width = segment.getAlignment();
  int64_t piece = (byte - segment.start) / width;
  Value start = b.createOrFold<arith::MulIOp>(loc, block.offset,
                                              indexConstant(b, loc, width));
  return b.createOrFold<arith::AddIOp>(
      loc, start,
      indexConstant(b, loc,
                    blocks * (segment.planeOffset + piece * width) +
                        (byte - segment.start) % width));
}

Value BlockDecoder::readNibbles(OpBuilder &b, Location loc, const Block &block,
                                int64_t byte, int64_t run,
                                int64_t first) const {
  bool high = first >= run;
  Value bytes = readBytes(b, loc, block, byte + first % run, lanes);
  Value codes = arith::ExtUIOp::create(
      b, loc, VectorType::get({lanes}, b.getI32Type()), bytes);
  auto splat = [&](int64_t v) { return i32Splat(b, loc, lanes, v); };
  if (high)
    return arith::ShRUIOp::create(b, loc, codes, splat(4));
  return arith::AndIOp::create(b, loc, codes, splat(0xf));
}

BlockDecoder::Block BlockDecoder::loadBlock(OpBuilder &b, Location loc,
                                            Value row, Value blockIndex) const {
  Block block;
  block.row = row;
  int64_t rows = format.getInterleave();
  if (rows > 1) {
    block.row = b.createOrFold<arith::DivUIOp>(loc, row,
                                               indexConstant(b, loc, rows));
    block.lane = b.createOrFold<arith::RemUIOp>(loc, row,
                                                indexConstant(b, loc, rows));
  }
  if (format.getPlanar()) {
    // The block's number in the whole matrix (row-major).
    block.offset = b.createOrFold<arith::AddIOp>(
        loc,
        b.createOrFold<arith::MulIOp>(loc, row,
                                      indexConstant(b, loc, getRowBlocks())),
        blockIndex);
  } else {
    block.offset = b.createOrFold<arith::MulIOp>(
        loc, blockIndex, indexConstant(b, loc, rows * format.getBlockBytes()));
  }
  auto f16At = [&](int64_t byte) {
    Value half = bitcastScalar(b, loc, readBytes(b, loc, block, byte, 2),
                               b.getF16Type());
    return arith::ExtFOp::create(b, loc, b.getF32Type(), half).getResult();
  };
  auto u32At = [&](int64_t byte) {
    return bitcastScalar(b, loc, readBytes(b, loc, block, byte, 4),
                         b.getI32Type());
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulFOp::create(b, loc, x, y).getResult();
  };
  auto toF32 = [&](Value i) {
    return arith::SIToFPOp::create(b, loc, b.getF32Type(), i).getResult();
  };
  auto c32 = [&](int64_t v) { return i32Constant(b, loc, v); };
  SmallVector<Value> &p = block.params;
  switch (format.getFormat()) {
  case BlockFormat::q8_0:
    p = {f16At(0)};
    break;
  case BlockFormat::q4_0: {
    Value d = f16At(0);
    p = {d, mul(d, f32Constant(b, loc, -kQ4_0Offset))};
    break;
  }
  case BlockFormat::q4_1:
    p = {f16At(0), f16At(2)};
    break;
  case BlockFormat::q5_0: {
    Value d = f16At(0);
    p = {d, mul(d, f32Constant(b, loc, -kQ5_0Offset)), u32At(2)};
    break;
  }
  case BlockFormat::q5_1:
    p = {f16At(0), f16At(2), u32At(4)};
    break;
  case BlockFormat::q4_k:
  case BlockFormat::q5_k: {
    // Sub-block j's 6-bit scale and min: j < 4 in the low 6 bits of bytes
    // j and j + 4; j >= 4 in the nibbles of byte j + 4, topped by the two
    // high bits of bytes j - 4 and j.
    Value d = f16At(0), dmin = f16At(2);
    Value scales = readBytes(b, loc, block, 4, 12);
    SmallVector<Value> mins;
    for (int64_t j = 0; j < 8; ++j) {
      Value scale, min;
      if (j < 4) {
        scale = bitField(b, loc, byteAt(b, loc, scales, j), 0, 0x3f, c32);
        min = bitField(b, loc, byteAt(b, loc, scales, j + 4), 0, 0x3f, c32);
      } else {
        Value packed = byteAt(b, loc, scales, j + 4);
        auto top = [&](int64_t index) {
          Value bits =
              bitField(b, loc, byteAt(b, loc, scales, index), 6, 3, c32);
          return arith::ShLIOp::create(b, loc, bits, c32(4)).getResult();
        };
        scale = arith::OrIOp::create(
            b, loc, bitField(b, loc, packed, 0, 0xf, c32), top(j - 4));
        min = arith::OrIOp::create(
            b, loc, bitField(b, loc, packed, 4, 0xf, c32), top(j));
      }
      p.push_back(mul(d, toF32(scale)));
      mins.push_back(
          arith::NegFOp::create(b, loc, mul(dmin, toF32(min))).getResult());
    }
    p.append(mins);
    p.append({d, dmin}); // for getScaleVectors
    break;
  }
  case BlockFormat::q6_k: {
    Value d = f16At(208);
    Value scales = readBytes(b, loc, block, 192, 16);
    SmallVector<Value> offsets;
    for (int64_t i = 0; i < 16; ++i) {
      Value scale = arith::ExtSIOp::create(
          b, loc, b.getI32Type(), vector::ExtractOp::create(b, loc, scales, i));
      Value multiplier = mul(d, toF32(scale));
      p.push_back(multiplier);
      offsets.push_back(mul(multiplier, f32Constant(b, loc, -kQ6_KOffset)));
    }
    p.append(offsets);
    p.push_back(d); // for getScaleVectors
    break;
  }
  }
  return block;
}

Value BlockDecoder::decode(OpBuilder &b, Location loc, const Block &block,
                           int64_t first) const {
  auto i32Vector = VectorType::get({lanes}, b.getI32Type());
  auto f32Vector = VectorType::get({lanes}, b.getF32Type());
  auto splat = [&](int64_t v) { return i32Splat(b, loc, lanes, v); };
  auto broadcast = [&](Value scalar) {
    return vector::BroadcastOp::create(b, loc, f32Vector, scalar).getResult();
  };
  /// code · multiplier + addend, the codes converted to f32.
  auto scaled = [&](Value codes, Value multiplier, Value addend) {
    Value values = arith::SIToFPOp::create(b, loc, f32Vector, codes);
    return vector::FMAOp::create(b, loc, values, broadcast(multiplier),
                                 broadcast(addend))
        .getResult();
  };
  /// Bit 4 of elements [first, first + lanes) from the u32 `qh`: bit e of
  /// qh belongs to element e.
  auto highBitsOfWord = [&](Value qh) {
    SmallVector<int32_t> shifts;
    for (int64_t l = 0; l < lanes; ++l)
      shifts.push_back(static_cast<int32_t>(first + l));
    Value shift = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i32Vector, ArrayRef<int32_t>(shifts)));
    Value bits = vector::BroadcastOp::create(b, loc, i32Vector, qh);
    bits = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bits, shift), splat(1));
    return arith::ShLIOp::create(b, loc, bits, splat(4)).getResult();
  };
  /// (byte >> shift) & mask of `lanes` bytes from `byte` on, moved to bit 4.
  auto highBitsOfBytes = [&](int64_t byte, int64_t shift, int64_t mask) {
    Value bytes = arith::ExtUIOp::create(b, loc, i32Vector,
                                         readBytes(b, loc, block, byte, lanes));
    Value bits = bitField(b, loc, bytes, shift, mask, splat);
    return arith::ShLIOp::create(b, loc, bits, splat(4)).getResult();
  };
  auto orI = [&](Value x, Value y) {
    return arith::OrIOp::create(b, loc, x, y).getResult();
  };
  ArrayRef<Value> p = block.params;
  auto [multiplier, addend] = getScale(block, first);
  switch (format.getFormat()) {
  case BlockFormat::q8_0: {
    Value codes = arith::ExtSIOp::create(
        b, loc, i32Vector, readBytes(b, loc, block, 2 + first, lanes));
    Value values = arith::SIToFPOp::create(b, loc, f32Vector, codes);
    return arith::MulFOp::create(b, loc, values, broadcast(multiplier));
  }
  case BlockFormat::q4_0:
    return scaled(readNibbles(b, loc, block, 2, 16, first), multiplier, addend);
  case BlockFormat::q4_1:
    return scaled(readNibbles(b, loc, block, 4, 16, first), multiplier, addend);
  case BlockFormat::q5_0:
    return scaled(
        orI(readNibbles(b, loc, block, 6, 16, first), highBitsOfWord(p[2])),
        multiplier, addend);
  case BlockFormat::q5_1:
    return scaled(
        orI(readNibbles(b, loc, block, 8, 16, first), highBitsOfWord(p[2])),
        multiplier, addend);
  case BlockFormat::q4_k: {
    int64_t j = first / kChunk;
    Value codes = readNibbles(b, loc, block, 16 + j / 2 * kChunk, kChunk,
                              first % (2 * kChunk));
    return scaled(codes, multiplier, addend);
  }
  case BlockFormat::q5_k: {
    int64_t j = first / kChunk;
    Value codes = orI(readNibbles(b, loc, block, 48 + j / 2 * kChunk, kChunk,
                                  first % (2 * kChunk)),
                      highBitsOfBytes(16 + first % kChunk, j, 1));
    return scaled(codes, multiplier, addend);
  }
  case BlockFormat::q6_k: {
    int64_t half = first / (4 * kChunk), group = first / kChunk % 4;
    Value codes = orI(
        readNibbles(b, loc, block, half * 2 * kChunk, 2 * kChunk,
                    first % (4 * kChunk)),
        highBitsOfBytes(128 + half * kChunk + first % kChunk, 2 * group, 3));
    return scaled(codes, multiplier, addend);
  }
  }
  llvm_unreachable("unknown block format");
}

int64_t BlockDecoder::getScaleRun() const {
  return format.getFormat() == BlockFormat::q6_k ? kQ6KScaleRun : kChunk;
}

bool BlockDecoder::hasSignedCodes() const {
  return format.getFormat() == BlockFormat::q8_0;
}

std::pair<Value, Value> BlockDecoder::getScale(const Block &block,
                                               int64_t element) const {
  ArrayRef<Value> p = block.params;
  switch (format.getFormat()) {
  case BlockFormat::q8_0:
    return {p[0], Value()};
  case BlockFormat::q4_0:
  case BlockFormat::q4_1:
  case BlockFormat::q5_0:
  case BlockFormat::q5_1:
    return {p[0], p[1]};
  case BlockFormat::q4_k:
  case BlockFormat::q5_k:
    return {p[element / kChunk], p[8 + element / kChunk]};
  case BlockFormat::q6_k:
    return {p[element / kQ6KScaleRun], p[16 + element / kQ6KScaleRun]};
  }
  llvm_unreachable("unknown block format");
}

BlockDecoder::IntegerScales
BlockDecoder::getIntegerScales(OpBuilder &b, Location loc,
                               const Block &block) const {
  int64_t runs = getRunsPerBlock();
  auto i32Type = VectorType::get({runs}, b.getI32Type());
  if (format.getFormat() == BlockFormat::q6_k)
    return {arith::ExtSIOp::create(b, loc, i32Type,
                                   readBytes(b, loc, block, 192, runs)),
            Value()};
  assert((format.getFormat() == BlockFormat::q4_k ||
          format.getFormat() == BlockFormat::q5_k) &&
         "a K-quant");
  // loadBlock's 8 scales and mins, each lane one sub-block j: the 12 bytes
  // b at byte 4 hold sc_j = b[j] & 63 and m_j = b[j + 4] & 63 for j < 4;
  // for j >= 4, sc_j = (b[j + 4] & 15) | (b[j - 4] >> 6) << 4 and m_j =
  // (b[j + 4] >> 4) | (b[j] >> 6) << 4. Per lane: low bits (shifted,
  // masked) of one byte, or'ed with the top two bits of another (masked
  // off in lanes 0-3).
  Value bytes = readBytes(b, loc, block, 4, 12);
  auto lanesOf = [&](ArrayRef<int64_t> picks) -> Value {
    Value picked = vector::ShuffleOp::create(b, loc, bytes, bytes, picks);
    return arith::ExtUIOp::create(b, loc, i32Type, picked);
  };
  auto constants = [&](ArrayRef<int32_t> values) -> Value {
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(i32Type, values));
  };
  Value topMask = constants({0, 0, 0, 0, 3, 3, 3, 3});
  auto unpack = [&](ArrayRef<int64_t> lowBytes, ArrayRef<int32_t> shifts,
                    ArrayRef<int64_t> topBytes) -> Value {
    Value low = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, lanesOf(lowBytes), constants(shifts)),
        constants({63, 63, 63, 63, 15, 15, 15, 15}));
    Value top = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, lanesOf(topBytes),
                               i32Splat(b, loc, runs, 6)),
        topMask);
    Value topShifted =
        arith::ShLIOp::create(b, loc, top, i32Splat(b, loc, runs, 4));
    return arith::OrIOp::create(b, loc, low, topShifted);
  };
  return {unpack({0, 1, 2, 3, 8, 9, 10, 11}, {0, 0, 0, 0, 0, 0, 0, 0},
                 {0, 1, 2, 3, 0, 1, 2, 3}),
          unpack({4, 5, 6, 7, 8, 9, 10, 11}, {0, 0, 0, 0, 4, 4, 4, 4},
                 {4, 5, 6, 7, 4, 5, 6, 7})};
}

Value BlockDecoder::getSuperBlockScale(const Block &block) const {
  assert(getRunsPerBlock() > 1 && "a K-quant");
  // loadBlock appends d (and dmin) after the runs' multipliers and addends.
  return block.params[2 * getRunsPerBlock()];
}

std::pair<Value, Value>
BlockDecoder::getScaleVectors(OpBuilder &b, Location loc, const Block &block,
                              const IntegerScales &integers) const {
  // The integer scales times d (and the mins times -dmin, or the
  // multipliers times -32 for q6_k), in vector ops: what loadBlock's
  // scalars compute one at a time.
  int64_t runs = getRunsPerBlock();
  assert(runs > 1 && "a K-quant");
  auto vectorType = VectorType::get({runs}, b.getF32Type());
  auto broadcast = [&](Value scalar) -> Value {
    return vector::BroadcastOp::create(b, loc, vectorType, scalar);
  };
  Value multipliers = arith::MulFOp::create(
      b, loc, arith::SIToFPOp::create(b, loc, vectorType, integers.scales),
      broadcast(getSuperBlockScale(block)));
  if (!integers.mins)
    return {multipliers,
            arith::MulFOp::create(b, loc, multipliers,
                                  broadcast(f32Constant(b, loc, -kQ6_KOffset)))};
  Value dmin = broadcast(block.params[2 * runs + 1]);
  return {multipliers,
          arith::NegFOp::create(
              b, loc,
              arith::MulFOp::create(
                  b, loc,
                  arith::SIToFPOp::create(b, loc, vectorType, integers.mins),
                  dmin))};
}

std::pair<Value, Value>
BlockDecoder::getScaleVectors(OpBuilder &b, Location loc,
                              const Block &block) const {
  int64_t runs = getRunsPerBlock();
  if (runs > 1)
    return getScaleVectors(b, loc, block, getIntegerScales(b, loc, block));
  auto vectorType = VectorType::get({runs}, b.getF32Type());
  SmallVector<Value> multipliers, addends;
  for (int64_t run = 0; run < runs; ++run) {
    auto [multiplier, addend] = getScale(block, run * getScaleRun());
    multipliers.push_back(multiplier);
    addends.push_back(addend);
  }
  Value addendVector;
  if (addends.front())
    addendVector = vector::FromElementsOp::create(b, loc, vectorType, addends);
  return {vector::FromElementsOp::create(b, loc, vectorType, multipliers),
          addendVector};
}

Value BlockDecoder::decodeCodes(OpBuilder &b, Location loc, const Block &block,
                                int64_t first) const {
  assert(first % kChunk == 0 && "codes are decoded 32 at a time");
  auto bytesType = VectorType::get({kChunk}, b.getI8Type());
  auto splat = [&](int64_t v) {
    return arith::ConstantOp::create(
               b, loc, DenseElementsAttr::get(bytesType, b.getI8IntegerAttr(v)))
        .getResult();
  };
  auto andI = [&](Value x, int64_t mask) {
    return arith::AndIOp::create(b, loc, x, splat(mask)).getResult();
  };
  auto shr = [&](Value x, int64_t shift) {
    return shift ? arith::ShRUIOp::create(b, loc, x, splat(shift)).getResult()
                 : x;
  };
  auto orI = [&](Value x, Value y) {
    return arith::OrIOp::create(b, loc, x, y).getResult();
  };
  /// 16 bytes at `byte`: their low nibbles, then their high ones.
  auto splitNibbles = [&](int64_t byte) {
    Value bytes = readBytes(b, loc, block, byte, kChunk / 2);
    auto halfType = VectorType::get({kChunk / 2}, b.getI8Type());
    Value mask = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(halfType, b.getI8IntegerAttr(0xf)));
    Value four = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(halfType, b.getI8IntegerAttr(4)));
    Value low = arith::AndIOp::create(b, loc, bytes, mask);
    Value high = arith::ShRUIOp::create(b, loc, bytes, four);
    SmallVector<int64_t> order(kChunk);
    std::iota(order.begin(), order.end(), 0);
    return vector::ShuffleOp::create(b, loc, low, high, order).getResult();
  };
  /// Bit 4 of each element from the u32 `qh` (bit e: element e): each
  /// byte of qh spread over its 8 elements, tested against its bit.
  auto highBitsOfWord = [&](Value qh) {
    Value word = vector::BroadcastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), qh);
    Value bytes = vector::BitCastOp::create(
        b, loc, VectorType::get({4}, b.getI8Type()), word);
    SmallVector<int64_t> spread;
    SmallVector<int8_t> bits;
    for (int64_t e = 0; e < kChunk; ++e) {
      spread.push_back(e / 8);
      bits.push_back(static_cast<int8_t>(1u << (e % 8)));
    }
    Value spreadBytes = vector::ShuffleOp::create(b, loc, bytes, bytes, spread);
    Value bitMask = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(bytesType, ArrayRef<int8_t>(bits)));
    Value set = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, spreadBytes, bitMask), splat(0));
    return arith::SelectOp::create(b, loc, set, splat(16), splat(0))
        .getResult();
  };
  /// ((bytes at `byte`) >> shift) & mask, moved to bit 4.
  auto highBitsOfBytes = [&](int64_t byte, int64_t shift, int64_t mask) {
    Value bits = andI(shr(readBytes(b, loc, block, byte, kChunk), shift), mask);
    return arith::ShLIOp::create(b, loc, bits, splat(4)).getResult();
  };
  /// The low (even j) or high (odd j) nibbles of 32 bytes at `byte`.
  auto nibbles = [&](int64_t byte, bool high) {
    Value bytes = readBytes(b, loc, block, byte, kChunk);
    return high ? shr(bytes, 4) : andI(bytes, 0xf);
  };
  ArrayRef<Value> p = block.params;
  switch (format.getFormat()) {
  case BlockFormat::q8_0:
    return readBytes(b, loc, block, 2, kChunk);
  case BlockFormat::q4_0:
    return splitNibbles(2);
  case BlockFormat::q4_1:
    return splitNibbles(4);
  case BlockFormat::q5_0:
    return orI(splitNibbles(6), highBitsOfWord(p[2]));
  case BlockFormat::q5_1:
    return orI(splitNibbles(8), highBitsOfWord(p[2]));
  case BlockFormat::q4_k: {
    int64_t j = first / kChunk;
    return nibbles(16 + j / 2 * kChunk, j % 2);
  }
  case BlockFormat::q5_k: {
    int64_t j = first / kChunk;
    return orI(nibbles(48 + j / 2 * kChunk, j % 2), highBitsOfBytes(16, j, 1));
  }
  case BlockFormat::q6_k: {
    int64_t half = first / (4 * kChunk), group = first / kChunk % 4;
    return orI(nibbles(half * 2 * kChunk + group % 2 * kChunk, group >= 2),
               highBitsOfBytes(128 + half * kChunk, 2 * group, 3));
  }
  }
  llvm_unreachable("unknown block format");
}

void BlockDecoder::decodeInto(OpBuilder &b, Location loc, const Block &block,
                              Value blockIndex, Value dest,
                              Value destRow) const {
  Type elementType = cast<MemRefType>(dest.getType()).getElementType();
  Value start = arith::MulIOp::create(
      b, loc, blockIndex, indexConstant(b, loc, getBlockElements()));
  for (int64_t first = 0; first < getBlockElements(); first += lanes) {
    Value values = decode(b, loc, block, first);
    if (!elementType.isF32())
      values = arith::TruncFOp::create(
          b, loc, VectorType::get({lanes}, elementType), values);
    Value column =
        arith::AddIOp::create(b, loc, start, indexConstant(b, loc, first));
    vector::TransferWriteOp::create(
        b, loc, values, dest, ValueRange{destRow, column},
        AffineMap::getMinorIdentityMap(2, 1, b.getContext()),
        ArrayRef<bool>{true});
  }
}
