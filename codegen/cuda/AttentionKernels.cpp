// llm.attention → flash attention (prefill) or split-K decode kernels; their shared device helpers.
#include "codegen/cuda/AttentionKernels.h"
#include "codegen/common/KVQuantization.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc::cuda;
using llmc::getConvertedLayer;

namespace llmc::cuda::attention {

std::string AttentionShape::getNameSuffix() const {
  std::string name =
      "d" + std::to_string(headDim) + "_h" + std::to_string(numHeads) + "_kv" +
      std::to_string(numKvHeads) + "_s" +
      (ShapedType::isDynamic(keyCount) ? std::string("dyn")
                                       : std::to_string(keyCount)) +
      (isPaged() ? "_pg" + std::to_string(pageSize) : std::string()) + "_b" +
      std::to_string(batch) + "_" + getTypeTag(queryType) + "_" +
      getTypeTag(kvType);
  // The cap is an argument: one kernel serves every cap value.
  if (softcap)
    name += "_softcap";
  if (!causal)
    return name + "_full";
  name += "_causal";
  if (window)
    name += "_w" + std::to_string(*window);
  // Without positions, query t sits at t + S − T: another kernel.
  name += positionType ? "_pos" + getTypeTag(positionType) : "_nopos";
  return name;
}

SmallVector<Value> ScoreTransform::getArgs(OpBuilder &b, Location loc,
                                            const AttentionShape &shape) {
  auto f32 = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32Type(),
                                     b.getF32FloatAttr(value));
  };
  if (!shape.softcap)
    return {f32(shape.scale)};
  return {f32(shape.scale / *shape.softcap), f32(*shape.softcap)};
}

ScoreTransform ScoreTransform::fromKernel(gpu::GPUFuncOp func, unsigned &arg,
                                          const AttentionShape &shape) {
  ScoreTransform transform;
  transform.scale = func.getArgument(arg++);
  if (shape.softcap)
    transform.cap = func.getArgument(arg++);
  return transform;
}

Value ScoreTransform::apply(DeviceBuilder &d, Value dot) const {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value scaled = arith::MulFOp::create(b, loc, dot, scale);
  if (!cap)
    return scaled;
  return arith::MulFOp::create(b, loc, math::TanhOp::create(b, loc, scaled),
                               cap);
}

Value Slice::getVectorOffset(DeviceBuilder &d, Value lane, int64_t j) const {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, lane, d.index(vector)),
      d.index(j * lanes * vector));
}

int64_t getHeadsPerBlock(int64_t groupSize, int64_t maxHeads) {
  for (int64_t heads = std::min(groupSize, maxHeads); heads > 1; --heads)
    if (groupSize % heads == 0)
      return heads;
  return 1;
}

int64_t getLanesPerVector(int64_t headDim, int64_t targetElements) {
  int64_t lanes = 1;
  while (lanes * 2 <= kWarpSize && lanes * 2 * targetElements <= headDim &&
         headDim % (lanes * 2 * kChunk) == 0)
    lanes *= 2;
  return lanes;
}

int64_t getKVLoadVector(const AttentionShape &shape, int64_t elements) {
  int64_t vector = shape.quantized
                       ? kCodeLoadBytes
                       : 128 / shape.kvType.getIntOrFloatBitWidth();
  while (elements % vector != 0)
    vector /= 2;
  return vector;
}

Value loadRowScale(DeviceBuilder &d, const AttentionShape &shape, Value rows,
                   ArrayRef<Value> index) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  SmallVector<Value> position(index);
  position.push_back(d.index(shape.headDim));
  Value bytes = d.loadVector(VectorType::get({kCodeLoadBytes}, b.getI8Type()),
                             rows, position);
  SmallVector<Value> parts;
  for (int64_t i = 0; i < kCodeLoadBytes; ++i)
    parts.push_back(vector::ExtractOp::create(b, loc, bytes, i));
  return llmc::assembleKVScale(b, loc, parts);
}

