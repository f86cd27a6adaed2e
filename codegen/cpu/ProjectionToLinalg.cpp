// Lowers llm.linear, llm.head_linear and llm.logits to a contraction linalg.generic, llm.embedding to a gather (generic, or block decoding).
#include "codegen/common/BlockDecoding.h"
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/LoweringUtils.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// Block-quantized weights are decoded in registers by the vector kernels
/// (ProjectionToVector.cpp), which also read float rows in interleaved
/// groups; the generic contraction reads plain rows of elements.
constexpr const char *kStoredLayoutNeedsVectorKernels =
    "block-quantized and interleaved weights need the vector projection "
    "kernels";

/// Whether `weight`'s storage differs from its plain rows of elements.
bool hasStoredLayout(Value weight) {
  auto type = cast<RankedTensorType>(weight.getType());
  return llm::getWeightStorageType(type) != type;
}

/// The body of a contraction generic over (x, w, acc): yields acc + x·w,
/// both factors widened to `accType`.
void yieldMultiplyAdd(OpBuilder &b, Location loc, ValueRange args,
                      Type accType) {
  Value x = llmc::convertFloat(b, loc, args[0], accType);
  Value w = llmc::convertFloat(b, loc, args[1], accType);
  Value product = arith::MulFOp::create(b, loc, x, w);
  linalg::YieldOp::create(b, loc,
                          arith::AddFOp::create(b, loc, args[2], product)
                              .getResult());
}

/// Lanes of the vectors a block-quantized embedding row is decoded in.
constexpr int64_t kGatherLanes = 16;

/// Alignment of the gathered rows' buffer: one cache line.
constexpr int64_t kGatherAlignment = 64;

/// llm.embedding on a block-quantized table (`storage`, its bytes [V,
/// rowBytes]): each token's row decoded block by block into a fresh buffer
/// of `type`, vectors written straight from registers, so that the table
/// is never dequantized as a whole.
Value gatherBlockRows(OpBuilder &b, Location loc, Value tokens, Value storage,
                      llm::BlockQuantType format, RankedTensorType type) {
  int64_t rank = type.getRank();
  SmallVector<Value> dynamicSizes = llmc::getDynamicExtents(b, loc, tokens);
  Value out = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes, b.getI64IntegerAttr(kGatherAlignment));

  // Tokens and rows flattened: [Πtokens] and [Πtokens, D].
  ReassociationIndices all;
  for (int64_t d = 0; d < rank - 1; ++d)
    all.push_back(d);
  Value flatTokens = tensor::CollapseShapeOp::create(
      b, loc, tokens, SmallVector<ReassociationIndices>{all});
  Value rows = memref::CollapseShapeOp::create(
      b, loc, out, SmallVector<ReassociationIndices>{all, {rank - 1}});

  llmc::BlockDecoder decoder(format, storage, kGatherLanes);
  Value zero = llmc::indexConstant(b, loc, 0), one = llmc::indexConstant(b, loc, 1);
  Value count = tensor::DimOp::create(b, loc, flatTokens, 0);
  Value blocks = llmc::indexConstant(
      b, loc, type.getShape().back() / decoder.getBlockElements());
  scf::buildLoopNest(
      b, loc, {zero, zero}, {count, blocks}, {one, one},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        Value token = tensor::ExtractOp::create(nb, nloc, flatTokens, ivs[0]);
        Value row =
            arith::IndexCastOp::create(nb, nloc, nb.getIndexType(), token);
        decoder.decodeInto(nb, nloc, decoder.loadBlock(nb, nloc, row, ivs[1]),
                           ivs[1], rows, ivs[0]);
      });
  return bufferization::ToTensorOp::create(b, loc, type, out,
                                           /*restrict=*/b.getUnitAttr(),
                                           /*writable=*/b.getUnitAttr());
}

