// Verifiers and builders of the `llm` dialect's ops.
#include "dialect/LLMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::llm;

namespace {
/// Two extents agree when either is dynamic or both are equal.
bool extentsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

std::string extentString(int64_t extent) {
  return ShapedType::isDynamic(extent) ? "?" : std::to_string(extent);
}

/// Emits "<what> (<a>) does not match <other> (<b>)" unless the extents agree.
LogicalResult requireSameExtent(Operation *op, int64_t a, StringRef what,
                                int64_t b, StringRef other) {
  if (extentsAgree(a, b))
    return success();
  return op->emitOpError() << what << " (" << extentString(a)
                           << ") does not match " << other << " ("
                           << extentString(b) << ")";
}

LogicalResult requireRank(Operation *op, ShapedType type, int64_t rank,
                          StringRef name) {
  if (type.getRank() == rank)
    return success();
  return op->emitOpError() << name << " must have rank " << rank << ", got "
                           << type.getRank();
}

/// `result` must be `x` with its last dimension replaced by `lastExtent`.
LogicalResult requireLeadingDimsThen(Operation *op, ShapedType x,
                                     ShapedType result, int64_t lastExtent,
                                     StringRef lastName) {
  if (result.getRank() != x.getRank())
    return op->emitOpError() << "result rank (" << result.getRank()
                             << ") does not match input rank (" << x.getRank()
                             << ")";
  for (int64_t i = 0, e = x.getRank() - 1; i < e; ++i)
    if (!extentsAgree(x.getDimSize(i), result.getDimSize(i)))
      return op->emitOpError()
             << "result dimension " << i << " ("
             << extentString(result.getDimSize(i))
             << ") does not match input dimension " << i << " ("
             << extentString(x.getDimSize(i)) << ")";
  return requireSameExtent(op, result.getShape().back(),
                           "result last dimension", lastExtent, lastName);
}

LogicalResult requirePositive(Operation *op, double value, StringRef name) {
  if (value > 0.0)
    return success();
  return op->emitOpError() << name << " must be positive, got " << value;
}

/// Shared by rms_norm and layer_norm: weight/bias are vectors over x's last
/// dimension and the result has x's shape.
LogicalResult verifyNorm(Operation *op, ShapedType x, ShapedType weight,
                         ShapedType bias, ShapedType result, double eps) {
  if (failed(requirePositive(op, eps, "eps")))
    return failure();
  if (x.getRank() < 1)
    return op->emitOpError("input must have rank >= 1");
  if (failed(requireRank(op, weight, 1, "weight")) ||
      failed(requireSameExtent(op, weight.getDimSize(0), "weight size",
                               x.getShape().back(), "input last dimension")))
    return failure();
  if (bias && (failed(requireRank(op, bias, 1, "bias")) ||
               failed(requireSameExtent(op, bias.getDimSize(0), "bias size",
                                        x.getShape().back(),
                                        "input last dimension"))))
    return failure();
  if (result.getShape() != x.getShape() ||
      result.getElementType() != x.getElementType())
    return op->emitOpError("result type must equal the input type");
  return success();
}

/// A block-quantized weight (`!llm.block<f>` elements; its rank 2 is checked
/// by the caller) has rows of whole blocks: a static row length that is a
/// multiple of the format's block. A weight stored in interleaved groups of
/// rows (an interleaved block format, or `!llm.interleaved<...>` floats,
/// whose row length must be static and a multiple of their runs of
/// columns) has a static row count that is a multiple of its groups, and
/// only the projections read it:
/// `notInterleaved`, when given, says why `op` cannot (an embedding table's
/// rows are gathered one at a time). Plain float weights pass unchecked.
LogicalResult verifyWeightFormat(Operation *op, ShapedType weight,
                                 StringRef name,
                                 StringRef notInterleaved = {}) {
  int64_t groupRows = 1;
  int64_t row = weight.getDimSize(1);
  if (BlockQuantType block = getBlockQuantElementType(weight)) {
    if (ShapedType::isDynamic(row) || row % block.getBlockElements() != 0)
      return op->emitOpError()
             << name << " row length (" << extentString(row)
             << ") must be a multiple of the "
             << stringifyBlockFormat(block.getFormat()) << " block ("
             << block.getBlockElements() << " elements)";
    groupRows = block.getInterleave();
  } else if (InterleavedFloatType interleaved =
                 getInterleavedFloatElementType(weight)) {
    if (ShapedType::isDynamic(row))
      return op->emitOpError()
             << name << " in interleaved rows must have a static row length";
    if (row % interleaved.getColumns() != 0)
      return op->emitOpError()
             << name << " row length (" << row
             << ") must be a multiple of its interleaved runs ("
             << interleaved.getColumns() << " columns)";
    groupRows = interleaved.getRows();
  }
  if (groupRows == 1)
    return success();
  if (!notInterleaved.empty())
    return op->emitOpError()
           << name << " must not be interleaved: " << notInterleaved;
  int64_t rows = weight.getDimSize(0);
  if (ShapedType::isDynamic(rows) || rows % groupRows != 0)
    return op->emitOpError()
           << name << " row count (" << extentString(rows)
           << ") must be a multiple of its interleaved groups (" << groupRows
           << " rows)";
  return success();
}

/// Shared by linear and logits: x[..., K] · W[N, K]ᵀ (+ bias[N]) → [..., N].
LogicalResult verifyProjection(Operation *op, ShapedType x, ShapedType weight,
                               ShapedType bias, ShapedType result) {
  if (x.getRank() < 1)
    return op->emitOpError("input must have rank >= 1");
  if (failed(requireRank(op, weight, 2, "weight")) ||
      failed(verifyWeightFormat(op, weight, "weight")) ||
      failed(requireSameExtent(op, weight.getDimSize(1),
                               "weight input dimension", x.getShape().back(),
                               "input last dimension")))
    return failure();
  if (bias && (failed(requireRank(op, bias, 1, "bias")) ||
               failed(requireSameExtent(op, bias.getDimSize(0), "bias size",
                                        weight.getDimSize(0),
                                        "weight output dimension"))))
    return failure();
  if (result.getElementType() != x.getElementType())
    return op->emitOpError(
        "result element type must equal the input element type");
  return requireLeadingDimsThen(op, x, result, weight.getDimSize(0),
                                "weight output dimension");
}

/// positions must be an integer (B, T) tensor matching x's first two dims.
LogicalResult verifyPositions(Operation *op, ShapedType positions,
                              ShapedType x, StringRef xName) {
  if (failed(requireRank(op, positions, 2, "positions")))
    return failure();
  if (failed(requireSameExtent(op, positions.getDimSize(0),
                               "positions batch", x.getDimSize(0),
                               (xName + " batch").str())) ||
      failed(requireSameExtent(op, positions.getDimSize(1),
                               "positions length", x.getDimSize(1),
                               (xName + " length").str())))
    return failure();
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  auto tokens = getTokens().getType();
  auto table = getTable().getType();
  auto result = getResult().getType();
  if (failed(requireRank(*this, table, 2, "table")) ||
      failed(verifyWeightFormat(*this, table, "table",
                                "its rows are gathered one at a time")))
    return failure();
  if (result.getRank() != tokens.getRank() + 1)
    return emitOpError() << "result rank (" << result.getRank()
                         << ") must be tokens rank + 1 ("
                         << tokens.getRank() + 1 << ")";
  for (int64_t i = 0, e = tokens.getRank(); i < e; ++i)
    if (failed(requireSameExtent(*this, result.getDimSize(i),
                                 "result dimension " + std::to_string(i),
                                 tokens.getDimSize(i),
                                 "tokens dimension " + std::to_string(i))))
      return failure();
  if (failed(requireSameExtent(*this, result.getShape().back(),
                               "result last dimension", table.getDimSize(1),
                               "table embedding size")))
    return failure();
  if (auto scale = getScale())
    return requirePositive(*this, scale->convertToDouble(), "scale");
  return success();
}

//===----------------------------------------------------------------------===//
// Norms and projections
//===----------------------------------------------------------------------===//

LogicalResult RMSNormOp::verify() {
  return verifyNorm(*this, getX().getType(), getWeight().getType(),
                    ShapedType(), getResult().getType(),
                    getEps().convertToDouble());
}

LogicalResult LayerNormOp::verify() {
  ShapedType bias = getBias() ? getBias().getType() : ShapedType();
  return verifyNorm(*this, getX().getType(), getWeight().getType(), bias,
                    getResult().getType(), getEps().convertToDouble());
}

LogicalResult LinearOp::verify() {
  ShapedType bias = getBias() ? getBias().getType() : ShapedType();
  if (failed(verifyProjection(*this, getX().getType(), getWeight().getType(),
                              bias, getResult().getType())))
    return failure();
  if (getResidual() && getResidual().getType() != getResult().getType())
    return emitOpError("residual type must equal the result type");
  return success();
}

LogicalResult HeadLinearOp::verify() {
  auto x = getX().getType();
  auto weight = getWeight().getType();
  auto result = getResult().getType();
  if (failed(requireRank(*this, x, 4, "x")) ||
      failed(requireRank(*this, weight, 2, "weight")) ||
      failed(requireRank(*this, result, 4, "result")))
    return failure();
  for (int64_t i = 0; i < 3; ++i)
    if (failed(requireSameExtent(*this, result.getDimSize(i),
                                 "result dimension " + std::to_string(i),
                                 x.getDimSize(i),
                                 "x dimension " + std::to_string(i))))
      return failure();
  // Each head's block of rows: (N, K), or (K, N) with transpose_weight.
  const int64_t heads = x.getDimSize(2), in = x.getDimSize(3),
                out = result.getDimSize(3);
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(in) ||
      ShapedType::isDynamic(out))
    return emitOpError("needs static heads and head widths");
  const bool transposed = getTransposeWeight();
  const int64_t rowsPerHead = transposed ? in : out;
  const int64_t columns = transposed ? out : in;
  if (failed(requireSameExtent(*this, weight.getDimSize(0), "weight rows",
                               heads * rowsPerHead,
                               transposed ? "heads x input width"
                                          : "heads x output width")) ||
      failed(requireSameExtent(*this, weight.getDimSize(1), "weight columns",
                               columns,
                               transposed ? "output width" : "input width")))
    return failure();
  return success();
}

