// llm.embedding → one CTA per token copying its table row (vectorized,
// converted to the result type, or decoded from its blocks).
#include "codegen/cuda/BlockDequant.h"
#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc::cuda;
using llmc::BlockDecoder;

namespace {

/// Most threads per CTA: a row is only a few KiB, so one CTA per token with
/// up to 256 threads keeps every SM busy for any sequence length.
constexpr int64_t kMaxBlockSize = 256;

/// Elements per 128-bit access of `elementType`, narrowed until it divides
/// `extent` (so every row starts aligned to the access size).
int64_t getAccessWidth(int64_t extent, Type elementType) {
  int64_t width = 128 / elementType.getIntOrFloatBitWidth();
  while (extent % width != 0)
    width /= 2;
  return width;
}

int64_t getBlockSize(int64_t numVectors) {
  return std::min<int64_t>(kMaxBlockSize, llvm::alignTo(numVectors, kWarpSize));
}

/// The units a thread of the embedding kernel copies: 128-bit vectors of a
/// float row, or whole blocks of a block-quantized one.
int64_t getRowUnits(int64_t hidden, Type tableElement,
                    llm::BlockQuantType format) {
  if (format)
    return hidden / format.getBlockElements();
  return hidden / getAccessWidth(hidden, tableElement);
}

/// f32 `values` times the kernel's scale argument (null: unchanged).
Value applyScale(DeviceBuilder &d, Value values, Value scale) {
  if (!scale)
    return values;
  OpBuilder &b = d.builder();
  return arith::MulFOp::create(
      b, d.location(), values,
      vector::BroadcastOp::create(b, d.location(), values.getType(), scale));
}

/// Decodes block `blockIndex` of table row `row` into row `token` of out,
/// kBlockDecodeLanes elements per store, times `scale` unless null (zeros
/// when `valid` is false).
void emitBlockRowCopy(DeviceBuilder &d, const BlockDecoder &decoder,
                      Value row, Value blockIndex, Value valid, Value out,
                      Value token, Type resultType, Value scale) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  auto lanesType = VectorType::get({kBlockDecodeLanes}, b.getF32Type());
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(lanesType, b.getF32FloatAttr(0.0f)));
  BlockDecoder::Block block = decoder.loadBlock(b, loc, row, blockIndex);
  Value start = arith::MulIOp::create(
      b, loc, blockIndex, d.index(decoder.getBlockElements()));
  for (int64_t first = 0; first < decoder.getBlockElements();
       first += kBlockDecodeLanes) {
    Value values =
        applyScale(d, decoder.decode(b, loc, block, first), scale);
    values = arith::SelectOp::create(b, loc, valid, values, zeros);
    Value column = arith::AddIOp::create(b, loc, start, d.index(first));
    d.storeVector(d.fromF32(values, resultType), out, {token, column});
  }
}