/// x[l..., K] · W[N, K]ᵀ (+ bias[N]) → [l..., N] of `resultType`.
///
/// One generic whose loops are every leading dimension of x (parallel), n
/// (parallel) and k (reduction): no reshape is needed, so a dynamic sequence
/// dimension stays a plain loop bound. Products are accumulated in f32 (or
/// the result type when wider) with narrow weights widened inside the body,
/// so bf16/f16 weights are never materialized in f32.
Value createProjection(OpBuilder &b, Location loc, Value x, Value weight,
                       Value bias, RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  int64_t numLoops = rank + 1;
  Type elementType = resultType.getElementType();
  Type accType = llmc::getComputeType(elementType);
  MLIRContext *context = b.getContext();

  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes.back() = tensor::getMixedSize(b, loc, weight, 0);
  Value init = tensor::EmptyOp::create(b, loc, sizes, accType);
  auto outMap = AffineMap::getMultiDimIdentityMap(rank, context);
  auto accumulatorType = cast<RankedTensorType>(init.getType());

  // The accumulator starts at the bias (broadcast over rows) or at zero.
  if (bias) {
    auto biasMap =
        AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1), context);
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    init = linalg::GenericOp::create(
               b, loc, TypeRange{accumulatorType}, ValueRange{bias},
               ValueRange{init}, {biasMap, outMap}, parallel,
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 linalg::YieldOp::create(
                     nb, nloc, llmc::convertFloat(nb, nloc, args[0], accType));
               })
               .getResult(0);
  } else {
    init = llmc::createFilled(b, loc, init, 0.0);
  }

  // Loops (l..., n, k): x(l..., k), W(n, k), out(l..., n).
  SmallVector<AffineExpr> xExprs;
  for (int64_t d = 0; d < rank - 1; ++d)
    xExprs.push_back(b.getAffineDimExpr(d));
  xExprs.push_back(b.getAffineDimExpr(rank));
  auto xMap = AffineMap::get(numLoops, 0, xExprs, context);
  auto wMap = AffineMap::get(
      numLoops, 0, {b.getAffineDimExpr(rank - 1), b.getAffineDimExpr(rank)},
      context);
  auto accMap = AffineMap::getMultiDimIdentityMap(numLoops, context)
                    .getMajorSubMap(rank);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Value acc =
      linalg::GenericOp::create(
          b, loc, TypeRange{accumulatorType}, ValueRange{x, weight},
          ValueRange{init}, {xMap, wMap, accMap}, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            yieldMultiplyAdd(nb, nloc, args, accType);
          })
          .getResult(0);
  if (accType == elementType)
    return acc;

  // Narrow activations: round the f32 sums once at the end.
  Value out = tensor::EmptyOp::create(b, loc, sizes, elementType);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{acc}, ValueRange{out},
             {outMap, outMap}, parallel,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   llmc::convertFloat(nb, nloc, args[0], elementType));
             })
      .getResult(0);
}