LogicalResult LogitsOp::verify() {
  ShapedType bias = getBias() ? cast<ShapedType>(getBias().getType())
                              : ShapedType();
  if (failed(verifyProjection(*this, getX().getType(), getWeight().getType(),
                              bias, getResult().getType())))
    return failure();
  if (auto softcap = getSoftcap())
    return requirePositive(*this, softcap->convertToDouble(), "softcap");
  return success();
}

//===----------------------------------------------------------------------===//
// Fused projections
//===----------------------------------------------------------------------===//

namespace {
/// The `norm` of a fused projection: a weight over x's last dimension and a
/// positive norm_eps, both or neither.
LogicalResult verifyFusedNorm(Operation *op, ShapedType x, Value normWeight,
                              std::optional<APFloat> eps) {
  if (!normWeight && !eps)
    return success();
  if (!normWeight || !eps)
    return op->emitOpError("norm weight and norm_eps must be given together");
  auto weight = cast<ShapedType>(normWeight.getType());
  if (failed(requirePositive(op, eps->convertToDouble(), "norm_eps")) ||
      failed(requireRank(op, weight, 1, "norm weight")))
    return failure();
  return requireSameExtent(op, weight.getDimSize(0), "norm weight size",
                           x.getShape().back(), "input last dimension");
}
} // namespace

