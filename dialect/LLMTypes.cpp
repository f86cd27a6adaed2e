// Types of the `llm` dialect: KV cache verification and derived shapes, block formats and their layouts.
#include "dialect/LLMTypes.h"
#include "dialect/LLMDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::llm;

#define GET_TYPEDEF_CLASSES
#include "dialect/LLMTypes.cpp.inc"

void LLMDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/LLMTypes.cpp.inc"
      >();
}

LogicalResult
KVCacheType::verify(function_ref<InFlightDiagnostic()> emitError,
                    int64_t layers, int64_t batch, int64_t kvHeads,
                    int64_t headDim, int64_t capacity, Type elementType,
                    KVCacheLayout layout, int64_t pageSize,
                    KVCacheValues values) {
  auto requirePositive = [&](int64_t value, StringRef name) -> LogicalResult {
    if (value > 0)
      return success();
    return emitError() << "kv_cache " << name << " must be positive, got "
                       << value;
  };
  if (failed(requirePositive(layers, "layers")) ||
      failed(requirePositive(batch, "batch")) ||
      failed(requirePositive(kvHeads, "kv_heads")) ||
      failed(requirePositive(headDim, "head_dim")) ||
      failed(requirePositive(capacity, "capacity")) ||
      failed(requirePositive(pageSize, "page_size")))
    return failure();
  bool isFloat = isa<Float32Type, Float16Type, BFloat16Type>(elementType);
  bool isCode = elementType.isSignlessInteger(8) ||
                isa<Float8E4M3FNType>(elementType);
  if (!isFloat && !isCode)
    return emitError() << "kv_cache element_type must be f32, f16, bf16 or "
                          "a quantized code (i8, f8E4M3FN), got "
                       << elementType;
  if (layout == KVCacheLayout::contiguous && pageSize != kDefaultKVPageSize)
    return emitError() << "kv_cache page_size applies only to the paged layout";
  if (layout == KVCacheLayout::paged && capacity % pageSize != 0)
    return emitError() << "kv_cache capacity (" << capacity
                       << ") must be a multiple of page_size (" << pageSize
                       << ")";
  return success();
}

RankedTensorType KVCacheType::getLayerViewType() const {
  return RankedTensorType::get({getBatch(), getCapacity(), getKvHeads(),
                                getHeadDim()},
                               getValueType());
}

bool KVCacheType::isQuantized() const {
  return getElementType().isSignlessInteger(8) ||
         isa<Float8E4M3FNType>(getElementType());
}

Type KVCacheType::getValueType() const {
  return isQuantized() ? Float32Type::get(getContext()) : getElementType();
}

double KVCacheType::getMaxCode() const {
  assert(isQuantized() && "only quantized caches have codes");
  return getElementType().isSignlessInteger(8) ? 127.0 : 448.0;
}

int64_t KVCacheType::getScaleBytes() const { return isQuantized() ? 4 : 0; }

int64_t KVCacheType::getHeadRowBytes() const {
  return getHeadDim() * (getElementType().getIntOrFloatBitWidth() / 8) +
         getScaleBytes();
}

int64_t KVCacheType::getSizeInBytes() const {
  return getPlaneCount() * getLayers() * getBatch() * getCapacity() *
         getKvHeads() * getHeadRowBytes();
}

int64_t KVCacheType::getPagesPerSequence() const {
  return isPaged() ? getCapacity() / getPageSize() : 0;
}

int64_t KVCacheType::getPageCount() const {
  return getBatch() * getPagesPerSequence();
}

RankedTensorType KVCacheType::getPageTableType() const {
  if (!isPaged())
    return RankedTensorType();
  return RankedTensorType::get({getBatch(), getPagesPerSequence()},
                               IntegerType::get(getContext(), 32));
}

//===----------------------------------------------------------------------===//
// BlockQuantType
//===----------------------------------------------------------------------===//