struct LinearOpLowering : OpConversionPattern<llm::LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // llm-lower-to-linalg decomposes residuals into llm.add first.
    if (op.getResidual())
      return rewriter.notifyMatchFailure(op, "residual not decomposed");
    if (hasStoredLayout(op.getWeight()))
      return rewriter.notifyMatchFailure(op, kStoredLayoutNeedsVectorKernels);
    rewriter.replaceOp(
        op, createProjection(rewriter, op.getLoc(), adaptor.getX(),
                             adaptor.getWeight(), adaptor.getBias(),
                             cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// llm.head_linear: the weight's rows viewed per head, (H, N, K) or (H, K,
/// N), and one contraction over K with loops (b, t, h, n, k), summed in f32.
struct HeadLinearOpLowering : OpConversionPattern<llm::HeadLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::HeadLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto xType = cast<RankedTensorType>(op.getX().getType());
    auto weightType = cast<RankedTensorType>(op.getWeight().getType());
    Type accType = llmc::getComputeType(resultType.getElementType());
    if (accType != resultType.getElementType())
      return rewriter.notifyMatchFailure(op, "results narrower than f32");
    const bool transposed = op.getTransposeWeight();
    const int64_t heads = xType.getDimSize(2), in = xType.getDimSize(3),
                  out = resultType.getDimSize(3);
    SmallVector<int64_t> perHead = {heads, transposed ? in : out,
                                    transposed ? out : in};
    Value weight = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(perHead, weightType.getElementType()),
        adaptor.getWeight(), ArrayRef<ReassociationIndices>{{0, 1}, {2}});

    auto accumulatorType = resultType;
    Value init = llmc::createFilled(
        rewriter, loc,
        llmc::createEmptyLike(rewriter, loc, accumulatorType, adaptor.getX()),
        0.0);
    auto d = [&](unsigned i) { return rewriter.getAffineDimExpr(i); };
    // Loops (b, t, h, n, k).
    auto xMap = AffineMap::get(5, 0, {d(0), d(1), d(2), d(4)}, context);
    auto wMap = AffineMap::get(
        5, 0,
        transposed ? ArrayRef<AffineExpr>{d(2), d(4), d(3)}
                   : ArrayRef<AffineExpr>{d(2), d(3), d(4)},
        context);
    auto outMap = AffineMap::get(5, 0, {d(0), d(1), d(2), d(3)}, context);
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{accumulatorType},
            ValueRange{adaptor.getX(), weight}, ValueRange{init},
            {xMap, wMap, outMap}, iterators,
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              yieldMultiplyAdd(nb, nloc, args, accType);
            })
            .getResult(0);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct LogitsOpLowering : OpConversionPattern<llm::LogitsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::LogitsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // `tied` only tells the runtime to bind one buffer twice; the math is the
    // same.
    if (hasStoredLayout(op.getWeight()))
      return rewriter.notifyMatchFailure(op, kStoredLayoutNeedsVectorKernels);
    Value logits = createProjection(rewriter, op.getLoc(), adaptor.getX(),
                                    adaptor.getWeight(), adaptor.getBias(),
                                    cast<RankedTensorType>(op.getType()));
    rewriter.replaceOp(op, llmc::softcapInPlace(rewriter, op.getLoc(), logits,
                                                op.getSoftcap()));
    return success();
  }
};

struct EmbeddingOpLowering : OpConversionPattern<llm::EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tokens = adaptor.getTokens(), table = adaptor.getTable();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    MLIRContext *context = rewriter.getContext();
    if (llm::BlockQuantType format =
            llm::getBlockQuantElementType(op.getTable().getType())) {
      rewriter.replaceOp(
          op, scaleEmbedding(rewriter, loc, op,
                             gatherBlockRows(rewriter, loc, tokens, table,
                                             format, type)));
      return success();
    }

    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, tokens);
    sizes.push_back(tensor::getMixedSize(rewriter, loc, table, 1));
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, elementType);

    // A gather: each output element reads table[token, d], the row chosen by
    // data, hence tensor.extract rather than an indexing map.
    auto tokenMap = AffineMap::getMultiDimIdentityMap(rank, context)
                        .getMajorSubMap(rank - 1);
    auto outMap = AffineMap::getMultiDimIdentityMap(rank, context);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{tokens}, ValueRange{init},
        {tokenMap, outMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value column = linalg::IndexOp::create(b, l, rank - 1);
          Value element = tensor::ExtractOp::create(b, l, table,
                                                    ValueRange{row, column});
          linalg::YieldOp::create(
              b, l, llmc::convertFloat(b, l, element, elementType));
        });
    rewriter.replaceOp(op,
                       scaleEmbedding(rewriter, loc, op, generic.getResult(0)));
    return success();
  }

  /// The gathered rows times the op's scale (in f32), or unchanged.
  static Value scaleEmbedding(OpBuilder &b, Location loc, llm::EmbeddingOp op,
                              Value rows) {
    std::optional<APFloat> scale = op.getScale();
    if (!scale)
      return rows;
    double factor = scale->convertToDouble();
    return llmc::mapElementsInPlace(
        b, loc, rows, [&](OpBuilder &nb, Location l, Value element) -> Value {
          Value constant = arith::ConstantOp::create(
              nb, l, nb.getFloatAttr(element.getType(), factor));
          return arith::MulFOp::create(nb, l, element, constant);
        });
  }
};

} // namespace

void llmc::populateProjectionToLinalgPatterns(TypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<LinearOpLowering, HeadLinearOpLowering, LogitsOpLowering,
               EmbeddingOpLowering>(
      converter, patterns.getContext());
}