/// embedding_v<V>_d<D>_<ids>_<table>_to_<result>[_scaled]: block i copies
/// row tokens[i] of the table (V × D) to row i of out (tokens × D), times
/// an f32 `scale` argument after out when `scaled` (Gemma's √hidden, in
/// f32); a table of a block format (its bytes, V × rowBytes i8; <table> is
/// the format's name) is decoded a block per thread. An id outside [0, V)
/// (the runtime rejects those before a call) yields a row of zeros instead
/// of a read out of bounds.
gpu::GPUFuncOp getEmbeddingKernel(KernelModule &kernels, Type idType,
                                  MemRefType tableType,
                                  llm::BlockQuantType format, Type resultType,
                                  bool scaled) {
  int64_t vocab = tableType.getDimSize(0);
  int64_t hidden = format ? tableType.getDimSize(1) / format.getBlockBytes() *
                                format.getBlockElements()
                          : tableType.getDimSize(1);
  Type tableElement = tableType.getElementType();
  int64_t width = getAccessWidth(hidden, tableElement);
  int64_t numUnits = getRowUnits(hidden, tableElement, format);
  int64_t blockSize = getBlockSize(numUnits);
  std::string name = "embedding_v" + std::to_string(vocab) + "_d" +
                     std::to_string(hidden) + "_" + getTypeTag(idType) + "_" +
                     (format ? getBlockTag(format) : getTypeTag(tableElement)) +
                     "_to_" + getTypeTag(resultType) + (scaled ? "_scaled" : "");
  auto dyn = ShapedType::kDynamic;
  auto idsType = MemRefType::get({dyn}, idType);
  auto outType = MemRefType::get({dyn, hidden}, resultType);
  SmallVector<Type> argTypes{idsType, tableType, outType};
  if (scaled)
    argTypes.push_back(Float32Type::get(idType.getContext()));
  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, argTypes,
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location loc = func.getLoc();
        DeviceBuilder d(b, loc);
        Value ids = func.getArgument(0), table = func.getArgument(1);
        Value out = func.getArgument(2);
        Value token = d.blockId();
        // index_cast sign-extends, so negative ids compare as huge here.
        Value id = d.toIndex(memref::LoadOp::create(b, loc, ids, token));
        Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            id, d.index(vocab));
        Value row = arith::SelectOp::create(b, loc, valid, id, d.index(0));
        Value scale = scaled ? func.getArgument(3) : Value();
        if (format) {
          auto loop = scf::ForOp::create(b, loc, d.threadId(),
                                         d.index(numUnits), d.index(blockSize));
          b.setInsertionPointToStart(loop.getBody());
          emitBlockRowCopy(d, makeBlockDecoder(format, table), row,
                           loop.getInductionVar(), valid, out, token,
                           resultType, scale);
          return;
        }
        auto resultVector = VectorType::get({width}, resultType);
        Value zeros = arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(resultVector,
                                   FloatAttr::get(resultType, 0.0)));
        auto loop = scf::ForOp::create(b, loc, d.threadId(),
                                       d.index(numUnits), d.index(blockSize));
        b.setInsertionPointToStart(loop.getBody());
        Value col = arith::MulIOp::create(b, loc, loop.getInductionVar(),
                                          d.index(width));
        Value v = d.loadVector(VectorType::get({width}, tableElement), table,
                               {row, col});
        v = d.fromF32(applyScale(d, d.toF32(v), scale), resultType);
        v = arith::SelectOp::create(b, loc, valid, v, zeros);
        d.storeVector(v, out, {token, col});
      });
  kernel.setKnownBlockSize(
      ArrayRef<int32_t>{static_cast<int32_t>(blockSize), 1, 1});
  return kernel;
}

struct EmbeddingLowering : KernelPattern<llm::EmbeddingOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tokens = adaptor.getTokens(), table = adaptor.getTable();
    auto tableType = cast<MemRefType>(table.getType());
    if (!tableType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic table shape");
    auto resultType = dyn_cast_or_null<MemRefType>(
        getTypeConverter()->convertType(op.getType()));
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    Type resultElement = resultType.getElementType();
    if (tableType.getElementTypeBitWidth() > 32 ||
        resultElement.getIntOrFloatBitWidth() > 32)
      return rewriter.notifyMatchFailure(op, "f64 table or result");
    auto tokensType = cast<MemRefType>(tokens.getType());

    // (B, T) ids → (B·T); result (B, T, D) → (B·T, D).
    SmallVector<ReassociationIndices> allIds(1), toRows(2);
    for (int64_t dim = 0; dim < tokensType.getRank(); ++dim) {
      allIds[0].push_back(dim);
      toRows[0].push_back(dim);
    }
    toRows[1].push_back(tokensType.getRank());
    Value ids = tokens;
    if (tokensType.getRank() != 1)
      ids = memref::CollapseShapeOp::create(rewriter, loc, tokens, allIds);
    Value result = allocateResult(rewriter, loc, resultType,
                                  getDynamicSizes(rewriter, loc, tokens));
    Value outRows = result;
    if (tokensType.getRank() != 1)
      outRows = memref::CollapseShapeOp::create(rewriter, loc, result, toRows);

    std::optional<APFloat> scale = op.getScale();
    llm::BlockQuantType format =
        llm::getBlockQuantElementType(op.getTable().getType());
    gpu::GPUFuncOp kernel =
        getEmbeddingKernel(kernels, tokensType.getElementType(), tableType,
                           format, resultElement, scale.has_value());
    LaunchShape shape;
    shape.grid[0] = memref::DimOp::create(rewriter, loc, ids, 0);
    shape.block = {kernel.getKnownBlockSize()->front(), 1, 1};
    SmallVector<Value> args{ids, table, outRows};
    if (scale)
      args.push_back(arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getF32FloatAttr(
              static_cast<float>(scale->convertToDouble()))));
    emitLaunch(rewriter, loc, kernel, shape, args);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void llmc::cuda::populateEmbeddingKernelPatterns(TypeConverter &converter,
                                                 RewritePatternSet &patterns,
                                                 KernelModule &kernels) {
  patterns.add<EmbeddingLowering>(converter, patterns.getContext(), kernels);
}