Value loadDecodedCodes(DeviceBuilder &d, Value rows, ArrayRef<Value> index,
                       Value column, int64_t count, const KVCodes &codes) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto loadType = VectorType::get({kCodeLoadBytes}, b.getI8Type());
  SmallVector<Value> position(index);
  position.push_back(column);
  SmallVector<Value> values;
  for (int64_t offset = 0; offset < count; offset += kCodeLoadBytes) {
    position.back() = arith::AddIOp::create(b, loc, column, d.index(offset));
    Value loaded = d.loadVector(loadType, rows, position);
    for (int64_t i = 0; i < kCodeLoadBytes; ++i) {
      Value code = vector::ExtractOp::create(b, loc, loaded, i);
      values.push_back(arith::MulFOp::create(
          b, loc, llmc::decodeKVCode(b, loc, code, codes.codeType),
          codes.scale));
    }
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({count}, b.getF32Type()), values);
}

SmallVector<Value> loadSlice(DeviceBuilder &d, const Slice &slice, Value buffer,
                             ArrayRef<Value> indices, Value lane,
                             const KVCodes *codes) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  auto vectorType = VectorType::get({slice.vector}, elementType);
  SmallVector<Value> position(indices);
  SmallVector<Value> chunks;
  for (int64_t j = 0; j < slice.getVectors(); ++j) {
    position.back() = arith::AddIOp::create(b, loc, indices.back(),
                                            slice.getVectorOffset(d, lane, j));
    Value loaded =
        codes ? loadDecodedCodes(d, buffer, ArrayRef<Value>(position).drop_back(),
                                 position.back(), slice.vector, *codes)
              : d.toF32(d.loadVector(vectorType, buffer, position));
    for (int64_t c = 0; c < slice.vector; c += kChunk)
      chunks.push_back(slice.vector == kChunk
                           ? loaded
                           : vector::ExtractStridedSliceOp::create(
                                 b, loc, loaded, ArrayRef<int64_t>{c},
                                 ArrayRef<int64_t>{kChunk},
                                 ArrayRef<int64_t>{1}));
  }
  return chunks;
}

void storeSlice(DeviceBuilder &d, const Slice &slice, ArrayRef<Value> chunks,
                Value buffer, ArrayRef<Value> indices, Value lane) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  int64_t perVector = slice.vector / kChunk;
  SmallVector<Value> position(indices);
  for (int64_t j = 0; j < slice.getVectors(); ++j) {
    Value value = chunks[j * perVector];
    // Concatenate the vector's chunks.
    for (int64_t c = 1; c < perVector; ++c) {
      SmallVector<int64_t> mask;
      for (int64_t e = 0; e < (c + 1) * kChunk; ++e)
        mask.push_back(e);
      value = vector::ShuffleOp::create(b, loc, value,
                                        chunks[j * perVector + c], mask);
    }
    position.back() = arith::AddIOp::create(b, loc, indices.back(),
                                            slice.getVectorOffset(d, lane, j));
    d.storeVector(d.fromF32(value, elementType), buffer, position);
  }
}

Value dotChunks(DeviceBuilder &d, ArrayRef<Value> a, ArrayRef<Value> b) {
  OpBuilder &builder = d.builder();
  Location loc = d.location();
  Value sum = arith::MulFOp::create(builder, loc, a[0], b[0]);
  for (size_t c = 1; c < a.size(); ++c)
    sum = math::FmaOp::create(builder, loc, a[c], b[c], sum);
  return vector::ReductionOp::create(builder, loc, vector::CombiningKind::ADD,
                                     sum);
}