namespace {
/// Elements and bytes of one block of each format (ggml's block structs:
/// f16 scales, packed quants, for the K-quants 6-bit or int8 sub-scales).
struct BlockLayout {
  int64_t elements, bytes;
};

BlockLayout getBlockLayout(BlockFormat format) {
  switch (format) {
  case BlockFormat::q8_0:
    return {32, 2 + 32};
  case BlockFormat::q4_0:
    return {32, 2 + 16};
  case BlockFormat::q4_1:
    return {32, 2 + 2 + 16};
  case BlockFormat::q5_0:
    return {32, 2 + 4 + 16};
  case BlockFormat::q5_1:
    return {32, 2 + 2 + 4 + 16};
  case BlockFormat::q4_k:
    return {256, 2 + 2 + 12 + 128};
  case BlockFormat::q5_k:
    return {256, 2 + 2 + 12 + 32 + 128};
  case BlockFormat::q6_k:
    return {256, 128 + 64 + 16 + 2};
  }
  llvm_unreachable("unknown block format");
}
} // namespace

int64_t BlockQuantType::getBlockElements() const {
  return getBlockLayout(getFormat()).elements;
}

int64_t BlockQuantType::getBlockBytes() const {
  return getBlockLayout(getFormat()).bytes;
}

int64_t BlockQuantType::getHeaderBytes() const {
  switch (getFormat()) {
  case BlockFormat::q8_0:
  case BlockFormat::q4_0:
    return 2;
  case BlockFormat::q4_1:
    return 4;
  case BlockFormat::q5_0:
    return 6;
  case BlockFormat::q5_1:
    return 8;
  case BlockFormat::q4_k:
  case BlockFormat::q5_k:
  case BlockFormat::q6_k:
    // Scales and codes interleave within these blocks; they are never
    // stored interleaved (see verify).
    return 0;
  }
  llvm_unreachable("unknown block format");
}

int64_t BlockQuantType::PlanarSegment::getAlignment() const {
  return std::min<int64_t>(16, bytes & -bytes);
}

SmallVector<BlockQuantType::PlanarSegment>
BlockQuantType::getPlanarSegments() const {
  // Each segment's bytes, in the block's order: scales and high-bit words
  // apart from the codes (a run of codes is a multiple of 16 bytes).
  SmallVector<PlanarSegment> segments;
  switch (getFormat()) {
  case BlockFormat::q8_0:
    segments = {{0, 2}, {2, 32}};
    break;
  case BlockFormat::q4_0:
    segments = {{0, 2}, {2, 16}};
    break;
  case BlockFormat::q4_1:
    segments = {{0, 4}, {4, 16}};
    break;
  case BlockFormat::q5_0:
    segments = {{0, 2}, {2, 4, true}, {6, 16}};
    break;
  case BlockFormat::q5_1:
    segments = {{0, 4}, {4, 4, true}, {8, 16}};
    break;
  case BlockFormat::q4_k:
    segments = {{0, 16}, {16, 128}};
    break;
  case BlockFormat::q5_k:
    segments = {{0, 16}, {16, 32, true}, {48, 128}};
    break;
  case BlockFormat::q6_k:
    segments = {{0, 128}, {128, 64, true}, {192, 16}, {208, 2}};
    break;
  }
  // Planes widest alignment first, ties in the block's order.
  SmallVector<PlanarSegment *> order;
  for (PlanarSegment &segment : segments)
    order.push_back(&segment);
  llvm::stable_sort(order, [](PlanarSegment *a, PlanarSegment *b) {
    return a->getAlignment() > b->getAlignment();
  });
  int64_t offset = 0;
  for (PlanarSegment *segment : order) {
    segment->planeOffset = offset;
    offset += segment->bytes;
  }
  return segments;
}

BlockQuantType::PlanarSegment
BlockQuantType::getPlanarSegment(int64_t byte, int64_t count) const {
  for (const PlanarSegment &segment : getPlanarSegments())
    if (byte >= segment.start && byte + count <= segment.start + segment.bytes)
      return segment;
  llvm_unreachable("a read of a planar block spans two segments");
}