LogicalResult MultiLinearOp::verify() {
  auto x = getX().getType();
  if (failed(verifyFusedNorm(*this, x, getNormWeight(), getNormEps())))
    return failure();
  size_t count = getWeights().size();
  if (count == 0)
    return emitOpError("needs at least one weight");
  if (getResults().size() != count)
    return emitOpError() << "has " << getResults().size() << " results for "
                         << count << " weights";
  if (!getBiases().empty() && getBiases().size() != count)
    return emitOpError() << "has " << getBiases().size() << " biases for "
                         << count << " weights";
  for (size_t i = 0; i < count; ++i) {
    ShapedType bias = getBiases().empty()
                          ? ShapedType()
                          : cast<ShapedType>(getBiases()[i].getType());
    if (failed(verifyProjection(*this, x,
                                cast<ShapedType>(getWeights()[i].getType()),
                                bias,
                                cast<ShapedType>(getResults()[i].getType()))))
      return failure();
  }
  return success();
}

LogicalResult GLULinearOp::verify() {
  auto x = getX().getType();
  if (failed(verifyFusedNorm(*this, x, getNormWeight(), getNormEps())) ||
      failed(verifyProjection(*this, x, getGateWeight().getType(),
                              ShapedType(), getResult().getType())))
    return failure();
  if (getGateWeight().getType().getShape() !=
      getUpWeight().getType().getShape())
    return emitOpError("gate and up weights must have the same shape");
  return success();
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

namespace {
/// The rules of one RoPE application to `x` (named `name` in messages):
/// (B, T, H, Dh) with even Dh, positions matching, theta > 0, rotary_dim
/// even, positive and at most Dh, longrope factors one per rotated pair.
LogicalResult verifyRope(Operation *op, ShapedType x, StringRef name,
                         ShapedType positions, double theta, int64_t rotaryDim,
                         RopeScalingAttrInterface scaling) {
  if (failed(requireRank(op, x, 4, name)) ||
      failed(verifyPositions(op, positions, x, name)))
    return failure();
  if (failed(requirePositive(op, theta, "theta")))
    return failure();
  if (rotaryDim <= 0 || rotaryDim % 2 != 0)
    return op->emitOpError() << "rotary_dim must be positive and even, got "
                             << rotaryDim;
  int64_t headDim = x.getDimSize(3);
  if (!ShapedType::isDynamic(headDim) && headDim % 2 != 0)
    return op->emitOpError() << "head dimension must be even, got " << headDim;
  if (!ShapedType::isDynamic(headDim) && rotaryDim > headDim)
    return op->emitOpError() << "rotary_dim (" << rotaryDim
                             << ") exceeds the head dimension (" << headDim
                             << ")";
  auto longrope = dyn_cast_if_present<RopeLongropeAttr>(scaling);
  if (longrope && int64_t(longrope.getShortFactor().size()) != rotaryDim / 2)
    return op->emitOpError()
           << "longrope needs one short_factor and long_factor entry per "
              "rotated pair ("
           << rotaryDim / 2 << "), got " << longrope.getShortFactor().size();
  return success();
}
} // namespace

LogicalResult RopeOp::verify() {
  return verifyRope(*this, getX().getType(), "input",
                    getPositions().getType(), getTheta().convertToDouble(),
                    getRotaryDim(), getScalingAttr());
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getEffectiveScale() {
  if (auto scale = getScale())
    return scale->convertToDouble();
  return 1.0 / std::sqrt(static_cast<double>(getQ().getType().getDimSize(3)));
}

LogicalResult AttentionOp::verify() {
  auto q = getQ().getType();
  auto k = getK().getType();
  auto v = getV().getType();
  if (failed(requireRank(*this, q, 4, "q")) ||
      failed(requireRank(*this, k, 4, "k")) ||
      failed(requireRank(*this, v, 4, "v")))
    return failure();
  if (k != v)
    return emitOpError("k and v must have the same type");
  int64_t heads = getNumHeads(), kvHeads = getNumKvHeads();
  if (heads <= 0 || kvHeads <= 0)
    return emitOpError() << "num_heads (" << heads << ") and num_kv_heads ("
                         << kvHeads << ") must be positive";
  if (heads % kvHeads != 0)
    return emitOpError() << "num_heads (" << heads
                         << ") must be a multiple of num_kv_heads (" << kvHeads
                         << ")";
  if (failed(requireSameExtent(*this, q.getDimSize(2), "q heads", heads,
                               "num_heads")) ||
      failed(requireSameExtent(*this, k.getDimSize(2), "k heads", kvHeads,
                               "num_kv_heads")) ||
      failed(requireSameExtent(*this, k.getDimSize(0), "k batch",
                               q.getDimSize(0), "q batch")) ||
      failed(requireSameExtent(*this, k.getDimSize(3), "k head dimension",
                               q.getDimSize(3), "q head dimension")))
    return failure();
  if (getPositions() &&
      failed(verifyPositions(*this, getPositions().getType(), q, "q")))
    return failure();
  if (auto window = getSlidingWindow()) {
    if (*window <= 0)
      return emitOpError() << "sliding_window must be positive, got "
                           << *window;
    if (!getCausal())
      return emitOpError("sliding_window requires causal attention");
  }
  if (auto scale = getScale())
    if (failed(requirePositive(*this, scale->convertToDouble(), "scale")))
      return failure();
  if (auto softcap = getSoftcap())
    if (failed(requirePositive(*this, softcap->convertToDouble(), "softcap")))
      return failure();
  if (getResult().getType() != q)
    return emitOpError("result type must equal the type of q");
  return success();
}

//===----------------------------------------------------------------------===//
// KV cache
//===----------------------------------------------------------------------===//

namespace {
/// A constant layer must be in range; a dynamic one is checked by whoever
/// computes it. Exactly one of the two forms is present.
LogicalResult verifyLayerIndex(Operation *op, KVCacheType cache,
                               Value layerIndex,
                               std::optional<uint64_t> layer) {
  if (bool(layerIndex) == layer.has_value())
    return op->emitOpError(
        "needs exactly one layer: a constant or an index operand");
  if (!layer)
    return success();
  int64_t constant = static_cast<int64_t>(*layer);
  if (constant >= 0 && constant < cache.getLayers())
    return success();
  return op->emitOpError() << "layer " << constant << " is out of range [0, "
                           << cache.getLayers() << ")";
}

/// A paged cache takes its page table, (batch, capacity / page_size) i32;
/// a contiguous one takes none.
LogicalResult verifyPageTable(Operation *op, KVCacheType cache,
                              Value pageTable) {
  if (!cache.isPaged()) {
    if (pageTable)
      return op->emitOpError("takes a page table only for a paged cache");
    return success();
  }
  if (!pageTable)
    return op->emitOpError("needs the page table of its paged cache: pages(%t : ")
           << cache.getPageTableType() << ")";
  if (pageTable.getType() != cache.getPageTableType())
    return op->emitOpError() << "page table must be "
                             << cache.getPageTableType() << ", got "
                             << pageTable.getType();
  return success();
}

OpFoldResult getLayerFoldResult(Builder builder, Value layerIndex,
                                std::optional<uint64_t> layer) {
  if (layerIndex)
    return layerIndex;
  return builder.getIndexAttr(static_cast<int64_t>(*layer));
}
} // namespace

/// `[3]` (a constant layer) or `[%layer]` (an index value).
static ParseResult
parseLayerIndex(OpAsmParser &parser,
                std::optional<OpAsmParser::UnresolvedOperand> &layerIndex,
                IntegerAttr &layer) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult parsedOperand = parser.parseOptionalOperand(operand);
  if (parsedOperand.has_value()) {
    if (failed(*parsedOperand))
      return failure();
    layerIndex = operand;
    return success();
  }
  int64_t constant = 0;
  if (parser.parseInteger(constant))
    return failure();
  layer = parser.getBuilder().getI64IntegerAttr(constant);
  return success();
}

static void printLayerIndex(OpAsmPrinter &printer, Operation *, Value layerIndex,
                            IntegerAttr layer) {
  if (layerIndex)
    printer << layerIndex;
  else
    printer << layer.getInt();
}

/// Splits `keys, [values,] positions` (operands or their types): two or
/// three entries, the middle one the values.
template <typename T>
static ParseResult splitAppendedRows(OpAsmParser &parser, SMLoc loc,
                                     ArrayRef<T> rows, StringRef expected,
                                     T &keys, std::optional<T> &values,
                                     T &positions) {
  if (rows.size() != 2 && rows.size() != 3)
    return parser.emitError(loc, "expected ") << expected;
  keys = rows.front();
  positions = rows.back();
  if (rows.size() == 3)
    values = rows[1];
  return success();
}

/// `%k, %v, %pos`, or `%k, %pos` without values (a cache whose values are
/// its keys).
static ParseResult
parseAppendedRows(OpAsmParser &parser, OpAsmParser::UnresolvedOperand &keys,
                  std::optional<OpAsmParser::UnresolvedOperand> &values,
                  OpAsmParser::UnresolvedOperand &positions) {
  SmallVector<OpAsmParser::UnresolvedOperand, 3> rows;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(rows))
    return failure();
  return splitAppendedRows<OpAsmParser::UnresolvedOperand>(
      parser, loc, rows, "keys, [values,] positions", keys, values,
      positions);
}