Value shuffleXor(DeviceBuilder &d, Value value, int64_t offset) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto vectorType = dyn_cast<VectorType>(value.getType());
  auto shuffleScalar = [&](Value scalar) -> Value {
    return gpu::ShuffleOp::create(b, loc, scalar, d.i32(offset),
                                  d.i32(kWarpSize), gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  if (!vectorType)
    return shuffleScalar(value);
  Value result = value;
  for (int64_t e = 0; e < vectorType.getNumElements(); ++e) {
    Value element = vector::ExtractOp::create(b, loc, value, e);
    result =
        vector::InsertOp::create(b, loc, shuffleScalar(element), result, e);
  }
  return result;
}

Value groupSum(DeviceBuilder &d, Value value, int64_t lanes) {
  for (int64_t offset = lanes / 2; offset > 0; offset /= 2)
    value = arith::AddFOp::create(d.builder(), d.location(), value,
                                  shuffleXor(d, value, offset));
  return value;
}

KeyRange getVisibleKeys(DeviceBuilder &d, const AttentionShape &shape,
                        Value position, Value keyCount) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value zero = d.index(0);
  if (!shape.causal)
    return {zero, keyCount};
  Value afterPosition = arith::AddIOp::create(b, loc, position, d.index(1));
  Value end = arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, afterPosition, keyCount), zero);
  Value begin = zero;
  if (shape.window) {
    Value first =
        arith::SubIOp::create(b, loc, position, d.index(*shape.window - 1));
    begin = arith::MaxSIOp::create(b, loc, first, zero);
  }
  return {begin, end};
}

Value getQueryPosition(DeviceBuilder &d, Value positions, Value b, Value t,
                       Value keyCount, Value queryCount) {
  OpBuilder &builder = d.builder();
  Location loc = d.location();
  if (positions)
    return d.toIndex(
        memref::LoadOp::create(builder, loc, positions, ValueRange{b, t}));
  Value offset = arith::SubIOp::create(builder, loc, keyCount, queryCount);
  return arith::AddIOp::create(builder, loc, t, offset);
}

/// Zero of `type` (f32 scalar or vector).
static Value getZero(DeviceBuilder &d, Type type) {
  return arith::ConstantOp::create(d.builder(), d.location(), type,
                                   d.builder().getZeroAttr(type));
}

/// `scalar` broadcast to the shape of `like` (unchanged for a scalar).
static Value splatLike(DeviceBuilder &d, Value scalar, Value like) {
  auto vectorType = dyn_cast<VectorType>(like.getType());
  if (!vectorType)
    return scalar;
  return vector::BroadcastOp::create(d.builder(), d.location(), vectorType,
                                     scalar);
}

SoftmaxState SoftmaxState::getEmpty(DeviceBuilder &d, TypeRange accTypes) {
  SoftmaxState state{d.f32(kMaskedScore), d.f32(0.0), {}};
  for (Type type : accTypes)
    state.acc.push_back(getZero(d, type));
  return state;
}

void SoftmaxState::appendTo(SmallVectorImpl<Value> &values) const {
  values.push_back(max);
  values.push_back(sum);
  values.append(acc.begin(), acc.end());
}

SoftmaxState SoftmaxState::take(ValueRange &values, size_t accSize) {
  SoftmaxState state{values[0], values[1],
                     SmallVector<Value>(values.slice(2, accSize))};
  values = values.drop_front(2 + accSize);
  return state;
}

SoftmaxState accumulate(DeviceBuilder &d, const SoftmaxState &state,
                        ArrayRef<Value> scores, ArrayRef<Value> visible,
                        ArrayRef<SmallVector<Value>> values) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value newMax = state.max;
  for (Value score : scores)
    newMax = d.combine(newMax, score, ReduceKind::Max);
  Value alpha = math::ExpOp::create(
      b, loc, arith::SubFOp::create(b, loc, state.max, newMax));
  Value zero = d.f32(0.0);
  SoftmaxState next{
      newMax, arith::MulFOp::create(b, loc, state.sum, alpha), {}};
  for (Value chunk : state.acc)
    next.acc.push_back(
        arith::MulFOp::create(b, loc, chunk, splatLike(d, alpha, chunk)));
  for (size_t j = 0; j < scores.size(); ++j) {
    Value p = math::ExpOp::create(
        b, loc, arith::SubFOp::create(b, loc, scores[j], newMax));
    p = arith::SelectOp::create(b, loc, visible[j], p, zero);
    next.sum = arith::AddFOp::create(b, loc, next.sum, p);
    for (size_t c = 0; c < next.acc.size(); ++c)
      next.acc[c] = math::FmaOp::create(b, loc, splatLike(d, p, next.acc[c]),
                                        values[j][c], next.acc[c]);
  }
  return next;
}