Type BlockQuantType::parse(AsmParser &parser) {
  if (parser.parseLess())
    return {};
  FailureOr<BlockFormat> format = FieldParser<BlockFormat>::parse(parser);
  if (failed(format)) {
    parser.emitError(parser.getCurrentLocation(),
                     "failed to parse LLM_BlockQuantType parameter 'format'");
    return {};
  }
  int64_t interleave = 1;
  bool planar = false;
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("planar"))) {
      planar = true;
    } else if (parser.parseKeyword("interleave") || parser.parseEqual() ||
               parser.parseInteger(interleave)) {
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<BlockQuantType>(parser.getContext(), *format,
                                           interleave, planar);
}

void BlockQuantType::print(AsmPrinter &printer) const {
  printer << "<" << stringifyBlockFormat(getFormat());
  if (getInterleave() != 1)
    printer << ", interleave = " << getInterleave();
  if (getPlanar())
    printer << ", planar";
  printer << ">";
}

LogicalResult
BlockQuantType::verify(function_ref<InFlightDiagnostic()> emitError,
                       BlockFormat format, int64_t interleave, bool planar) {
  if (planar && interleave != 1)
    return emitError() << "a block weight is either interleaved or planar";
  if (interleave == 1)
    return success();
  if (interleave != kInterleavedRows)
    return emitError() << "interleave must be 1 or " << kInterleavedRows
                       << " rows, got " << interleave;
  if (getBlockLayout(format).elements != 32)
    return emitError() << "only the 32-element block formats can be "
                          "interleaved, not "
                       << stringifyBlockFormat(format);
  return success();
}

BlockQuantType mlir::llm::getBlockQuantElementType(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped ? dyn_cast<BlockQuantType>(shaped.getElementType())
                : BlockQuantType();
}

RankedTensorType mlir::llm::getBlockStorageType(RankedTensorType type) {
  auto block = cast<BlockQuantType>(type.getElementType());
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = block.getRowBytes(shape.back());
  if (block.isInterleaved()) {
    // A row of storage per group of rows (a rank-2 weight with N a multiple
    // of the group, as the ops verify).
    shape.front() /= block.getInterleave();
    shape.back() *= block.getInterleave();
  }
  return RankedTensorType::get(shape, IntegerType::get(type.getContext(), 8));
}

LogicalResult
InterleavedFloatType::verify(function_ref<InFlightDiagnostic()> emitError,
                             Type elementType, int64_t rows,
                             int64_t columns) {
  if (!elementType.isF32() && !elementType.isF16() && !elementType.isBF16())
    return emitError() << "interleaved rows hold f32, f16 or bf16, not "
                       << elementType;
  if (rows != kGroupRows)
    return emitError() << "interleaved float rows come in groups of "
                       << kGroupRows << ", got " << rows;
  if (columns != 1 && !(columns == kBF16PairColumns && elementType.isBF16()))
    return emitError() << "interleaved " << elementType
                       << " rows stand in runs of 1 column"
                       << (elementType.isBF16() ? " or 2" : "") << ", got "
                       << columns;
  return success();
}

InterleavedFloatType mlir::llm::getInterleavedFloatElementType(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped ? dyn_cast<InterleavedFloatType>(shaped.getElementType())
                : InterleavedFloatType();
}

RankedTensorType
mlir::llm::getInterleavedFloatStorageType(RankedTensorType type) {
  auto interleaved = cast<InterleavedFloatType>(type.getElementType());
  SmallVector<int64_t> shape(type.getShape());
  shape.front() /= interleaved.getRows();
  shape.back() *= interleaved.getRows();
  return RankedTensorType::get(shape, interleaved.getElementType());
}

RankedTensorType mlir::llm::getWeightStorageType(RankedTensorType type) {
  if (isa<BlockQuantType>(type.getElementType()))
    return getBlockStorageType(type);
  if (isa<InterleavedFloatType>(type.getElementType()))
    return getInterleavedFloatStorageType(type);
  return type;
}
