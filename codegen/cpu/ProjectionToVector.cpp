// Lowers llm.linear / llm.logits to the threaded vector kernels: a GEMV for
// one row (decode), a register-tiled GEMM for more (prefill).
#include "codegen/cpu/BF16Dot.h"
#include "codegen/cpu/LLMToLinalg.h"
#include "codegen/cpu/LoweringUtils.h"
#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMOps.h"

#include <memory>

using namespace mlir;

namespace {

/// Decode on float weights (f32, f16, bf16), and on block weights in the
/// file's rows with int8 dot products (the K-quants, on AVX2: see
/// getKQuantGemvTile; the 32-element formats are interleaved, a group of 8
/// rows per tile): one weight row per tile,
/// so that each thread reads its share of W as one sequential stream, the
/// access the hardware prefetchers follow best. Tiles of 2 or 4 rows read
/// as many streams a row apart, which costs more than sharing the loaded x
/// vectors or codes (L1 hits) saves. Measured on a 2-core Zen 3 (AVX2,
/// SmolLM2-135M shapes, 2 threads, llmc-run decode after 128 tokens,
/// interleaved runs, tok/s):
/// - F16, 2 -> 1 row: 89-96 -> 104-109 (5 runs each); F32 unchanged
///   (46-57 either way, already at the read bandwidth). A C loop over the
///   same f16 GEMVs read 24.8 GB/s with 2 rows, 21.9 with 4, 29.9 with 1.
///   32 lanes per step instead of 16 (four ymm FMA chains instead of two)
///   measured 87-91 against 96-100. On a 2-core Zen 4 (AVX-512, where 16
///   lanes are one zmm FMA chain per row), bench/turns.c --decode, 20-30
///   rounds: 2 rows 0.81x (TinyLlama-1.1B F16) and 0.94x (SmolLM2 F16), 32
///   lanes 0.80x and 0.93x; the one chain does not bound the stream. A C
///   loop over f16 rows (1 thread, 256 MiB, 16 KiB prefetch; stream.c's
///   read 32.6 GB/s) agrees: one chain 28.8-30.2 GB/s at K = 2048 and
///   23.9-26.6 at K = 576, two chains 24.6-25.0 and 23.5-24.5.
/// - The K-quant GEMVs, 4 -> 1 row (medians of 5): Q4_K_M mix 162 -> 186,
///   Q6_K mix 152 -> 177; 2 rows 168 / 162. (On a 2-core Sapphire Rapids,
///   before the interleaved layout, 4 rows had beaten 2 for every format;
///   on Zen 4 2 rows beat 1: getKQuantGemvTile.)
constexpr llmc::ProjectionTile kRowGemvTile = {/*xRows=*/1, /*weightRows=*/1};

/// FMA chains of the f16 decode GEMV's row where a vector of its lanes is
/// one register (f16 weights in their rows: a tied embedding table read as
/// the LM head, or a row count that is no multiple of 16; the others are
/// interleaved, kInterleavedFloatGemvTile. AVX-512; AVX2's two ymm halves are two chains already:
/// four measured slower on Zen 3, above, and even on Zen 4's x86-64-v3
/// code, 0.97-1.04x in 8 turns). Measured on a 2-core Zen 4
/// (bench/turns.c --decode, 4 rounds per turn, alternating with
/// bench/stream.c; tok/s, one chain -> two):
/// - SmolLM2-135M's shape F16 (1152-byte rows, not prefetched): two won 11
///   of 12 turns, 7-17% where the host read 44-60 GB/s (131 -> 149,
///   146 -> 160, 140 -> 157), 1-6% where it read 31-34; at one thread
///   1.10x (15 rounds, 1.01 to 1.33).
/// - Not for the other float rows: BF16 (the same rows, widened by
///   shifts) even (164-170 either way at 62-73 GB/s; one thread 1.01x;
///   a TinyLlama-shaped BF16 file's unprefetched 4 KiB rows 0.99-1.01x in
///   4 turns, 0.988x at one thread, 16:40 UTC; SmolLM2's 0.81-1.01x),
///   F32 (2304-byte rows) 0.87x (91 -> 80 at 62-71 GB/s), and f16 rows the
///   kernel prefetches (TinyLlama-1.1B's 4 KiB rows while they were
///   prefetched: 0.85-0.90x in the fast phase; LLaMA-3-8B's layers, 8 and
///   28 KiB: 0.79-0.83x, and 0.80-0.96x with the prefetch 32 or 64 KiB
///   ahead): VectorProjection keeps one chain there. TinyLlama's rows are
///   now summed in two chains without the prefetch, which measured faster
///   still (prefetchesWeightRows).
/// Why f16's one chain falls short where bf16's does not is not known
/// (no performance counters in this VM).
constexpr int64_t kF16GemvChains = 2;

/// The decode GEMV's tile on f16 weights.
llmc::ProjectionTile getF16GemvTile(llmc::CPUVectorRegisters registers) {
  llmc::ProjectionTile tile = kRowGemvTile;
  if (registers.bits >= tile.lanes * 32)
    tile.chains = kF16GemvChains;
  return tile;
}

/// The K-quants' int8 decode GEMV (rows in the file's layout, each row's
/// codes unpacked and its run scales weighted in the dot): two weight rows
/// per tile on a CPU with 32 vector registers (AVX-512), which then share
/// each load of x's codes, its scale and its run sums, one row otherwise.
/// Measured on a 2-core Zen 4 (AVX-512 VNNI, 2 threads, decode after 128
/// tokens, interleaved pairs, tok/s, medians; the second run of a pair
/// tends to be a few % faster, so both orders): TinyLlama-1.1B Q4_K_M 1
/// row 48.0, 2 rows 51.0 (run second, won 8 of 9); 2 rows 53.7 against
/// 47.4 (run first, won 4 of 5); 4 rows 46.7. SmolLM2-135M shape Q6_K mix
/// (K-quants only in its 1536-wide rows): 202 -> 219 run second, 207 -> 211
/// run first. On the Zen 3 above (AVX2, 16 registers) 1 row had beaten 2.
llmc::ProjectionTile getKQuantGemvTile(llmc::CPUVectorRegisters registers) {
  llmc::ProjectionTile tile = kRowGemvTile;
  if (registers.count >= 32)
    tile.weightRows = 2;
  return tile;
}

/// Decode on block weights decoded to f32 in registers (--block-dot=f32):
/// two rows share each decoded x vector and keep two FMA chains in flight;
/// the decode, not the stream, bounds this kernel. On the Zen 3 above, 1
/// row instead measured Q4_0 93-109 against 93-110, Q6_K mix 80-96
/// against 84-91 (5 runs each).
constexpr llmc::ProjectionTile kBlockF32GemvTile = {/*xRows=*/1,
                                                    /*weightRows=*/2};

/// Decode on float rows in interleaved groups (`!llm.interleaved<...>`):
/// one group of 16 rows per iteration (the kernel's, whatever the tile's
/// weightRows), x's elements broadcast to its columns in four FMA chains,
/// so that no chain's latency bounds the stream. The layout's C model
/// (bench/f16_rows.c `inter16`: 16-row groups, 4 chains, no prefetch) read
/// f16 rows at or within a few % of the best row kernel at every K from 576
/// to 14336 on a 2-core Zen 4: 25.0-30.6 GB/s on one thread, 31.7-34.6 on
/// two, where the rows without the prefetch fell to 11-17 GB/s from K =
/// 5632.
constexpr llmc::ProjectionTile kInterleavedFloatGemvTile = {
    /*xRows=*/1, /*weightRows=*/1, /*lanes=*/16, /*rowBlockBytes=*/0,
    /*chains=*/4};

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
                     llmc::Int8DotKind int8Dot, bool bf16Dot,
                     std::shared_ptr<llmc::QuantizedActivationCache> activations)
      : OpConversionPattern<OpTy>(converter, context,
                                  kVectorProjectionBenefit),
        minParallelWeightElements(minParallelWeightElements),
        gemmTile(llmc::getGemmTile(registers)),
        bf16DotGemmTile(llmc::getBF16DotGemmTile(registers)),
        int8GemmTile(llmc::getInt8GemmTile(registers)),
        kQuantGemvTile(getKQuantGemvTile(registers)),
        f16GemvTile(getF16GemvTile(registers)),
        interleavedGemmTile(llmc::getInterleavedGemmTile(registers, 1)),
        interleavedPairGemmTile(llmc::getInterleavedGemmTile(
            registers, mlir::llm::InterleavedFloatType::kBF16PairColumns)),
        int8Dot(int8Dot),
        bf16Dot(bf16Dot),
        activations(std::move(activations)) {}

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
    llmc::ProjectionTile tile = kRowGemvTile;
    bool dot = bf16Dot;
    if (auto groups = mlir::llm::getInterleavedFloatElementType(weightType)) {
      // bf16 pairs: VDPBF16PS takes a group's run as one operand (a vector
      // per group and step, as for one column), where the CPU has it at
      // full width; else the run's two columns are widened for f32 FMAs.
      bool pairs = groups.getColumns() > 1;
      dot = pairs && bf16Dot && bf16DotGemmTile.lanes == llmc::kBF16DotLanes;
      tile = gemv                ? kInterleavedFloatGemvTile
             : pairs && !dot     ? interleavedPairGemmTile
                                 : interleavedGemmTile;
    } else if (!gemv)
      tile = int8Blocks                                  ? int8GemmTile
             : llmc::usesBF16DotGemm(weightType, bf16Dot) ? bf16DotGemmTile
                                                          : gemmTile;
    else if (weightFormat && !int8Blocks)
      tile = kBlockF32GemvTile;
    else if (int8Blocks && llmc::hasInterleavedGemv(weightFormat))
      // An interleaved weight's decode GEMV takes a whole group per tile.
      tile.weightRows = llmc::kInterleavedGemvRows;
    else if (int8Blocks && weightFormat.getBlockElements() > 32)
      // The K-quants' 256-element super-blocks, in the file's rows.
      tile = kQuantGemvTile;
    else if (weightType.getElementType().isF16())
      tile = f16GemvTile;
    Value result = llmc::createVectorProjection(
        rewriter, op.getLoc(), adaptor.getX(), adaptor.getWeight(),
        weightType, bias, resultType,
        tile, int8Dot, dot, minParallelWeightElements, *activations);
    rewriter.replaceOp(op, llmc::softcapInPlace(rewriter, op.getLoc(), result,
                                                getSoftcap(op)));
    return success();
  }

  int64_t minParallelWeightElements;
  llmc::ProjectionTile gemmTile;
  /// bf16 weights' under bf16Dot (VDPBF16PS's full-width vectors).
  llmc::ProjectionTile bf16DotGemmTile;
  llmc::ProjectionTile int8GemmTile;
  llmc::ProjectionTile kQuantGemvTile;
  /// f16 weights' decode GEMV (kF16GemvChains).
  llmc::ProjectionTile f16GemvTile;
  /// Float rows in interleaved groups' prefill GEMM (bf16 pairs' on
  /// VDPBF16PS too).
  llmc::ProjectionTile interleavedGemmTile;
  /// bf16 pairs' prefill GEMM in f32 FMAs (a run widened to two vectors).
  llmc::ProjectionTile interleavedPairGemmTile;
  llmc::Int8DotKind int8Dot;
  /// Whether the prefill GEMM multiplies bf16 weights in VDPBF16PS.
  bool bf16Dot;
  /// Shared by the patterns of one lowering (both op kinds): x's int8 rows
  /// quantized once for all projections of one x.
  std::shared_ptr<llmc::QuantizedActivationCache> activations;
};

} // namespace

void llmc::populateProjectionToVectorPatterns(
    TypeConverter &converter, RewritePatternSet &patterns,
    int64_t minParallelWeightElements, CPUVectorRegisters registers,
    Int8DotKind int8Dot, bool bf16Dot) {
  // One cache for both patterns (add() passes each the same lvalue).
  auto activations = std::make_shared<QuantizedActivationCache>();
  patterns.add<ProjectionToVector<llm::LinearOp>,
               ProjectionToVector<llm::LogitsOp>>(
      converter, patterns.getContext(), minParallelWeightElements, registers,
      int8Dot, bf16Dot, activations);
}