/// Their types, in the same order.
static ParseResult parseAppendedRows(OpAsmParser &parser, Type &keys,
                                     Type &values, Type &positions) {
  SmallVector<Type, 3> types;
  SMLoc loc = parser.getCurrentLocation();
  std::optional<Type> valuesType;
  if (parser.parseTypeList(types) ||
      splitAppendedRows<Type>(parser, loc, types,
                              "the types of keys, [values,] positions", keys,
                              valuesType, positions))
    return failure();
  values = valuesType.value_or(Type());
  return success();
}

/// Prints `keys, [values,] positions`: operands or types.
template <typename T>
static void printRows(OpAsmPrinter &printer, T keys, T values, T positions) {
  printer << keys << ", ";
  if (values)
    printer << values << ", ";
  printer << positions;
}

static void printAppendedRows(OpAsmPrinter &printer, Operation *, Value keys,
                              Value values, Value positions) {
  printRows(printer, keys, values, positions);
}

static void printAppendedRows(OpAsmPrinter &printer, Operation *, Type keys,
                              Type values, Type positions) {
  printRows(printer, keys, values, positions);
}

namespace {
/// The rules of appending `keys` and `values` to `cache`: a valid layer,
/// keys and values of one (B, T, Hkv, Dh) type matching the cache, in the
/// cache's element type or in f32 (rounded on the way in). A cache whose
/// values are its keys takes no values (`values` null).
LogicalResult verifyAppend(Operation *op, KVCacheType cache, Value layerIndex,
                           std::optional<uint64_t> layer, Value pageTable,
                           ShapedType keys, ShapedType values,
                           ShapedType positions) {
  if (failed(verifyLayerIndex(op, cache, layerIndex, layer)) ||
      failed(verifyPageTable(op, cache, pageTable)))
    return failure();
  if (cache.valuesAreKeys() && values)
    return op->emitOpError("takes no values: the values of a cache with "
                           "`values = keys` are its keys");
  if (!cache.valuesAreKeys() && !values)
    return op->emitOpError("needs values: the cache stores them apart from "
                           "the keys");
  if (values && values != keys)
    return op->emitOpError("keys and values must have the same type");
  if (failed(requireRank(op, keys, 4, "keys")))
    return failure();
  Type elementType = keys.getElementType();
  if (elementType != cache.getValueType() && !elementType.isF32())
    return op->emitOpError()
           << "keys element type " << elementType
           << " does not match the cache "
           << (cache.isQuantized() ? "value type " : "element type ")
           << cache.getValueType()
           << (cache.getValueType().isF32() ? "" : " and is not f32");
  if (failed(requireSameExtent(op, keys.getDimSize(0), "keys batch",
                               cache.getBatch(), "cache batch")) ||
      failed(requireSameExtent(op, keys.getDimSize(2), "keys heads",
                               cache.getKvHeads(), "cache kv_heads")) ||
      failed(requireSameExtent(op, keys.getDimSize(3), "keys head dimension",
                               cache.getHeadDim(), "cache head_dim")))
    return failure();
  return verifyPositions(op, positions, keys, "keys");
}
} // namespace

