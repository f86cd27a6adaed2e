// Lowers llm.add, llm.glu, llm.activation and tensor.concat to element-wise linalg.generic ops.
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/common/Activation.h"
#include "codegen/cpu/LoweringUtils.h"
#include "dialect/LLMAttrs.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

/// A rank-matched, all-parallel linalg.generic over `inputs` (all of type
/// `type`) whose body maps the compute-type scalars through `body` and
/// converts back to the element type.
Value createElementwise(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body,
    bool widen = true) {
  Value init = llmc::createEmptyLike(b, loc, type, inputs.front());
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type elementType = type.getElementType();
  // Activations are evaluated in f32 at least (exp/erf/tanh in bf16 lose
  // too much); `widen = false` computes in the element type.
  Type computeType = widen ? llmc::getComputeType(elementType) : elementType;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> operands;
        for (Value arg : args.drop_back())
          operands.push_back(llmc::convertFloat(nb, nloc, arg, computeType));
        Value result = body(nb, nloc, operands);
        linalg::YieldOp::create(
            nb, nloc, llmc::convertFloat(nb, nloc, result, elementType));
      });
  return generic.getResult(0);
}

struct AddOpLowering : OpConversionPattern<llm::AddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::AddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Summed in the element type itself: a residual add in bf16 is exactly
    // rounded either way.
    Value result = createElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::AddFOp::create(b, loc, args[0], args[1]);
        },
        /*widen=*/false);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GLUOpLowering : OpConversionPattern<llm::GLUOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::GLUOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    llm::Activation activation = op.getActivation();
    Value result = createElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getGate(), adaptor.getUp()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value act = llmc::createActivation(b, loc, activation, args[0]);
          return arith::MulFOp::create(b, loc, act, args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ActivationOpLowering : OpConversionPattern<llm::ActivationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(llm::ActivationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    llm::Activation activation = op.getActivation();
    Value result = createElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        ValueRange{adaptor.getX()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return llmc::createActivation(b, loc, activation, args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tensor.concat (multi-head latent attention joins the latent query and
/// the rotated one, the latent and the rotated key) as one generic that
/// writes every output element from the input holding it: bufferized, the
/// upstream decomposition copies each input into a strided view of the
/// result, which the LLVM lowering turns into calls of the MLIR runner
/// library's memrefCopy, which artifacts do not link.
struct ConcatOpLowering : OpConversionPattern<tensor::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    const int64_t rank = type.getRank();
    const int64_t dim = op.getDim();
    SmallVector<int64_t> starts;
    int64_t start = 0;
    for (Value input : op.getInputs()) {
      int64_t extent = cast<RankedTensorType>(input.getType()).getDimSize(dim);
      if (ShapedType::isDynamic(extent))
        return rewriter.notifyMatchFailure(op, "dynamic concatenated extent");
      starts.push_back(start);
      start += extent;
    }
    Value init = llmc::createEmptyLike(rewriter, loc, type,
                                       adaptor.getInputs().front());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        iterators, [&](OpBuilder &nb, Location nloc, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d)
            indices.push_back(linalg::IndexOp::create(nb, nloc, d));
          Value at = indices[dim];
          // From the last input back: each read at an index clamped into
          // its input, the one whose range holds `at` selected.
          Value result;
          for (int64_t i = starts.size() - 1; i >= 0; --i) {
            Value input = adaptor.getInputs()[i];
            int64_t extent =
                cast<RankedTensorType>(input.getType()).getDimSize(dim);
            Value first = arith::ConstantIndexOp::create(nb, nloc, starts[i]);
            Value last =
                arith::ConstantIndexOp::create(nb, nloc, starts[i] + extent - 1);
            Value clamped = arith::SubIOp::create(
                nb, nloc,
                arith::MinUIOp::create(
                    nb, nloc, arith::MaxUIOp::create(nb, nloc, at, first),
                    last),
                first);
            SmallVector<Value> inputIndices = indices;
            inputIndices[dim] = clamped;
            Value element =
                tensor::ExtractOp::create(nb, nloc, input, inputIndices);
            if (!result) {
              result = element;
              continue;
            }
            Value below = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::ult, at,
                arith::ConstantIndexOp::create(nb, nloc,
                                               starts[i] + extent));
            result = arith::SelectOp::create(nb, nloc, below, element, result);
          }
          linalg::YieldOp::create(nb, nloc, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void llmc::populateElementwiseToLinalgPatterns(TypeConverter &converter,
                                               RewritePatternSet &patterns) {
  patterns.add<AddOpLowering, GLUOpLowering, ActivationOpLowering,
               ConcatOpLowering>(
      converter, patterns.getContext());
}