SoftmaxState merge(DeviceBuilder &d, const SoftmaxState &a,
                   const SoftmaxState &b) {
  OpBuilder &builder = d.builder();
  Location loc = d.location();
  Value max = d.combine(a.max, b.max, ReduceKind::Max);
  auto weight = [&](Value m) -> Value {
    return math::ExpOp::create(builder, loc,
                               arith::SubFOp::create(builder, loc, m, max));
  };
  Value wa = weight(a.max), wb = weight(b.max);
  auto mix = [&](Value x, Value y) -> Value {
    Value scaled = arith::MulFOp::create(builder, loc, x, splatLike(d, wa, x));
    return math::FmaOp::create(builder, loc, y, splatLike(d, wb, y), scaled)
        .getResult();
  };
  SoftmaxState result{max, mix(a.sum, b.sum), {}};
  for (size_t c = 0; c < a.acc.size(); ++c)
    result.acc.push_back(mix(a.acc[c], b.acc[c]));
  return result;
}

Value normalize(DeviceBuilder &d, Value acc, Value sum) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Value zero = d.f32(0.0);
  // Unordered, as on the CPU: a NaN sum (a NaN score) gives NaN, not 0.
  Value seen =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT, sum, zero);
  Value quotient = arith::DivFOp::create(b, loc, acc, splatLike(d, sum, acc));
  return arith::SelectOp::create(b, loc, seen, quotient,
                                 getZero(d, acc.getType()));
}

} // namespace llmc::cuda::attention

namespace {

using namespace llmc::cuda::attention;

struct AttentionLowering : KernelPattern<llm::AttentionOp> {
  using KernelPattern::KernelPattern;

