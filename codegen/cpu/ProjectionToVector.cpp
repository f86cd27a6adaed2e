// Lowers llm.linear / llm.logits to the threaded vector kernels: a GEMV for
// one row (decode), a register-tiled GEMM for more (prefill).
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/LoweringUtils.h"
#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMOps.h"

using namespace mlir;

namespace {

/// Decode: weight rows per tile. Two rows share each loaded x vector and
/// keep two FMA chains in flight (measured 92-94% of bandwidth); more rows
/// add registers without saving weight traffic, which dominates.
constexpr llmc::ProjectionTile kGemvTile = {/*xRows=*/1, /*weightRows=*/2};

/// Decode on block-quantized weights with int8 dot products: four rows per
/// tile share each block of x's codes and scales, and their four
/// independent dot-product chains hide the decode's latency. Measured on a
/// 2-core Sapphire Rapids (SmolLM2-135M shape, 2 threads, medians of 7
/// interleaved runs, with the 4 KiB prefetch of VectorProjection.cpp):
/// against two rows and the next tile prefetched, Q4_0 99 -> 104 tok/s,
/// Q8_0 79 -> 87, Q4_K_M 80 -> 86, Q6_K 76 -> 89; 8 rows no faster than 4.
constexpr llmc::ProjectionTile kInt8GemvTile = {/*xRows=*/1,
                                                /*weightRows=*/4};

// Prefill: tokens × weight rows per tile, vectors one register wide, from
// llmc::getGemmTile: the accumulators and one K step's vectors fit the
// registers (AVX-512: 4 × 2 in 32 zmm; AVX2: 4 × 3 in 16 ymm, where
// vector<16xf32> would take two ymm each and spill), and every loaded
// vector feeds 2-4 FMAs, so the loop is compute- rather than load-bound.

/// Above the generic contraction pattern (benefit 1), which stays the
/// fallback for the types the kernel does not take.
constexpr unsigned kVectorProjectionBenefit = 2;

Value getBias(llm::LinearOp op, llm::LinearOp::Adaptor adaptor) {
  return adaptor.getBias();
}
Value getBias(llm::LogitsOp, llm::LogitsOp::Adaptor adaptor) {
  return adaptor.getBias();
}

/// A residual is decomposed into an llm.add before this lowering
/// (llmc::decomposeFusedOps); a projection still carrying one is left alone.
bool hasResidual(llm::LinearOp op) { return static_cast<bool>(op.getResidual()); }
bool hasResidual(llm::LogitsOp) { return false; }

/// Only llm.logits may be softcapped (an epilogue over the kernel's result).
std::optional<APFloat> getSoftcap(llm::LinearOp) { return std::nullopt; }
std::optional<APFloat> getSoftcap(llm::LogitsOp op) { return op.getSoftcap(); }

/// x[l..., K] · W[N, K]ᵀ (+ bias). A statically single row is a
/// matrix-vector product bound by reading W once; any other row count (static
/// or dynamic) is tiled on runtime bounds, so it needs no peeling: rows left
/// below a tile go through 1-row tiles. f32 weights are loaded as
/// vector<16xf32>; bf16/f16 ones widened with one arith.extf per vector;
/// block-quantized ones decoded from their bytes in registers.
template <typename OpTy>
struct ProjectionToVector : OpConversionPattern<OpTy> {
  ProjectionToVector(TypeConverter &converter, MLIRContext *context,
                     int64_t minParallelWeightElements,
                     llmc::CPUVectorRegisters registers,
                     llmc::Int8DotKind int8Dot)
      : OpConversionPattern<OpTy>(converter, context,
                                  kVectorProjectionBenefit),
        minParallelWeightElements(minParallelWeightElements),
        gemmTile(llmc::getGemmTile(registers)),
        int8GemmTile(llmc::getInt8GemmTile(registers)), int8Dot(int8Dot) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto xType = cast<RankedTensorType>(adaptor.getX().getType());
    // The op's own weight type: block-quantized weights are converted to
    // their bytes (the adaptor's), their format is read here.
    auto weightType = cast<RankedTensorType>(op.getWeight().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Value bias = getBias(op, adaptor);
    if (hasResidual(op))
      return rewriter.notifyMatchFailure(op, "residual not decomposed");
    if (!llmc::isVectorProjectionSupported(
            xType, weightType, bias ? bias.getType() : Type(), resultType))
      return rewriter.notifyMatchFailure(op, "element types not supported");
    mlir::llm::BlockQuantType weightFormat =
        mlir::llm::getBlockQuantElementType(weightType);
    bool gemv = llmc::getStaticRowCount(xType) == 1;
    bool int8Blocks = weightFormat && int8Dot != llmc::Int8DotKind::None;
    llmc::ProjectionTile tile = gemv ? (int8Blocks ? kInt8GemvTile : kGemvTile)
                                     : (int8Blocks ? int8GemmTile : gemmTile);
    // An interleaved weight's decode GEMV takes a whole group per tile.
    if (gemv && int8Blocks && llmc::hasInterleavedGemv(weightFormat))
      tile.weightRows = llmc::kInterleavedGemvRows;
    Value result = llmc::createVectorProjection(
        rewriter, op.getLoc(), adaptor.getX(), adaptor.getWeight(),
        weightFormat, bias, resultType,
        tile, int8Dot, minParallelWeightElements);
    rewriter.replaceOp(op, llmc::softcapInPlace(rewriter, op.getLoc(), result,
                                                getSoftcap(op)));
    return success();
  }

  int64_t minParallelWeightElements;
  llmc::ProjectionTile gemmTile;
  llmc::ProjectionTile int8GemmTile;
  llmc::Int8DotKind int8Dot;
};

} // namespace

void llmc::populateProjectionToVectorPatterns(
    TypeConverter &converter, RewritePatternSet &patterns,
    int64_t minParallelWeightElements, CPUVectorRegisters registers,
    Int8DotKind int8Dot) {
  patterns.add<ProjectionToVector<llm::LinearOp>,
               ProjectionToVector<llm::LogitsOp>>(
      converter, patterns.getContext(), minParallelWeightElements, registers,
      int8Dot);
}