LogicalResult KVAppendOp::verify() {
  Value values = getValues();
  return verifyAppend(*this, getCache().getType(), getLayerIndex(),
                      getLayer(), getPageTable(), getKeys().getType(),
                      values ? cast<ShapedType>(values.getType())
                             : ShapedType(),
                      getPositions().getType());
}

LogicalResult RopeAppendOp::verify() {
  if (getCache().getType().valuesAreKeys())
    return emitOpError("needs a cache with separate values: one with "
                       "`values = keys` would store the rotated keys as its "
                       "values (append them with llm.kv_append)");
  auto positions = getPositions().getType();
  double theta = getTheta().convertToDouble();
  if (failed(verifyRope(*this, getQ().getType(), "q", positions, theta,
                        getRotaryDim(), getScalingAttr())) ||
      failed(verifyRope(*this, getKeys().getType(), "keys", positions, theta,
                        getRotaryDim(), getScalingAttr())))
    return failure();
  if (failed(requireSameExtent(*this, getKeys().getType().getDimSize(3),
                               "keys head dimension",
                               getQ().getType().getDimSize(3),
                               "q head dimension")))
    return failure();
  return verifyAppend(*this, getCache().getType(), getLayerIndex(),
                      getLayer(), getPageTable(), getKeys().getType(),
                      getValues().getType(), positions);
}