  LogicalResult
  matchAndRewrite(llm::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // K and V of a paged or quantized view: the layer's page pools or
    // quantized rows as stored (the view itself is dropped), and a paged
    // cache's table.
    Value storedK, storedV, pageTable;
    llm::KVCacheType storedCache;
    auto view = op.getK().getDefiningOp<llm::KVViewOp>();
    if (view && isAttentionOnStoredView(view, op)) {
      storedCache = view.getCache().getType();
      Value cache = rewriter.getRemappedValue(view.getCache());
      if (view.getPageTable()) {
        pageTable = rewriter.getRemappedValue(view.getPageTable());
        if (!pageTable)
          return rewriter.notifyMatchFailure(op, "page table not converted");
      }
      OpFoldResult layer = getConvertedLayer(view, rewriter);
      if (!cache || !layer)
        return rewriter.notifyMatchFailure(op, "cache view not converted");
      storedK = viewCacheLayer(rewriter, loc, storedCache, cache, layer, kKeys);
      storedV =
          viewCacheLayer(rewriter, loc, storedCache, cache, layer, kValues);
    }
    auto qType = dyn_cast<MemRefType>(adaptor.getQ().getType());
    auto kvType = dyn_cast_or_null<MemRefType>(
        storedCache ? getTypeConverter()->convertType(op.getK().getType())
                   : adaptor.getK().getType());
    auto resultType = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    if (!qType || !kvType || !resultType || !qType.getLayout().isIdentity() ||
        !kvType.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "operands are not plain buffers");
    // Shapes without a kernel: an error that says so, rather than the
    // conversion's bare "failed to legalize".
    int64_t headDim = qType.getDimSize(3);
    if (ShapedType::isDynamic(headDim) || headDim % kChunk != 0 ||
        headDim > kMaxHeadDim)
      return op.emitOpError()
             << "CUDA lowering: head_dim must be static, a multiple of "
             << kChunk << " and at most " << kMaxHeadDim;
    if (qType.isDynamicDim(0))
      return op.emitOpError("CUDA lowering: the batch must be static");

    AttentionShape shape;
    shape.batch = qType.getDimSize(0);
    shape.numHeads = op.getNumHeads();
    shape.numKvHeads = op.getNumKvHeads();
    shape.headDim = headDim;
    shape.keyCount = kvType.getDimSize(1);
    if (storedCache && storedCache.isPaged()) {
      shape.pageSize = storedCache.getPageSize();
      shape.pageCount = storedCache.getPageCount();
    }
    shape.groupSize = shape.numHeads / shape.numKvHeads;
    shape.headsPerBlock = getHeadsPerBlock(shape.groupSize, kMaxHeadsPerBlock);
    shape.causal = op.getCausal();
    shape.window = op.getSlidingWindow();
    shape.queryType = qType.getElementType();
    shape.kvType = kvType.getElementType();
    if (storedCache && storedCache.isQuantized()) {
      shape.kvType = storedCache.getElementType();
      shape.quantized = true;
    }
    Value positions = adaptor.getPositions();
    // Non-causal attention never reads positions (every key is visible).
    if (!shape.causal)
      positions = Value();
    if (positions)
      shape.positionType =
          cast<MemRefType>(positions.getType()).getElementType();
    shape.scale = op.getEffectiveScale();
    if (std::optional<APFloat> softcap = op.getSoftcap())
      shape.softcap = softcap->convertToDouble();

    // The kernels index q, k and v with static heads and head_dim (a page
    // pool is static).
    auto withStatic = [&](Value buffer, int64_t dim, int64_t extent) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.isDynamicDim(dim))
        return buffer;
      SmallVector<int64_t> shapeDims(type.getShape());
      shapeDims[dim] = extent;
      return memref::CastOp::create(rewriter, loc, type.clone(shapeDims),
                                    buffer)
          .getResult();
    };
    Value q = withStatic(adaptor.getQ(), 2, shape.numHeads);
    auto staticKV = [&](Value buffer) {
      return withStatic(withStatic(buffer, 2, shape.numKvHeads), 3, headDim);
    };
    Value k = storedK ? storedK : staticKV(adaptor.getK());
    Value v = storedV ? storedV : staticKV(adaptor.getV());
    if (cast<MemRefType>(k.getType()).isDynamicDim(0)) {
      k = withStatic(k, 0, shape.batch);
      v = withStatic(v, 0, shape.batch);
    }
    resultType = cast<MemRefType>(
        cast<MemRefType>(q.getType()).clone(resultType.getElementType()));

    // Decode: one query row and a static S give a fixed split-K grid (CUDA
    // graph replay); anything else is a flash-attention prefill.
    bool decode =
        qType.getDimSize(1) == 1 && !ShapedType::isDynamic(shape.keyCount);
    Value result =
        decode ? emitDecodeAttention(rewriter, loc, kernels, shape, resultType,
                                     q, k, v, pageTable, positions)
               : emitFlashAttention(rewriter, loc, kernels, shape, resultType,
                                    q, k, v, pageTable, positions);
    auto originalType =
        cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    if (result.getType() != originalType)
      result = memref::CastOp::create(rewriter, loc, originalType, result);
    rewriter.replaceOp(op, result);
    return success();
  }

};

} // namespace

void llmc::cuda::populateAttentionKernelPatterns(TypeConverter &converter,
                                                 RewritePatternSet &patterns,
                                                 KernelModule &kernels) {
  patterns.add<AttentionLowering>(converter, patterns.getContext(), kernels);
}