OpFoldResult RopeAppendOp::getLayerValue() {
  return getLayerFoldResult(Builder(getContext()), getLayerIndex(), getLayer());
}

OpFoldResult KVAppendOp::getLayerValue() {
  return getLayerFoldResult(Builder(getContext()), getLayerIndex(), getLayer());
}

void KVViewOp::build(OpBuilder &builder, OperationState &state, Value cache,
                     OpFoldResult layer, Value pageTable) {
  auto viewType = cast<KVCacheType>(cache.getType()).getLayerViewType();
  if (auto value = dyn_cast<Value>(layer))
    build(builder, state, viewType, viewType, cache, value, pageTable,
          IntegerAttr());
  else
    build(builder, state, viewType, viewType, cache, Value(), pageTable,
          builder.getI64IntegerAttr(
              cast<IntegerAttr>(cast<Attribute>(layer)).getInt()));
}

OpFoldResult KVViewOp::getLayerValue() {
  return getLayerFoldResult(Builder(getContext()), getLayerIndex(), getLayer());
}

LogicalResult KVViewOp::verify() {
  KVCacheType cache = getCache().getType();
  if (failed(verifyLayerIndex(*this, cache, getLayerIndex(), getLayer())) ||
      failed(verifyPageTable(*this, cache, getPageTable())))
    return failure();
  RankedTensorType expected = cache.getLayerViewType();
  if (getKeys().getType() != expected || getValues().getType() != expected)
    return emitOpError() << "results must both be " << expected;
  return success();
}

#define GET_OP_CLASSES
#include "dialect/LLMOps.cpp.inc"
