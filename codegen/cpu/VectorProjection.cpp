// The register-tiled vector kernel behind the CPU projection patterns (x · Wᵀ + bias, threaded with scf.parallel).
#include "codegen/cpu/VectorProjection.h"
#include "codegen/cpu/ActivationQuantization.h"
#include "codegen/cpu/BF16Dot.h"
#include "codegen/common/BlockDecoding.h"
#include "codegen/cpu/Int8Gemm.h"
#include "codegen/cpu/LoweringUtils.h"
#include "codegen/cpu/PackedGemm.h"
#include "codegen/cpu/ParallelLoopMarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace llmc;

namespace {

/// Alignment of the result buffer in bytes: one cache line (and one
/// AVX-512 vector), like the buffers bufferization allocates.
constexpr int64_t kResultAlignment = 64;

/// How far ahead of its reads a decode GEMV prefetches, in bytes of weight
/// rows (whole tiles, at least one), into L2 (which kernels do:
/// prefetchesWeightRows). Block rows can give the out-of-order core too
/// little lookahead to hide DRAM latency (the K-quants' most). Measured on
/// a 2-core
/// Sapphire Rapids: a stream of GEMVs of SmolLM2-135M's f16 shapes (2
/// threads) took 17.3 ms with the next tile prefetched into L1, 13.6 ms 4
/// KiB ahead into L2 and 13.5 ms 8 KiB ahead; llmc-run's decode, medians of
/// 7 interleaved runs, f16 54 -> 59 tok/s (with the int8 GEMV's 4 rows:
/// ProjectionToVector.cpp, the block formats). On Zen 3 the next tile into
/// L1 had taken Q8_0 from 34-36 to 55-64 tok/s, Q4_0 from 48 to 62-81.
/// 16 KiB rather than 4: on a 2-core Zen 4 whose read bandwidth measured 62
/// GB/s (2 threads; 34 GB/s in other hours), where one core's outstanding
/// misses rather than the memory decide, llmc-run's decode against
/// llama-bench, 4 alternating rounds: TinyLlama-1.1B F16 21.1-21.6 ->
/// 25.2-25.6 tok/s (llama.cpp 20.0-22.7), LLaMA-3-8B-shaped Q4_K_M layers
/// 62.6-64.4 -> 65.3-66.9 (llama.cpp 56.6-57.2), SmolLM2-shaped Q4_0
/// 316-322 -> 320-339; SmolLM2-shaped F16 137-149 -> 129-144 in one such
/// run, 114-126 against 112-119 (8 KiB: 109-117) in the next minutes (the
/// host back at its slower phase): within the noise. Few rounds, one host.
/// Then bench/turns.c --decode (artifacts alternating in one process,
/// 30-40 rounds of 16 tokens, TinyLlama F16 on that host): 8 KiB 1.001x,
/// 32 KiB 0.989x of 16 KiB; 32 KiB on TinyLlama Q8_0 0.997x, on the 8B
/// layers' Q4_K_M 1.010x. In the fast phase the GEMVs then read about 48
/// GB/s where bench/stream.c reads 60; in the slow one 89-95% of it.
constexpr int64_t kPrefetchBytes = 16384;

/// f32 weight rows shorter than this are left to the hardware prefetchers
/// in the decode GEMV (prefetchesWeightRows).
constexpr int64_t kPrefetchMinFloatRowBytes = 4096;
/// The same for f16 and bf16 rows (4096 elements, where f32's threshold is
/// 1024): measured separately, below.
constexpr int64_t kPrefetchMinHalfRowBytes = 8192;

/// Whether a projection kernel prefetches its weight rows kPrefetchBytes
/// ahead: the decode GEMV on f32 rows of at least kPrefetchMinFloatRowBytes
/// and f16 / bf16 rows of at least kPrefetchMinHalfRowBytes, and every
/// kernel that reads blocks except the interleaved q8_0 GEMV. The split is
/// measured, not derived (2-core Zen 4,
/// AVX-512, December 2026; bench/turns.c --decode, 16 tokens after 128,
/// medians of 5-20 rounds' ratios, without the prefetch ÷ with it, 2
/// threads and 1):
///  - float rows of 1152 bytes (SmolLM2-135M F16 / BF16: 1.03-1.07x /
///    1.13-1.20x; BF16 1.25-1.27x at 1 thread) and 2304 (SmolLM2 F32:
///    1.01-1.25x) run faster without. Prefetching those 1152 bytes or 4
///    KiB ahead instead of 16 KiB gave 1.09-1.11x or 1.01-1.02x, none
///    1.20-1.23x; rows of 3 KiB (SmolLM2's down projection alone) are
///    even. The x86-64-v3 code on the same host: SmolLM2 F16 1.05-1.10x.
///  - f32 rows of 4 KiB and more need it (SmolLM2 F32's 6 KiB down
///    projection rows without it: 0.956x at 1 thread, 1.01-1.04x at 2), and
///    16-bit rows of 8 KiB and more: LLaMA-3-8B-shaped F16 layers (8 and 28
///    KiB rows) 0.66-0.90x without (1 thread: the hardware prefetchers
///    alone read 19 GB/s there, against 27 with the prefetch; on SmolLM2's
///    rows they read 27 alone, 21.5 with it).
///  - 16-bit rows of 4 KiB (TinyLlama-1.1B's K = 2048) ran 0.68-0.70x
///    without it in one FMA chain, but faster without it since f16 rows sum
///    in two (kF16GemvChains in ProjectionToVector.cpp; 7 December 2026,
///    15:00 UTC, 2 threads alternating with bench/stream.c): TinyLlama F16
///    1.019-1.052x (6 of 6, stream at 31-49 GB/s), 1.060x at 1 thread; its
///    x86-64-v3 code 1.021-1.086x (4 of 4), 1.040x at 1 thread; TinyLlama
///    BF16 (one chain) 1.019-1.055x (3 of 3), 1.040x at 1 thread. A C loop
///    over 384 MB of f16 rows on this host (1 thread, GB/s): two chains
///    without the prefetch against one with it 1.07x at K = 2048, 1.19x at
///    2560, 1.13x at 3072, 0.86x at 4096, 0.51-0.56x from 5632 to 14336
///    (bench/f16_rows.c; another run had 1.10x at 4096, 0.66x at 5632).
///    The 8B layers' 8 KiB rows without it in two chains: 0.97-1.02x at 2
///    threads (4 turns), 1.02x at 1.
///  - the interleaved q8_0 GEMV runs faster without at every shape
///    (SmolLM2 1.07-1.08x, TinyLlama 1.31-1.38x, the 8B layers
///    1.31-1.32x; x86-64-v3 code on the same host: SmolLM2 1.10-1.11x,
///    TinyLlama 1.13-1.14x; SmolLM2's figures with its tied q8_0 head
///    unprefetched too), the other interleaved
///    formats need it or are even (q4_0 on TinyLlama and the 8B layers
///    0.76-0.83x, SmolLM2's q4_0 / q4_1 / q5_0 0.95-1.06x), and the
///    K-quants need it most (0.28-0.71x). A q8_0 weight in its file's rows
///    (the real SmolLM2-135M-Instruct Q4_1's tied embedding as its LM
///    head) keeps it: 0.98-0.997x without (30 rounds: 1.022-1.025x with).
/// Why short float rows and q8_0's groups lose is open: the lines 16 KiB
/// ahead were the ones read, and halving the prefetches (one per line
/// instead of one per 32 bytes) made SmolLM2's F16 / BF16 3-4% slower, not
/// faster. Other hosts measured otherwise: on Zen 3 the first decode
/// prefetch (the next tile into L1, an older kernel) had taken SmolLM2's
/// q8_0 from 34-36 to 55-64 tok/s, and on a Zen 4 reading 53 GB/s
/// SmolLM2's F32 decode went from 42.4 to 52.5 tok/s with the prefetch
/// (then 4 KiB ahead; medians of 7 interleaved llmc-run runs).
/// rowBytes: the bytes of one row of the weight's storage; elementBytes:
/// of one of its elements (float rows).
bool prefetchesWeightRows(llm::BlockQuantType weightFormat, bool decodeGemv,
                          int64_t rowBytes, int64_t elementBytes) {
  if (weightFormat)
    return weightFormat.getFormat() != llm::BlockFormat::q8_0 ||
           weightFormat.getInterleave() == 1;
  return decodeGemv && rowBytes >= (elementBytes == 2
                                        ? kPrefetchMinHalfRowBytes
                                        : kPrefetchMinFloatRowBytes);
}

/// Bytes of x rows the GEMM keeps in cache per row block: well inside the
/// smallest L2 of the CPUs llmc targets (512 KiB per Zen 3 / Zen 4 core),
/// next to the weight rows and the output. Measured on Zen 3 (SmolLM2-135M
/// shapes, a 480-token prefill): 96 KiB at least as fast as 48 and 192 KiB,
/// 384 KiB slower; every blocking faster than none.
constexpr int64_t kRowBlockBytes = 96 * 1024;
/// Bytes of x's int8 codes the int8 GEMM keeps in cache per row block. Each
/// (row block, weight tile) decodes the tile's blocks into codes first, and
/// that decode costs about as much as multiplying the codes with a few
/// dozen x rows, so the blocks are as large as half the L2 allows: half of
/// Zen 3's 512 KiB for AVX2, half of the 1 MiB of the AVX-512 server cores
/// (Skylake-SP to Cascade Lake, Zen 4 and 5; Ice Lake-SP 1.25 MiB,
/// Sapphire Rapids 2 MiB; AVX-512's client cores Ice Lake and Rocket Lake
/// have 512 KiB and get the whole of it). Measured on a 2-core Xeon
/// (AVX-512 VNNI; TinyLlama-1.1B Q4_K_M, K = 2048 and 5632, a 128-token
/// prefill on 2 threads, medians of 5 interleaved runs): 74 tok/s with 96
/// KiB blocks (48 rows at K = 2048), 100 with 256 KiB. On Zen 4 (4 layers
/// of LLaMA-3-8B's shape, K = 4096 and 14336, where 256 KiB holds 16 rows
/// of the down projection: each weight tile decoded 8 times per 128-token
/// prompt; 2 threads, 6 alternating pairs, 3 in each order): 512 KiB took
/// Q4_K_M from 293-306 to 318-347 tok/s (6 of 6) and Q4_0 from 310-333 to
/// 292-366 (5 of 6, medians 332 -> 355), the logits bit-identical;
/// TinyLlama's Q4_K_M (only its K = 5632 blocks grow, 44 -> 92 rows)
/// within noise (it won the pairs it ran second in).
constexpr int64_t kInt8RowBlockBytes = 256 * 1024;
constexpr int64_t kInt8RowBlockBytesAVX512 = 512 * 1024;
/// Rows per block at most (small K): beyond this a block gains no reuse.
constexpr int64_t kMaxRowBlock = 128;

/// x rows of the int8 GEMM's tile: each weight panel's codes, read once per
/// K group, meet 4 x rows' broadcast codes.
constexpr int64_t kInt8GemmXRows = 4;


/// The kernel's operands, x and the result flattened to rows: tensors x
/// [M, K], weight [N, K] (for block-quantized weights its bytes,
/// [N, rowBytes] i8, read through `blocks`), bias [N] (or null) and the
/// result buffer out [M, N].
struct KernelOperands {
  Value x, weight, bias, out;
  Value rows, outputs, depth;
  /// Set for block-quantized weights.
  std::optional<BlockDecoder> blocks;
  /// Set when the block weights are multiplied with x rounded to int8: x's
  /// codes and scales, and the instructions that multiply them.
  std::optional<QuantizedActivations> int8;
  Int8DotKind int8Dot = Int8DotKind::None;
  /// Set when the packed GEMM multiplies bf16 weights with x rounded to
  /// bf16, in VDPBF16PS (PackedGemm.h's pair panels).
  bool bf16Dot = false;
  /// Set when the weight is float rows in interleaved groups: `weight` is
  /// its storage, [N / 16, 16 · K] (PackedGemm.h's interleaved kernels).
  llm::InterleavedFloatType floatGroups;
  /// Set (with `int8`) when the tile's weight rows are decoded into codes
  /// (the GEMM's x tiles of one row block share them).
  std::optional<WeightCodeTile> codeTile;
  /// When `weight` is a tile of rows decoded into a buffer: the first weight
  /// row it holds (weight row n is its row n - weightRowBase).
  Value weightRowBase;
  /// Set when the K loop prefetches weight rows ahead: the weight as a
  /// read-only buffer, its last row and its last column (index).
  Value prefetchBuffer, lastRow, lastColumn;
  /// How many weight rows ahead the prefetches reach (kPrefetchBytes).
  int64_t prefetchRowsAhead = 0;
  /// f32 lanes of the vectors every tile walks K with.
  int64_t lanes;
  /// K rounded down to a multiple of `lanes`: the unmasked loop's bound.
  Value depthMain;
  /// False only when K is statically a multiple of `lanes`.
  bool hasDepthTail;
  /// Independent sums per output of the float K loop (ProjectionTile's
  /// chains; 1 when the loop prefetches).
  int64_t chains = 1;
  /// Whether the tiles' work alone is worth starting threads for; when not,
  /// their scf.parallel is marked small (ParallelLoopMarks.h).
  bool threaded;
};

/// Whether a tile of `tile`'s shape runs the interleaved int8 GEMV
/// (accumulateInterleavedInt8Blocks): one x row and one group of an
/// interleaved weight that kernel computes on, with x rounded to int8.
bool usesInterleavedGemv(const KernelOperands &ops, ProjectionTile tile) {
  return ops.int8 && hasInterleavedGemv(ops.blocks->getFormat()) &&
         tile.xRows == 1 && tile.weightRows == kInterleavedGemvRows;
}

/// Bytes per element of the tensor `value` (at least 1).
int64_t getElementBytes(Value value) {
  return std::max<int64_t>(
      1, cast<ShapedType>(value.getType()).getElementTypeBitWidth() / 8);
}

/// Types the kernel reads and writes; all of them widen exactly to f32.
bool isKernelElementType(Type type) {
  return type.isF32() || type.isBF16() || type.isF16();
}

/// Views `tensor` or `buffer` [l..., last] as [Πl, last].
SmallVector<ReassociationIndices> getRowsReassociation(int64_t rank) {
  ReassociationIndices leading;
  for (int64_t d = 0; d < rank - 1; ++d)
    leading.push_back(d);
  return {leading, {rank - 1}};
}

/// accumulators[i·weightRows + j] += ws[j] · x[xRow i, column...], with ws
/// the weight vectors `readWeights` gives (after the x vectors are read).
SmallVector<Value>
accumulate(OpBuilder &b, Location loc, const KernelOperands &ops,
           ArrayRef<Value> xRows, Value column, Value mask,
           ValueRange accumulators,
           llvm::function_ref<SmallVector<Value>()> readWeights) {
  SmallVector<Value> xs;
  for (Value row : xRows)
    xs.push_back(readWidenedRowVector(b, loc, ops.x, row, column, mask, ops.lanes));
  SmallVector<Value> ws = readWeights();
  SmallVector<Value> updated;
  for (auto [i, xv] : llvm::enumerate(xs))
    for (auto [j, wv] : llvm::enumerate(ws))
      updated.push_back(vector::FMAOp::create(
          b, loc, wv, xv, accumulators[i * ws.size() + j]));
  return updated;
}

/// The same with the weight vectors read from float rows.
SmallVector<Value> accumulateFloat(OpBuilder &b, Location loc,
                                   const KernelOperands &ops,
                                   ArrayRef<Value> xRows,
                                   ArrayRef<Value> weightRows, Value column,
                                   Value mask, ValueRange accumulators) {
  return accumulate(b, loc, ops, xRows, column, mask, accumulators, [&] {
    SmallVector<Value> ws;
    for (Value row : weightRows) {
      if (ops.weightRowBase)
        row = arith::SubIOp::create(b, loc, row, ops.weightRowBase);
      ws.push_back(
          readWidenedRowVector(b, loc, ops.weight, row, column, mask, ops.lanes));
    }
    return ws;
  });
}

/// Prefetches, for each row of `weightRows`, the same columns [column,
/// column + bytes) of the row `ops.prefetchRowsAhead` further, which the
/// thread reads soon (clamped to the last row and column).
void prefetchAhead(OpBuilder &b, Location loc, const KernelOperands &ops,
                   ArrayRef<Value> weightRows, Value column, int64_t bytes) {
  for (Value row : weightRows) {
    Value ahead = b.createOrFold<arith::MinUIOp>(
        loc,
        arith::AddIOp::create(b, loc, row,
                              indexConstant(b, loc, ops.prefetchRowsAhead)),
        ops.lastRow);
    prefetchLines(b, loc, ops.prefetchBuffer, {ahead, column}, bytes,
                  ops.lastColumn);
  }
}

/// The K loop over whole blocks of a block-quantized weight: per block, each
/// weight row's scales once, then every `lanes` elements decoded in
/// registers and multiplied with each x row.
SmallVector<Value> accumulateBlocks(OpBuilder &b, Location loc,
                                    const KernelOperands &ops,
                                    ArrayRef<Value> xRows,
                                    ArrayRef<Value> weightRows,
                                    ValueRange init) {
  const BlockDecoder &blocks = *ops.blocks;
  int64_t blockElements = blocks.getBlockElements();
  Value numBlocks = b.createOrFold<arith::DivUIOp>(
      loc, ops.depth, indexConstant(b, loc, blockElements));
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), numBlocks, indexConstant(b, loc, 1),
      init,
      [&](OpBuilder &nb, Location nloc, Value block, ValueRange accumulators) {
        SmallVector<BlockDecoder::Block> rowBlocks;
        for (Value row : weightRows)
          rowBlocks.push_back(blocks.loadBlock(nb, nloc, row, block));
        // Every row's block starts at the same byte offset (plain rows:
        // createVectorProjection prefetches no interleaved weight here).
        if (ops.prefetchBuffer)
          prefetchAhead(nb, nloc, ops, weightRows, rowBlocks.front().offset,
                        blocks.getBlockBytes());
        Value start = arith::MulIOp::create(
            nb, nloc, block, indexConstant(nb, nloc, blockElements));
        SmallVector<Value> sums(accumulators);
        for (int64_t first = 0; first < blockElements; first += ops.lanes) {
          Value column = arith::AddIOp::create(
              nb, nloc, start, indexConstant(nb, nloc, first));
          sums = accumulate(nb, nloc, ops, xRows, column, Value(), sums, [&] {
            SmallVector<Value> ws;
            for (const BlockDecoder::Block &rowBlock : rowBlocks)
              ws.push_back(blocks.decode(nb, nloc, rowBlock, first));
            return ws;
          });
        }
        scf::YieldOp::create(nb, nloc, sums);
      });
  return SmallVector<Value>(loop.getResults());
}

/// The K loop of the int8 GEMV: per block, each weight row's scales once,
/// then per 32 elements one int8 dot product of the row's codes with x's
/// (eight int32 partial sums of four products). A format with one scale run
/// per block converts each dot to f32 and accumulates it with the weight's
/// multiplier times x's scale, and its addend times x's scaled code sum in a
/// scalar accumulator. The K-quants (8 or 16 runs per block, x rounded with
/// one scale per block) weight each product pair by its run's integer scale
/// in the dot (createWeightedInt8Dot) and add the block's dots as integers:
/// per block and row one conversion and one FMA with d times x's scale, and
/// the runs' addends (BlockDecoder::getScaleVectors) times x's code sums of
/// the runs in vector FMAs. Returns the dot product of x row `xRow` with
/// each weight row.
SmallVector<Value> accumulateInt8Blocks(OpBuilder &b, Location loc,
                                        const KernelOperands &ops, Value xRow,
                                        ArrayRef<Value> weightRows) {
  const BlockDecoder &blocks = *ops.blocks;
  const QuantizedActivations &x = *ops.int8;
  int64_t blockElements = blocks.getBlockElements();
  int64_t runs = blocks.getRunsPerBlock();
  int64_t runLength = blocks.getScaleRun();
  int64_t dotLanes = kInt8DotBytes / 4;
  assert(runLength % kActivationSumRun == 0 &&
         runLength * runs == blockElements &&
         (runs == 1 || runs % dotLanes == 0) &&
         "runs of whole code sums; several runs fill whole dot vectors");
  assert((runs == 1 || (x.scaleBlock == blockElements &&
                        !blocks.hasSignedCodes())) &&
         "a K-quant's block meets one x scale; its codes are unsigned");
  auto accType = VectorType::get({dotLanes}, b.getF32Type());
  auto bytesType = VectorType::get({kInt8DotBytes}, b.getI8Type());
  Value zeroVector = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  // Per row a vector and a scalar accumulator.
  SmallVector<Value> init(weightRows.size(), zeroVector);
  init.append(weightRows.size(), zero);
  Value numBlocks = b.createOrFold<arith::DivUIOp>(
      loc, ops.depth, indexConstant(b, loc, blockElements));
  auto rowMap = AffineMap::getMinorIdentityMap(2, 1, b.getContext());
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), numBlocks, indexConstant(b, loc, 1),
      init,
      [&](OpBuilder &nb, Location nloc, Value block, ValueRange carried) {
        size_t rows = weightRows.size();
        SmallVector<Value> accs(carried.take_front(rows));
        SmallVector<Value> offsets(carried.drop_front(rows));
        SmallVector<BlockDecoder::Block> rowBlocks;
        for (Value row : weightRows)
          rowBlocks.push_back(blocks.loadBlock(nb, nloc, row, block));
        if (ops.prefetchBuffer)
          prefetchAhead(nb, nloc, ops, weightRows, rowBlocks.front().offset,
                        blocks.getBlockBytes());
        Value start = arith::MulIOp::create(
            nb, nloc, block, indexConstant(nb, nloc, blockElements));
        // Several runs: each row's integer run scales as int16 pair
        // weights, its addends times x's code sums of the runs added into
        // its lanes (the final reduction sums them with the products).
        SmallVector<Value> runWeights, dots(rows);
        if (runs > 1) {
          int64_t sums = blockElements / kActivationSumRun;
          Value xSums = vector::TransferReadOp::create(
              nb, nloc, VectorType::get({sums}, nb.getF32Type()), x.sums,
              ValueRange{xRow, arith::DivUIOp::create(
                                   nb, nloc, start,
                                   indexConstant(nb, nloc, kActivationSumRun))},
              rowMap, zero, /*mask=*/Value(), nb.getBoolArrayAttr({true}));
          // Code sums per run: runLength / 16 consecutive sums added.
          Value runSums;
          for (int64_t k = 0; k < runLength / kActivationSumRun; ++k) {
            SmallVector<int64_t> pick;
            for (int64_t run = 0; run < runs; ++run)
              pick.push_back(run * (runLength / kActivationSumRun) + k);
            Value part =
                vector::ShuffleOp::create(nb, nloc, xSums, xSums, pick);
            runSums = runSums ? arith::AddFOp::create(nb, nloc, runSums, part)
                                    .getResult()
                              : part;
          }
          for (auto [r, rowBlock] : llvm::enumerate(rowBlocks)) {
            BlockDecoder::IntegerScales integers =
                blocks.getIntegerScales(nb, nloc, rowBlock);
            Value addends =
                blocks.getScaleVectors(nb, nloc, rowBlock, integers).second;
            for (int64_t first = 0; first < runs; first += dotLanes) {
              auto slice = [&](Value v) {
                return vector::ExtractStridedSliceOp::create(
                    nb, nloc, v, ArrayRef<int64_t>{first},
                    ArrayRef<int64_t>{dotLanes}, ArrayRef<int64_t>{1});
              };
              accs[r] = vector::FMAOp::create(nb, nloc, slice(addends),
                                              slice(runSums), accs[r]);
            }
            runWeights.push_back(arith::TruncIOp::create(
                nb, nloc, VectorType::get({runs}, nb.getI16Type()),
                integers.scales));
          }
        }
        for (int64_t first = 0; first < blockElements;
             first += kActivationBlock) {
          Value column = arith::AddIOp::create(nb, nloc, start,
                                               indexConstant(nb, nloc, first));
          Value xCodes = vector::TransferReadOp::create(
              nb, nloc, bytesType, x.codes, ValueRange{xRow, column}, rowMap,
              arith::ConstantIntOp::create(nb, nloc, nb.getI8Type(), 0),
              /*mask=*/Value(), nb.getBoolArrayAttr({true}));
          if (runs > 1) {
            // Pair p of the dot holds elements first + 2p, first + 2p + 1.
            SmallVector<int64_t> pairRuns;
            for (int64_t p = 0; p < kInt8DotBytes / 2; ++p)
              pairRuns.push_back((first + 2 * p) / runLength);
            for (auto [r, rowBlock] : llvm::enumerate(rowBlocks)) {
              Value weights = vector::ShuffleOp::create(
                  nb, nloc, runWeights[r], runWeights[r], pairRuns);
              dots[r] = createWeightedInt8Dot(
                  nb, nloc, blocks.decodeCodes(nb, nloc, rowBlock, first),
                  xCodes, weights, dots[r]);
            }
            continue;
          }
          Value xScale = loadActivationScale(nb, nloc, x, xRow, column);
          // x's scaled code sum over the block.
          Value xSum = loadActivationBlockSum(nb, nloc, x, xRow, column);
          for (auto [r, rowBlock] : llvm::enumerate(rowBlocks)) {
            Value codes = blocks.decodeCodes(nb, nloc, rowBlock, first);
            Value xs = xCodes;
            if (blocks.hasSignedCodes()) {
              // Unsigned × signed: |w| times x with w's sign.
              xs = applyWeightSigns(nb, nloc, ops.int8Dot, xCodes, codes);
              codes = math::AbsIOp::create(nb, nloc, codes);
            }
            Value dot = arith::SIToFPOp::create(
                nb, nloc, accType,
                createInt8Dot(nb, nloc, ops.int8Dot, codes, xs));
            auto [m, addend] = blocks.getScale(rowBlock, first);
            Value multiplier = vector::BroadcastOp::create(
                nb, nloc, accType, arith::MulFOp::create(nb, nloc, m, xScale));
            if (addend)
              offsets[r] =
                  math::FmaOp::create(nb, nloc, addend, xSum, offsets[r]);
            accs[r] = vector::FMAOp::create(nb, nloc, dot, multiplier, accs[r]);
          }
        }
        if (runs > 1) {
          // The block's integer dots times d and x's one scale.
          Value xScale = loadActivationScale(nb, nloc, x, xRow, start);
          for (auto [r, rowBlock] : llvm::enumerate(rowBlocks)) {
            Value multiplier = vector::BroadcastOp::create(
                nb, nloc, accType,
                arith::MulFOp::create(nb, nloc,
                                      blocks.getSuperBlockScale(rowBlock),
                                      xScale));
            accs[r] = vector::FMAOp::create(
                nb, nloc, arith::SIToFPOp::create(nb, nloc, accType, dots[r]),
                multiplier, accs[r]);
          }
        }
        SmallVector<Value> results(accs);
        results.append(offsets);
        scf::YieldOp::create(nb, nloc, results);
      });
  SmallVector<Value> sums;
  for (size_t r = 0; r < weightRows.size(); ++r) {
    Value sum = vector::ReductionOp::create(
        b, loc, vector::CombiningKind::ADD, loop.getResult(r),
        arith::FastMathFlags::reassoc);
    sums.push_back(arith::AddFOp::create(
        b, loc, sum, loop.getResult(weightRows.size() + r)));
  }
  return sums;
}

/// The int8 GEMV of an interleaved weight (`!llm.block<q4_0, interleave = 8>`,
/// q4_1, q5_0, q5_1 or q8_0), one group of 8 rows at a time: the dot product of
/// x row `xRow` with weight rows 8·group .. 8·group + 7, as a vector<8xf32>
/// (lane r: row r). The group stores each block's 8 headers together and then
/// its codes in runs of 4 bytes per row, so one 32-byte load holds 4 code bytes
/// of all 8 rows, and one dot-product instruction against x's 4 codes at those
/// elements, broadcast to every lane, leaves each row's partial sum in its own
/// lane. The 4- and 5-bit formats: run c's low nibbles are elements 4c..4c+3,
/// its high nibbles 16+4c..16+4c+3 (4 loads per block), and the 5-bit formats'
/// fifth bits (bits 4c..4c+3 and 16+4c..16+4c+3 of each row's qh) are spread to
/// those bytes in each row's int32 lane by one multiply; q8_0: run c's bytes
/// are elements 4c..4c+3 (8 loads). Per block 8 dot products in two chains, one
/// conversion, and the 8 scales in one vector FMA (the file's rows need a
/// horizontal sum per row and block: accumulateInt8Blocks). Unsigned codes q:
/// q4_0's value d·(q - 8) adds -8·d times x's scaled code sum, q5_0's d·(q -
/// 16) -16·d, q4_1's and q5_1's d·q + m add m times it, and q8_0's codes + 128
/// under VNNI add -128·d (kSignedCodeOffset); with the avx2 kind q8_0
/// multiplies |q| with x's bytes given q's signs. The 8 rows' headers are one
/// read, split into their fields by byte shuffles.
Value accumulateInterleavedInt8Blocks(OpBuilder &b, Location loc,
                                      const KernelOperands &ops, Value xRow,
                                      Value group) {
  const BlockDecoder &blocks = *ops.blocks;
  const QuantizedActivations &x = *ops.int8;
  llm::BlockQuantType format = blocks.getFormat();
  assert(hasInterleavedGemv(format) &&
         kInt8DotBytes == 4 * kInterleavedGemvRows &&
         "groups of 8 rows, one row per int32 lane");
  llm::BlockFormat kind = format.getFormat();
  bool fiveBit =
      kind == llm::BlockFormat::q5_0 || kind == llm::BlockFormat::q5_1;
  bool minimum =
      kind == llm::BlockFormat::q4_1 || kind == llm::BlockFormat::q5_1;
  bool nibbles = fiveBit || minimum || kind == llm::BlockFormat::q4_0;
  // Signed codes (q8_0) with the vnni kind: + 128 as unsigned bytes; with
  // avx2: |q| against x with q's signs, no addend.
  bool offsetCodes = !nibbles && ops.int8Dot == Int8DotKind::VNNI;
  bool signedCodes = !nibbles && !offsetCodes;
  int64_t rows = kInterleavedGemvRows;
  int64_t header = format.getHeaderBytes();
  int64_t codeBytes = format.getBlockBytes() - header;
  int64_t groupBlockBytes = rows * format.getBlockBytes();
  auto f32Rows = VectorType::get({rows}, b.getF32Type());
  auto i32Rows = VectorType::get({rows}, b.getI32Type());
  auto bytesType = VectorType::get({kInt8DotBytes}, b.getI8Type());
  auto rowMap = AffineMap::getMinorIdentityMap(2, 1, b.getContext());
  Value zeroByte = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
  Value zeroRows = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(f32Rows, b.getF32FloatAttr(0.0f)));
  // An integer vector of `type` with every lane `value`.
  auto splat = [&](VectorType type, int64_t value) -> Value {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type,
                               b.getIntegerAttr(type.getElementType(), value)));
  };
  Value lowMask = splat(bytesType, 0xf), four = splat(bytesType, 4),
        signBit = splat(bytesType, -kSignedCodeOffset);
  // The fifth bits: 4 bits of qh, bit k to bit 4 of byte k (the multiply's
  // shifted copies by 0, 7, 14 and 21 bits never overlap, so nothing carries).
  Value nibbleMask = splat(i32Rows, 0xf), spread = splat(i32Rows, 0x00204081),
        fifthBits = splat(i32Rows, 0x10101010), fourBits = splat(i32Rows, 4);
  // The code offset of the formats whose value is d·(q - offset).
  double codeOffset = kind == llm::BlockFormat::q4_0 ? 8.0
                      : kind == llm::BlockFormat::q5_0
                          ? 16.0
                          : double(kSignedCodeOffset);
  Value offset = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(f32Rows, b.getF32FloatAttr(-codeOffset)));
  auto read = [&](OpBuilder &nb, Location nloc, Value memref,
                  ValueRange indices, int64_t count) {
    return vector::TransferReadOp::create(
               nb, nloc, VectorType::get({count}, nb.getI8Type()), memref,
               indices, rowMap, zeroByte, /*mask=*/Value(),
               nb.getBoolArrayAttr({true}))
        .getResult();
  };
  Value numBlocks = b.createOrFold<arith::DivUIOp>(
      loc, ops.depth, indexConstant(b, loc, format.getBlockElements()));
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), numBlocks, indexConstant(b, loc, 1),
      ValueRange{zeroRows, zeroRows},
      [&](OpBuilder &nb, Location nloc, Value block, ValueRange acc) {
        auto constant = [&](int64_t v) { return indexConstant(nb, nloc, v); };
        auto plus = [&](Value a, int64_t v) {
          return nb.createOrFold<arith::AddIOp>(nloc, a, constant(v));
        };
        Value base =
            arith::MulIOp::create(nb, nloc, block, constant(groupBlockBytes));
        if (ops.prefetchBuffer)
          prefetchAhead(nb, nloc, ops, {group}, base, groupBlockBytes);
        // The 8 rows' headers: d (f16), q4_1's and q5_1's m (f16), the
        // 5-bit formats' qh (u32), each field of every row gathered by a
        // byte shuffle (none for q4_0 and q8_0, whose header is d alone).
        Value headers =
            read(nb, nloc, ops.weight, {group, base}, rows * header);
        auto headerField = [&](int64_t byte, int64_t size,
                               Type element) -> Value {
          Value bytes = headers;
          if (size != header) {
            SmallVector<int64_t> lanes;
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t i = 0; i < size; ++i)
                lanes.push_back(r * header + byte + i);
            bytes =
                vector::ShuffleOp::create(nb, nloc, headers, headers, lanes);
          }
          return vector::BitCastOp::create(
              nb, nloc, VectorType::get({rows}, element), bytes);
        };
        auto halfField = [&](int64_t byte) {
          return arith::ExtFOp::create(nb, nloc, f32Rows,
                                       headerField(byte, 2, nb.getF16Type()))
              .getResult();
        };
        Value scales = halfField(0);
        Value highBits =
            fiveBit ? headerField(header - 4, 4, nb.getI32Type()) : Value();
        // Bits [bit, bit + 4) of each row's qh at bit 4 of its 4 code bytes.
        auto fifthBitBytes = [&](int64_t bit) {
          Value shifted =
              arith::ShRUIOp::create(nb, nloc, highBits, splat(i32Rows, bit));
          Value spreadBits = arith::MulIOp::create(
              nb, nloc, arith::AndIOp::create(nb, nloc, shifted, nibbleMask),
              spread);
          Value placed = arith::AndIOp::create(
              nb, nloc, arith::ShLIOp::create(nb, nloc, spreadBits, fourBits),
              fifthBits);
          return vector::BitCastOp::create(nb, nloc, bytesType, placed)
              .getResult();
        };
        Value column = arith::MulIOp::create(
            nb, nloc, block, constant(format.getBlockElements()));
        // x's 4 codes at element e, in every lane.
        auto xQuad = [&](int64_t e) {
          Value quad = read(nb, nloc, x.codes, {xRow, plus(column, e)}, 4);
          Value word = vector::BitCastOp::create(
              nb, nloc, VectorType::get({1}, nb.getI32Type()), quad);
          Value lanes = vector::BroadcastOp::create(
              nb, nloc, i32Rows, vector::ExtractOp::create(nb, nloc, word, 0));
          return vector::BitCastOp::create(nb, nloc, bytesType, lanes)
              .getResult();
        };
        // Two chains of dot products, taken in turn.
        Value chains[2];
        int64_t dots = 0;
        auto dot = [&](Value codes, int64_t element) {
          Value xs = xQuad(element);
          if (signedCodes) {
            xs = applyWeightSigns(nb, nloc, ops.int8Dot, xs, codes);
            codes = math::AbsIOp::create(nb, nloc, codes);
          }
          Value &chain = chains[dots++ % 2];
          chain = createInt8Dot(nb, nloc, ops.int8Dot, codes, xs, chain);
        };
        for (int64_t run = 0; run < codeBytes / 4; ++run) {
          Value codes =
              read(nb, nloc, ops.weight,
                   {group, plus(base, rows * header + run * kInt8DotBytes)},
                   kInt8DotBytes);
          if (nibbles) {
            Value low = arith::AndIOp::create(nb, nloc, codes, lowMask);
            Value high = arith::ShRUIOp::create(nb, nloc, codes, four);
            if (fiveBit) {
              low = arith::OrIOp::create(nb, nloc, low, fifthBitBytes(4 * run));
              high = arith::OrIOp::create(nb, nloc, high,
                                          fifthBitBytes(16 + 4 * run));
            }
            int64_t half = format.getBlockElements() / 2;
            dot(low, 4 * run);
            dot(high, half + 4 * run);
          } else {
            dot(offsetCodes ? arith::XOrIOp::create(nb, nloc, codes, signBit)
                                  .getResult()
                            : codes,
                4 * run);
          }
        }
        Value products = arith::SIToFPOp::create(
            nb, nloc, f32Rows,
            arith::AddIOp::create(nb, nloc, chains[0], chains[1]));
        Value xScale = loadActivationScale(nb, nloc, x, xRow, column);
        Value multipliers = arith::MulFOp::create(
            nb, nloc, scales,
            vector::BroadcastOp::create(nb, nloc, f32Rows, xScale));
        Value sums =
            vector::FMAOp::create(nb, nloc, products, multipliers, acc[0]);
        Value offsets = acc[1];
        if (!signedCodes) {
          Value addends =
              minimum
                  ? halfField(2)
                  : arith::MulFOp::create(nb, nloc, scales, offset).getResult();
          Value xSum = loadActivationBlockSum(nb, nloc, x, xRow, column);
          offsets = vector::FMAOp::create(
              nb, nloc, addends,
              vector::BroadcastOp::create(nb, nloc, f32Rows, xSum), offsets);
        }
        scf::YieldOp::create(nb, nloc, ValueRange{sums, offsets});
      });
  return arith::AddFOp::create(b, loc, loop.getResult(0), loop.getResult(1));
}

/// Decodes weight rows [n0, n0 + count) of a block-quantized weight into
/// `rows`, a memref<count x K x f32>.
void decodeWeightRows(OpBuilder &b, Location loc, const KernelOperands &ops,
                      Value n0, int64_t count, Value rows) {
  const BlockDecoder &blocks = *ops.blocks;
  int64_t blockElements = blocks.getBlockElements();
  Value numBlocks = b.createOrFold<arith::DivUIOp>(
      loc, ops.depth, indexConstant(b, loc, blockElements));
  scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), numBlocks, indexConstant(b, loc, 1),
      ValueRange{}, [&](OpBuilder &nb, Location nloc, Value block, ValueRange) {
        for (int64_t j = 0; j < count; ++j) {
          Value row =
              arith::AddIOp::create(nb, nloc, n0, indexConstant(nb, nloc, j));
          blocks.decodeInto(nb, nloc, blocks.loadBlock(nb, nloc, row, block),
                            block, rows, indexConstant(nb, nloc, j));
        }
        scf::YieldOp::create(nb, nloc);
      });
}

/// The mask of the K % lanes leftover columns (past ops.depthMain).
Value createDepthTailMask(OpBuilder &b, Location loc,
                          const KernelOperands &ops) {
  Value remaining = arith::SubIOp::create(b, loc, ops.depth, ops.depthMain);
  return vector::CreateMaskOp::create(
      b, loc, VectorType::get({ops.lanes}, b.getI1Type()),
      ValueRange{remaining});
}

/// Widens weight rows [n0, n0 + count) of a bf16 or f16 weight into `rows`,
/// a memref<count x K x f32>: a vector at a time, the K % lanes tail masked.
void widenWeightRows(OpBuilder &b, Location loc, const KernelOperands &ops,
                     Value n0, int64_t count, Value rows) {
  auto copy = [&](OpBuilder &nb, Location nloc, Value row, Value column,
                  Value mask) {
    Value vector = readWidenedRowVector(nb, nloc, ops.weight,
                                 arith::AddIOp::create(nb, nloc, n0, row),
                                 column, mask, ops.lanes);
    vector::TransferWriteOp::create(
        nb, nloc, vector, rows, ValueRange{row, column},
        AffineMapAttr::get(
            AffineMap::getMinorIdentityMap(2, 1, nb.getContext())),
        mask, nb.getBoolArrayAttr({true}));
  };
  scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, count),
      indexConstant(b, loc, 1), ValueRange{},
      [&](OpBuilder &nb, Location nloc, Value row, ValueRange) {
        scf::ForOp::create(
            nb, nloc, indexConstant(nb, nloc, 0), ops.depthMain,
            indexConstant(nb, nloc, ops.lanes), ValueRange{},
            [&](OpBuilder &ib, Location iloc, Value column, ValueRange) {
              copy(ib, iloc, row, column, Value());
              scf::YieldOp::create(ib, iloc);
            });
        if (ops.hasDepthTail)
          copy(nb, nloc, row, ops.depthMain,
               createDepthTailMask(nb, nloc, ops));
        scf::YieldOp::create(nb, nloc);
      });
}

/// Stores out[xRow i, weightRow j] = total(i·weightRows + j) (+ bias[j]),
/// each total built just before its store.
void storeOutputs(OpBuilder &b, Location loc, const KernelOperands &ops,
                  ArrayRef<Value> xRows, ArrayRef<Value> weightRows,
                  llvm::function_ref<Value(size_t)> total) {
  Type outType = cast<MemRefType>(ops.out.getType()).getElementType();
  for (auto [i, xRow] : llvm::enumerate(xRows)) {
    for (auto [j, weightRow] : llvm::enumerate(weightRows)) {
      Value sum = total(i * weightRows.size() + j);
      if (ops.bias) {
        Value bias = tensor::ExtractOp::create(b, loc, ops.bias, weightRow);
        sum = arith::AddFOp::create(
            b, loc, sum, convertFloat(b, loc, bias, b.getF32Type()));
      }
      memref::StoreOp::create(b, loc, convertFloat(b, loc, sum, outType),
                              ops.out, ValueRange{xRow, weightRow});
    }
  }
}

/// `value` rounded down to a multiple of `multiple`.
Value roundDown(OpBuilder &b, Location loc, Value value, int64_t multiple) {
  if (multiple == 1)
    return value;
  Value rem = b.createOrFold<arith::RemUIOp>(loc, value,
                                             indexConstant(b, loc, multiple));
  return b.createOrFold<arith::SubIOp>(loc, value, rem);
}

/// One tile: out[m0 + i, n0 + j] for i < xRows, j < weightRows.
void emitTile(OpBuilder &b, Location loc, const KernelOperands &ops, Value m0,
              Value n0, ProjectionTile tile) {
  SmallVector<Value> xRows, weightRows;
  for (int64_t i = 0; i < tile.xRows; ++i)
    xRows.push_back(i == 0 ? m0
                           : arith::AddIOp::create(b, loc, m0,
                                                   indexConstant(b, loc, i)));
  for (int64_t j = 0; j < tile.weightRows; ++j)
    weightRows.push_back(
        j == 0 ? n0
               : arith::AddIOp::create(b, loc, n0, indexConstant(b, loc, j)));

  if (ops.codeTile) {
    SmallVector<Value> totals = multiplyWeightCodeTile(
        b, loc, *ops.codeTile, *ops.int8, xRows,
        *getConstantIntValue(ops.depth), ops.int8Dot);
    storeOutputs(b, loc, ops, xRows, weightRows,
                 [&](size_t index) { return totals[index]; });
    return;
  }
  if (usesInterleavedGemv(ops, tile)) {
    Value group = arith::DivUIOp::create(
        b, loc, n0, indexConstant(b, loc, kInterleavedGemvRows));
    Value totals = accumulateInterleavedInt8Blocks(b, loc, ops, m0, group);
    storeOutputs(b, loc, ops, xRows, weightRows, [&](size_t index) {
      return vector::ExtractOp::create(b, loc, totals, index).getResult();
    });
    return;
  }
  if (ops.int8) {
    assert(tile.xRows == 1 && "the int8 kernel without a code tile is a GEMV");
    SmallVector<Value> totals =
        accumulateInt8Blocks(b, loc, ops, m0, weightRows);
    storeOutputs(b, loc, ops, xRows, weightRows,
                 [&](size_t index) { return totals[index]; });
    return;
  }
  auto accType = VectorType::get({ops.lanes}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
  SmallVector<Value> init(tile.xRows * tile.weightRows, zero);

  SmallVector<Value> sums;
  if (ops.blocks) {
    sums = accumulateBlocks(b, loc, ops, xRows, weightRows, init);
  } else {
    // Unmasked main loop over whole vectors of K, in ops.chains independent
    // sums per output, added together after it (then one loop of single
    // steps for the vectors left below a multiple of the chains). Each
    // step prefetches the bytes of its vector: for 16-bit weights at 16
    // lanes that is two prefetches per 64-byte line, which measured faster
    // than one per line (a step of two vectors, one prefetch; Zen 3,
    // SmolLM2-135M's shape, decode medians of 8 interleaved runs: F16 96.4
    // against 89.7 tok/s, BF16 97.5 against 94.7, one run of 8 won by the
    // one-per-line loop).
    int64_t chains = ops.chains;
    auto stepLoop = [&](Value from, Value to, int64_t stepChains,
                        ValueRange initial) {
      return scf::ForOp::create(
                 b, loc, from, to,
                 indexConstant(b, loc, stepChains * ops.lanes), initial,
                 [&](OpBuilder &nb, Location nloc, Value k,
                     ValueRange accumulators) {
                   size_t outputs = accumulators.size() / stepChains;
                   SmallVector<Value> updated;
                   for (int64_t c = 0; c < stepChains; ++c) {
                     Value column =
                         c == 0 ? k
                                : arith::AddIOp::create(
                                      nb, nloc, k,
                                      indexConstant(nb, nloc, c * ops.lanes));
                     if (ops.prefetchBuffer)
                       prefetchAhead(nb, nloc, ops, weightRows, column,
                                     ops.lanes * getElementBytes(ops.weight));
                     llvm::append_range(
                         updated,
                         accumulateFloat(nb, nloc, ops, xRows, weightRows,
                                         column, Value(),
                                         accumulators.slice(c * outputs,
                                                            outputs)));
                   }
                   scf::YieldOp::create(nb, nloc, updated);
                 })
          .getResults();
    };
    Value start = indexConstant(b, loc, 0);
    if (chains > 1) {
      Value chainedEnd = roundDown(b, loc, ops.depthMain, chains * ops.lanes);
      SmallVector<Value> chainInit(init.size() * chains, zero);
      ValueRange chained = stepLoop(start, chainedEnd, chains, chainInit);
      init.assign(chained.begin(), chained.begin() + init.size());
      for (int64_t c = 1; c < chains; ++c)
        for (size_t i = 0; i < init.size(); ++i)
          init[i] = arith::AddFOp::create(b, loc, init[i],
                                          chained[c * init.size() + i]);
      start = chainedEnd;
    }
    ValueRange rest = stepLoop(start, ops.depthMain, 1, init);
    sums.assign(rest.begin(), rest.end());
  }

  // K % lanes leftover columns: one masked step, inactive lanes add 0 · 0.
  if (ops.hasDepthTail) {
    sums = accumulateFloat(b, loc, ops, xRows, weightRows, ops.depthMain,
                           createDepthTailMask(b, loc, ops), sums);
  }

  // Horizontal sums. reassoc lets LLVM add the lanes as a tree instead of
  // `lanes` dependent scalar adds (the summation order differs from a scalar
  // loop's anyway once K is split across lanes).
  storeOutputs(b, loc, ops, xRows, weightRows, [&](size_t index) {
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                       sums[index],
                                       arith::FastMathFlags::reassoc)
        .getResult();
  });
}

/// Statically known trip count of [lower, upper) in steps of `step`.
std::optional<int64_t> getStaticTripCount(Value lower, Value upper,
                                          int64_t step) {
  std::optional<int64_t> lo = getConstantIntValue(lower);
  std::optional<int64_t> hi = getConstantIntValue(upper);
  if (!lo || !hi)
    return std::nullopt;
  return std::max<int64_t>(0, llvm::divideCeil(*hi - *lo, step));
}

/// A dimension of a kernel's tile loop: [lo, hi) in steps of `step`.
struct TileDim {
  Value lo, hi;
  int64_t step;
};

/// The loop over `dims` (outermost first) that runs `body` at each tile's
/// starts (one per dim, in `dims`' order): an scf.parallel over the dims
/// with more than one step, marked small unless `ops.threaded`; no loop
/// when every dim has one step, nothing when one has none.
void emitTileLoop(OpBuilder &b, Location loc, const KernelOperands &ops,
                  ArrayRef<TileDim> dims,
                  llvm::function_ref<void(OpBuilder &, Location, ValueRange)>
                      body) {
  SmallVector<Value> lbs, ubs, steps;
  SmallVector<int> loopOf; // per dim: index into the loop's ivs, or -1
  for (const TileDim &dim : dims) {
    std::optional<int64_t> trips = getStaticTripCount(dim.lo, dim.hi, dim.step);
    if (trips && *trips == 0)
      return;
    if (trips && *trips == 1) {
      loopOf.push_back(-1);
      continue;
    }
    loopOf.push_back(lbs.size());
    lbs.push_back(dim.lo);
    ubs.push_back(dim.hi);
    steps.push_back(indexConstant(b, loc, dim.step));
  }
  auto starts = [&](ValueRange ivs) {
    SmallVector<Value> values;
    for (auto [dim, loop] : llvm::zip(dims, loopOf))
      values.push_back(loop < 0 ? dim.lo : ivs[loop]);
    return values;
  };
  if (lbs.empty()) {
    body(b, loc, starts({}));
    return;
  }
  auto loop = scf::ParallelOp::create(
      b, loc, lbs, ubs, steps,
      [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
        body(nb, nloc, starts(ivs));
      });
  if (!ops.threaded)
    markSmallParallelLoop(loop);
}

/// Tiles of `tile` rows over weight rows [nLo, nHi) and x rows [mLo, mHi)
/// (each range a multiple of its tile size): an scf.parallel over the
/// dimensions with more than one tile, marked small when `ops.threaded` is
/// false (small weights: it then runs on the threads of a sibling loop, or
/// sequentially). Emits nothing for an empty range and no loop for a single
/// tile.
///
/// With `rowBlock` > tile.xRows (a multiple of it), the x rows are taken in
/// cache blocks of rowBlock rows, outermost: each (row block, weight tile)
/// iteration runs the block's tiles for that weight tile, so the block's
/// rows stay in L2 across the weight tiles and each weight tile's rows in
/// L1 across the block, instead of every weight tile streaming all of x
/// from L3. Without, weight rows are outermost, so that each run of
/// iterations a thread takes (llm-parallel-to-openmp's chunks) is a
/// contiguous weight slab.
void emitTiles(OpBuilder &b, Location loc, const KernelOperands &ops,
               Value nLo, Value nHi, Value mLo, Value mHi,
               ProjectionTile tile, int64_t rowBlock) {
  // The int8 GEMM decodes each weight tile into codes once per row block,
  // even a block of one x tile (K too long for more in L2).
  bool blocked = rowBlock > tile.xRows || (ops.int8 && tile.xRows > 1);
  // 16-bit weight rows are widened once per (row block, weight tile) too.
  bool narrowWeights =
      !ops.blocks &&
      !cast<ShapedType>(ops.weight.getType()).getElementType().isF32();
  TileDim weightDim = {nLo, nHi, tile.weightRows};
  TileDim rowDim = {mLo, mHi, blocked ? rowBlock : tile.xRows};
  // Row blocks outermost when blocked, else weight rows.
  SmallVector<TileDim, 2> dims = {weightDim, rowDim};
  if (blocked)
    std::swap(dims[0], dims[1]);
  auto body = [&](OpBuilder &nb, Location nloc, ValueRange starts) {
    Value n0 = starts[blocked ? 1 : 0];
    Value m0 = starts[blocked ? 0 : 1];
    if (!blocked) {
      emitTile(nb, nloc, ops, m0, n0, tile);
      return;
    }
    Value blockEnd = nb.createOrFold<arith::MinUIOp>(
        nloc, nb.createOrFold<arith::AddIOp>(nloc, m0,
                                             indexConstant(nb, nloc, rowBlock)),
        mHi);
    auto rowLoop = [&](OpBuilder &lb, Location lloc,
                       const KernelOperands &tileOps) {
      scf::ForOp::create(
          lb, lloc, m0, blockEnd, indexConstant(lb, lloc, tile.xRows),
          ValueRange{},
          [&](OpBuilder &ib, Location iloc, Value m, ValueRange) {
            emitTile(ib, iloc, tileOps, m, n0, tile);
            scf::YieldOp::create(ib, iloc);
          });
    };
    if (!ops.blocks && !narrowWeights) {
      rowLoop(nb, nloc, ops);
      return;
    }
    // Block-quantized and 16-bit weights: the tile's weight rows decoded
    // (widened) once into an L1-sized buffer that every x tile of the row
    // block then reads (as f32 rows, or as int8 codes and scales for the
    // int8 products), instead of each x tile decoding them again: decoding
    // costs more than the FMAs it feeds when only one x tile shares it, and
    // even f16's one conversion per weight vector takes the FMA ports
    // (SmolLM2-135M f16, a 384-token prefill on one thread, user CPU time,
    // medians of 3 under load: 1.51 s converting in the K loop, 1.21 s
    // from the buffer). A heap buffer per iteration (freed by the
    // pipeline's buffer deallocation at its end): a stack one would grow
    // the stack every iteration of a sequential loop.
    int64_t depth = *getConstantIntValue(ops.depth);
    KernelOperands tileOps = ops;
    tileOps.prefetchBuffer = Value(); // the decoded rows are in L1
    tileOps.weightRowBase = n0;
    if (ops.int8) {
      // Into int8 codes and scales, for the integer dot products (the
      // tile's weight rows are a multiple of kInt8PanelRows).
      tileOps.codeTile = decodeWeightCodeTile(
          nb, nloc, *ops.blocks, n0, tile.weightRows, depth, ops.int8Dot);
      rowLoop(nb, nloc, tileOps);
      return;
    }
    Value rows = memref::AllocOp::create(
        nb, nloc, MemRefType::get({tile.weightRows, depth}, nb.getF32Type()),
        ValueRange{}, nb.getI64IntegerAttr(kResultAlignment));
    if (ops.blocks)
      decodeWeightRows(nb, nloc, ops, n0, tile.weightRows, rows);
    else
      widenWeightRows(nb, nloc, ops, n0, tile.weightRows, rows);
    tileOps.blocks.reset();
    tileOps.weight = rows;
    rowLoop(nb, nloc, tileOps);
  };
  emitTileLoop(b, loc, ops, dims, body);
}

/// x rows per cache block of the GEMM: as many whole tiles of rows of
/// `depth` (K) elements of `elementBytes` (f32, or int8 codes) as fit in
/// `blockBytes` (at least one tile, at most kMaxRowBlock rows); K dynamic,
/// or the GEMV's one-row tile: no blocking.
int64_t getRowBlock(std::optional<int64_t> depth, ProjectionTile tile,
                    int64_t elementBytes, int64_t blockBytes) {
  if (!depth || *depth <= 0 || tile.xRows == 1)
    return tile.xRows;
  int64_t rows = std::clamp<int64_t>(blockBytes / (*depth * elementBytes),
                                     tile.xRows, kMaxRowBlock);
  return rows / tile.xRows * tile.xRows;
}

/// Bytes of a packed weight panel's K block: at most half of a core's L2
/// (512 KiB on Zen 3, 1 MiB on Zen 4, 2 MiB on recent Xeons), which every
/// x tile of the row block streams the block's panel rows from. Each K
/// block costs every tile a load and a store of its accumulators and a
/// restart of its FMA chains, which blocks sized for L1 (16 KiB, 170 steps
/// of a 24-row panel) paid for more than L1 saved: on Zen 3 (2 threads,
/// f16 weights, 128-token prefill, interleaved runs, tokens/s) 16 KiB
/// gave TinyLlama's shape 70-79 and SmolLM2's 592-607, 256 KiB 79-85 and
/// 628-648, the whole K (up to 540 KiB) 78-86 and 632-649.
constexpr int64_t kPanelBlockBytes = 256 * 1024;
/// x rows per row block of the packed GEMM: each weight panel is packed
/// (read from memory, widened, transposed) once per block.
constexpr int64_t kPackedRowBlock = 128;

/// Prefetches, into L2, columns [k0, k0 + depthBlock) of one row of the
/// weight panel after the one at row n0: row (m - m0) / xRows (mod
/// panelRows) of it for the x tile at row m, so that a row block's tiles
/// together cover the next panel's K block while they multiply this one's,
/// and its packing reads L2 instead of 24 (AVX2) or 96 streams from
/// memory. Measured on a 2-core Zen 3 (2 threads, 128-token prefill,
/// interleaved runs, medians, tokens/s): SmolLM2-135M's shape F16 645 ->
/// 670 (6 runs), 697 -> 706 (8 runs), F32 662 -> 682 (5 runs); TinyLlama's
/// F16 unchanged (84.8 / 84.7): its packing (widen, transpose, store) went
/// from 11% to 9% of the GEMM regions, bound by its instructions rather
/// than by memory.
void prefetchNextPanel(OpBuilder &b, Location loc, Value weight, Value m0,
                       Value m, Value n0, int64_t panelRows, int64_t xRows,
                       Value k0, int64_t depthBlock) {
  auto type = cast<MemRefType>(weight.getType());
  int64_t elementBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  int64_t lineElements = std::max<int64_t>(1, kCacheLineBytes / elementBytes);
  Value tileIndex = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, m, m0),
      indexConstant(b, loc, xRows));
  Value row = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, n0, indexConstant(b, loc, panelRows)),
      arith::RemUIOp::create(b, loc, tileIndex,
                             indexConstant(b, loc, panelRows)));
  row = arith::MinUIOp::create(b, loc, row,
                               indexConstant(b, loc, type.getDimSize(0) - 1));
  Value lastColumn = indexConstant(b, loc, type.getDimSize(1) - 1);
  scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0),
      indexConstant(b, loc, llvm::divideCeil(depthBlock, lineElements)),
      indexConstant(b, loc, 1), ValueRange{},
      [&](OpBuilder &lb, Location lloc, Value line, ValueRange) {
        Value column = arith::MinUIOp::create(
            lb, lloc,
            arith::AddIOp::create(
                lb, lloc, k0,
                arith::MulIOp::create(lb, lloc, line,
                                      indexConstant(lb, lloc, lineElements))),
            lastColumn);
        prefetchLine(lb, lloc, weight, ValueRange{row, column});
        scf::YieldOp::create(lb, lloc);
      });
}

/// Whether the GEMM multiplies packed weight panels (PackedGemm.h): float
/// weights (f32, f16, bf16, or blocks without int8 products, decoded
/// first), an f32 result the K blocks add into, static K, and a tile of
/// several x rows and power-of-two lanes.
bool usesPackedGemm(const KernelOperands &ops, ProjectionTile tile) {
  return tile.xRows > 1 && !ops.int8 && llvm::isPowerOf2_64(tile.lanes) &&
         getConstantIntValue(ops.depth) &&
         cast<MemRefType>(ops.out.getType()).getElementType().isF32();
}

/// The GEMM over weight rows [nLo, nHi) (a multiple of the panel) and
/// every x row: an scf.parallel over (x row blocks, weight panels of
/// tile.weightRows vectors of lanes rows); each iteration packs its panel
/// (interleaved float groups are read as stored) and per K block of the
/// panel runs tiles of tile.xRows x rows (then single rows) over it, the
/// first block's tiles starting from the bias (no pass that sets the
/// outputs first: SmolLM2's K = 576 is one block), the later ones adding
/// to out.
void emitPackedGemm(OpBuilder &b, Location loc, const KernelOperands &ops,
                    Value nLo, Value nHi, ProjectionTile tile) {
  int64_t panelRows = tile.weightRows * tile.lanes;
  int64_t depth = *getConstantIntValue(ops.depth);
  // The panel's steps along K: elements (f32 FMAs), or pairs of elements
  // (VDPBF16PS, and bf16 groups' runs of two columns); a step's row of the
  // panel is panelRows × 4 bytes either way. (f16 groups read as stored
  // take half that; blocks sized by their own bytes, twice as long,
  // measured the same: 0.994x, 1.008x, 1.003x on the SmolLM2, TinyLlama
  // and 8B-layer F16 prefills, bench/turns.c, 7 December 2026.)
  int64_t kPerStep = ops.bf16Dot         ? 2
                     : ops.floatGroups ? ops.floatGroups.getColumns()
                                       : 1;
  int64_t steps = llvm::divideCeil(depth, kPerStep);
  // K blocks of equal size, each at most kPanelBlockBytes of the panel.
  int64_t maxBlock =
      std::max<int64_t>(1, kPanelBlockBytes / (panelRows * 4));
  int64_t stepBlock =
      llvm::divideCeil(steps, llvm::divideCeil(steps, maxBlock));
  int64_t rowBlock = kPackedRowBlock / tile.xRows * tile.xRows;
  Value zero = indexConstant(b, loc, 0);
  // Float weight rows are read from memory by the packing: the next
  // panel's rows (the thread's next iteration) are prefetched while this
  // one's tiles run (see prefetchNextPanel).
  auto weightType = cast<RankedTensorType>(ops.weight.getType());
  Value weightBuffer;
  if (!ops.blocks && !ops.floatGroups && weightType.hasStaticShape())
    weightBuffer = bufferization::ToBufferOp::create(
        b, loc,
        MemRefType::get(weightType.getShape(), weightType.getElementType()),
        ops.weight, b.getUnitAttr());
  // VDPBF16PS meets x rounded to bf16, once per projection.
  Value xPairs =
      ops.bf16Dot ? packRowsAsBF16Pairs(b, loc, ops.x, ops.rows, depth) : Value();
  TileDim dims[] = {{zero, ops.rows, rowBlock}, {nLo, nHi, panelRows}};
  emitTileLoop(b, loc, ops, dims,
               [&](OpBuilder &nb, Location nloc, ValueRange starts) {
    Value m0 = starts[0], n0 = starts[1];
    Value blockEnd = nb.createOrFold<arith::MinUIOp>(
        nloc,
        nb.createOrFold<arith::AddIOp>(nloc, m0,
                                       indexConstant(nb, nloc, rowBlock)),
        ops.rows);
    Value rows = ops.weight, firstRow = n0;
    Value panel;
    if (ops.blocks) {
      rows = memref::AllocOp::create(
          nb, nloc, MemRefType::get({panelRows, depth}, nb.getF32Type()),
          ValueRange{}, nb.getI64IntegerAttr(kResultAlignment));
      decodeWeightRows(nb, nloc, ops, n0, panelRows, rows);
      firstRow = indexConstant(nb, nloc, 0);
    }
    // Interleaved groups are read as stored; rows are packed.
    if (!ops.floatGroups)
      panel = ops.bf16Dot ? packWeightPairPanel(nb, nloc, rows, firstRow,
                                                panelRows, depth)
                          : packWeightPanel(nb, nloc, rows, firstRow,
                                            panelRows, depth, tile.lanes);
    SmallVector<Value> initialSums = getPanelInitialSums(
        nb, nloc, ops.bias, n0, panelRows, tile.lanes);
    Value fullEnd = nb.createOrFold<arith::SubIOp>(
        nloc, blockEnd,
        nb.createOrFold<arith::RemUIOp>(
            nloc, nb.createOrFold<arith::SubIOp>(nloc, blockEnd, m0),
            indexConstant(nb, nloc, tile.xRows)));
    // The K steps [s0, s1) of every tile of the row block: the first block
    // starts its sums from the bias (or zeros), the later ones add to out.
    auto kBlock = [&](OpBuilder &kb, Location kloc, Value s0, Value s1,
                      ValueRange initial) {
      Value k0 = kb.createOrFold<arith::MulIOp>(
          kloc, s0, indexConstant(kb, kloc, kPerStep));
      auto tiles = [&](Value from, Value to, int64_t xRows) {
        scf::ForOp::create(
            kb, kloc, from, to, indexConstant(kb, kloc, xRows), ValueRange{},
            [&](OpBuilder &tb, Location tloc, Value m, ValueRange) {
              if (weightBuffer && xRows == tile.xRows)
                prefetchNextPanel(tb, tloc, weightBuffer, m0, m, n0, panelRows,
                                  xRows, k0, stepBlock * kPerStep);
              if (ops.bf16Dot && ops.floatGroups)
                multiplyInterleavedPairPanel(tb, tloc, xPairs, ops.weight,
                                             ops.out, m, n0, xRows,
                                             tile.weightRows, s0, s1, initial);
              else if (ops.bf16Dot)
                multiplyPackedPairPanel(tb, tloc, xPairs, panel, ops.out, m,
                                        n0, xRows, s0, s1, initial);
              else if (ops.floatGroups)
                multiplyInterleavedPanel(tb, tloc, ops.x, ops.weight, ops.out,
                                         m, n0, xRows, tile.weightRows,
                                         ops.floatGroups.getColumns(), s0, s1,
                                         initial);
              else
                multiplyPackedPanel(tb, tloc, ops.x, panel, ops.out, m, n0,
                                    xRows, tile.lanes, s0, s1, initial);
              scf::YieldOp::create(tb, tloc);
            });
      };
      tiles(m0, fullEnd, tile.xRows);
      tiles(fullEnd, blockEnd, 1);
    };
    kBlock(nb, nloc, indexConstant(nb, nloc, 0),
           indexConstant(nb, nloc, std::min(stepBlock, steps)), initialSums);
    if (steps > stepBlock)
      scf::ForOp::create(
          nb, nloc, indexConstant(nb, nloc, stepBlock),
          indexConstant(nb, nloc, steps), indexConstant(nb, nloc, stepBlock),
          ValueRange{},
          [&](OpBuilder &kb, Location kloc, Value s0, ValueRange) {
            Value s1 = kb.createOrFold<arith::MinUIOp>(
                kloc,
                arith::AddIOp::create(kb, kloc, s0,
                                      indexConstant(kb, kloc, stepBlock)),
                indexConstant(kb, kloc, steps));
            kBlock(kb, kloc, s0, s1, ValueRange{});
            scf::YieldOp::create(kb, kloc);
          });
  });
}

/// A projection on float rows in interleaved groups (ops.floatGroups),
/// whose kernels read each group's column k as one vector of its 16 rows.
/// One x row (decode, tile.xRows = 1): an scf.parallel over the groups,
/// each summed by sumInterleavedGroup in ops.chains FMA chains from its
/// bias and stored as one vector (no reduction across lanes, no prefetch:
/// each group is one sequential stream). More rows: emitPackedGemm over
/// panels of tile.weightRows groups read as they are stored (no packing),
/// then the groups left below a panel as panels of one group.
void emitInterleavedFloatProjection(OpBuilder &b, Location loc,
                                    const KernelOperands &ops,
                                    ProjectionTile tile) {
  constexpr int64_t groupRows = llm::InterleavedFloatType::kGroupRows;
  assert(tile.lanes == groupRows && "a group's rows are a vector's lanes");
  Value zero = indexConstant(b, loc, 0);
  if (tile.xRows == 1) {
    int64_t depth = *getConstantIntValue(ops.depth);
    TileDim dims[] = {{zero, ops.outputs, groupRows}};
    emitTileLoop(
        b, loc, ops, dims,
        [&](OpBuilder &nb, Location nloc, ValueRange starts) {
          Value n0 = starts[0];
          Value group = arith::DivUIOp::create(
              nb, nloc, n0, indexConstant(nb, nloc, groupRows));
          Value initial = getPanelInitialSums(nb, nloc, ops.bias, n0,
                                              groupRows, groupRows)
                              .front();
          Value sum = sumInterleavedGroup(nb, nloc, ops.x, ops.weight, zero,
                                          group, depth,
                                          ops.floatGroups.getColumns(),
                                          ops.chains, initial);
          vector::StoreOp::create(nb, nloc, sum, ops.out,
                                  ValueRange{zero, n0});
        });
    return;
  }
  Value panelEnd = roundDown(b, loc, ops.outputs, tile.weightRows * groupRows);
  emitPackedGemm(b, loc, ops, zero, panelEnd, tile);
  if (tile.weightRows > 1)
    emitPackedGemm(b, loc, ops, panelEnd, ops.outputs,
                   {tile.xRows, /*weightRows=*/1, groupRows});
}

/// A dimension of `tensor` as an index value (a constant when static).
Value getDim(OpBuilder &b, Location loc, Value tensor, int64_t dim) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return indexConstant(b, loc, type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, tensor, dim);
}

} // namespace

bool llmc::isVectorProjectionSupported(RankedTensorType xType,
                                       RankedTensorType weightType,
                                       Type biasType,
                                       RankedTensorType resultType) {
  if (xType.getRank() < 2)
    return false;
  if (biasType &&
      !isKernelElementType(cast<RankedTensorType>(biasType).getElementType()))
    return false;
  // The interleaved kernels store f32 vectors.
  if (isa<mlir::llm::InterleavedFloatType>(weightType.getElementType()))
    return isKernelElementType(xType.getElementType()) &&
           resultType.getElementType().isF32();
  return isKernelElementType(xType.getElementType()) &&
         (isKernelElementType(weightType.getElementType()) ||
          isa<mlir::llm::BlockQuantType>(weightType.getElementType())) &&
         isKernelElementType(resultType.getElementType());
}

/// getGemmTile's shape for vectors of `vectorBits` in `registers.count`
/// registers.
static ProjectionTile getGemmTileOfWidth(CPUVectorRegisters registers,
                                         int64_t vectorBits) {
  // Vectors one register wide (AVX-512: vector<16xf32>, AVX2:
  // vector<8xf32>, SSE and NEON: 4 lanes); 4 x rows, and as many weight
  // rows as keep their 4 accumulators and one weight vector each, plus the
  // x vector being broadcast over them, in registers: (4 + 1) × weightRows
  // + 1 ≤ count. Every loaded x vector then feeds weightRows FMAs, which is
  // what matters: the tile's x rows stream from L2 (the row block) and its
  // weight rows from L1.
  // - AVX-512's 32 zmm give 4 × 6 (24 accumulators). On a 2-core Xeon
  //   (AVX-512, SmolLM2-135M f32, a 384-token prefill on one thread, user
  //   CPU time, medians of 5 interleaved runs under load): 4 × 2 1.82 s,
  //   4 × 4 1.72 s, 4 × 6 1.62 s, 5 × 5 1.74 s.
  // - AVX2's 16 ymm give 4 × 3, measured on Zen 3 (2 cores, SmolLM2-135M
  //   shapes, weights cold in DRAM, T = 16): 48 GFLOP/s on one thread and
  //   84 on two, against 46 / 70 for 4 × 2 and 37 / 57 for the 4 × 2
  //   vector<16xf32> tile, whose 16 accumulator halves alone filled the
  //   register file and spilled in the K loop. Fewer x rows, which stream
  //   less of x from L2 per FMA, were slower (f16 weights widened, a
  //   480-token prefill on one thread, medians of 5 interleaved runs,
  //   tokens/s): 4 × 3 227, 3 × 4 137, 2 × 6 146.
  // The packed-panel GEMM (PackedGemm.h) takes the same shape as 4 x rows ×
  // weightRows vectors of lanes weight rows: the same accumulators, one
  // panel vector per weight vector, and one broadcast x element.
  ProjectionTile tile;
  tile.lanes = std::max<int64_t>(vectorBits / 32, 4);
  tile.xRows = 4;
  tile.weightRows =
      std::max<int64_t>((registers.count - 1) / (tile.xRows + 1), 1);
  tile.rowBlockBytes = kRowBlockBytes;
  return tile;
}

ProjectionTile llmc::getGemmTile(CPUVectorRegisters registers) {
  // A narrower float tile where the target measured faster with one
  // (registers.floatGemmBits; Zen 4: 4 × 6 vector<8xf32>, Target.h).
  int64_t bits = registers.floatGemmBits
                     ? std::min(registers.bits, registers.floatGemmBits)
                     : registers.bits;
  return getGemmTileOfWidth(registers, bits);
}

ProjectionTile llmc::getBF16DotGemmTile(CPUVectorRegisters registers) {
  return getGemmTileOfWidth(registers, registers.bits);
}

ProjectionTile llmc::getInterleavedGemmTile(CPUVectorRegisters registers,
                                            int64_t stepVectors) {
  // A group's 16 rows take 16 × 32 / bits registers per vector; the most
  // x rows (8, 6, 4, 2) × groups (3, 2, 1) whose accumulators, the
  // step's stepVectors weight vectors per group and as many broadcasts fit
  // the registers, x rows first; 2 × 1 where none fits (bf16 pairs on 16
  // SSE registers: 18 vectors), since a GEMM tile has several x rows.
  int64_t perVector =
      std::max<int64_t>(1, llm::InterleavedFloatType::kGroupRows * 32 /
                               registers.bits);
  ProjectionTile tile{/*xRows=*/2, /*weightRows=*/1,
                      /*lanes=*/llm::InterleavedFloatType::kGroupRows};
  for (int64_t xRows : {8, 6, 4, 2})
    for (int64_t groups : {3, 2, 1})
      if ((xRows * groups + groups * stepVectors) * perVector + stepVectors <=
          registers.count) {
        tile.xRows = xRows;
        tile.weightRows = groups;
        return tile;
      }
  return tile;
}

bool llmc::usesBF16DotGemm(RankedTensorType weightType, bool bf16Dot) {
  return bf16Dot && weightType.getElementType().isBF16();
}

ProjectionTile llmc::getInt8GemmTile(CPUVectorRegisters registers) {
  // Integer dot products at the registers' width (floatGemmBits is about
  // the f32 tile).
  ProjectionTile tile = getGemmTileOfWidth(registers, registers.bits);
  tile.xRows = kInt8GemmXRows;
  // Per (x row, panel) one int32 and one f32 accumulator; per panel the
  // codes; per x row its broadcast codes: 4 × 2 panels take 16 + 2 + 1 of
  // 32 registers, 4 × 1 take 8 + 1 + 1 of AVX2's 16. Measured (SmolLM2-135M
  // shapes, 2 threads, under load): 24 weight rows no faster than 16.
  int64_t panels = registers.count >= 32 ? 2 : 1;
  tile.weightRows = panels * kInt8PanelRows;
  // AVX-512's 32 registers stand for its cores' larger L2.
  tile.rowBlockBytes = registers.count >= 32 ? kInt8RowBlockBytesAVX512
                                             : kInt8RowBlockBytes;
  return tile;
}

std::optional<int64_t> llmc::getStaticRowCount(RankedTensorType xType) {
  int64_t rows = 1;
  for (int64_t size : xType.getShape().drop_back()) {
    if (ShapedType::isDynamic(size))
      return std::nullopt;
    rows *= size;
  }
  return rows;
}

Value llmc::createVectorProjection(OpBuilder &b, Location loc, Value x,
                                   Value weight,
                                   RankedTensorType logicalWeightType,
                                   Value bias,
                                   RankedTensorType resultType,
                                   ProjectionTile tile,
                                   Int8DotKind int8Dot, bool bf16Dot,
                                   int64_t minParallelWeightElements,
                                   QuantizedActivationCache &activations) {
  int64_t rank = resultType.getRank();
  llm::BlockQuantType weightFormat =
      llm::getBlockQuantElementType(logicalWeightType);

  // The result: a fresh buffer, returned as a tensor that bufferization may
  // write to (restrict: nothing else aliases it).
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (resultType.isDynamicDim(d))
      dynamicSizes.push_back(getDim(b, loc, d < rank - 1 ? x : weight,
                                    d < rank - 1 ? d : 0));
  auto outType =
      MemRefType::get(resultType.getShape(), resultType.getElementType());
  Value out = memref::AllocOp::create(b, loc, outType, dynamicSizes,
                                      b.getI64IntegerAttr(kResultAlignment));

  KernelOperands ops;
  ops.x = rank == 2 ? x
                    : tensor::CollapseShapeOp::create(
                          b, loc, x, getRowsReassociation(rank));
  ops.weight = weight;
  ops.bias = bias;
  ops.out = rank == 2 ? out
                      : memref::CollapseShapeOp::create(
                            b, loc, out, getRowsReassociation(rank));
  ops.rows = getDim(b, loc, ops.x, 0);
  ops.outputs = getDim(b, loc, weight, 0);
  ops.lanes = tile.lanes;
  ops.floatGroups = llm::getInterleavedFloatElementType(logicalWeightType);
  auto weightType = cast<RankedTensorType>(weight.getType());
  // An interleaved weight's storage has a row per group of rows.
  int64_t interleave = weightFormat  ? weightFormat.getInterleave()
                       : ops.floatGroups ? ops.floatGroups.getRows()
                                         : 1;
  if (interleave > 1)
    ops.outputs = arith::MulIOp::create(b, loc, ops.outputs,
                                        indexConstant(b, loc, interleave));
  if (weightFormat) {
    // Rows of whole blocks (verified), so K is static and needs no tail.
    int64_t depth = weightType.getDimSize(1) / interleave /
                    weightFormat.getBlockBytes() *
                    weightFormat.getBlockElements();
    ops.depth = indexConstant(b, loc, depth);
    ops.depthMain = ops.depth; // for the tiles that read decoded rows
    ops.blocks.emplace(weightFormat, weight, ops.lanes);
    ops.hasDepthTail = false;
    // The CPU's int8 dot products: x rounded to int8 once, before the
    // threads start, and once for all projections of this x.
    if (int8Dot != Int8DotKind::None) {
      // K-quants: one x scale per super-block, so that the runs' products
      // add up as integers (accumulateInt8Blocks).
      int64_t scaleBlock = ops.blocks->getRunsPerBlock() > 1
                               ? weightFormat.getBlockElements()
                               : kActivationBlock;
      ops.int8 = activations.getOrQuantize(b, loc, x, ops.x, ops.rows, depth,
                                           scaleBlock);
      ops.int8Dot = int8Dot;
      declareInt8Dot(b, loc,
                     b.getInsertionBlock()->getParentOp()
                         ->getParentOfType<ModuleOp>(),
                     int8Dot);
    }
  } else if (ops.floatGroups) {
    // A static K (verified): a group's storage row holds its rows' columns.
    ops.depth = indexConstant(b, loc, weightType.getDimSize(1) / interleave);
    ops.depthMain = ops.depth;
    ops.hasDepthTail = false;
  } else {
    ops.depth = getDim(b, loc, weight, 1);
    ops.depthMain = roundDown(b, loc, ops.depth, ops.lanes);
    std::optional<int64_t> staticDepth = getConstantIntValue(ops.depth);
    ops.hasDepthTail = !staticDepth || *staticDepth % ops.lanes != 0;
  }
  std::optional<int64_t> staticDepth = getConstantIntValue(ops.depth);
  bool decodeGemv = tile.xRows == 1;
  // Interleaved weights: the interleaved GEMV prefetches whole groups (its
  // tiles are one group, a row of storage), the other kernels none.
  bool interleavedGemv = usesInterleavedGemv(ops, tile);
  int64_t elementBytes = getElementBytes(weight);
  int64_t rowBytes = weightType.hasStaticShape()
                         ? weightType.getDimSize(1) * elementBytes
                         : 0;
  if (weightType.hasStaticShape() &&
      (interleave == 1 || interleavedGemv) &&
      prefetchesWeightRows(weightFormat, decodeGemv, rowBytes, elementBytes)) {
    ops.prefetchBuffer = bufferization::ToBufferOp::create(
        b, loc,
        MemRefType::get(weightType.getShape(), weightType.getElementType()),
        weight, b.getUnitAttr());
    ops.lastRow = indexConstant(b, loc, weightType.getDimSize(0) - 1);
    ops.lastColumn = indexConstant(b, loc, weightType.getDimSize(1) - 1);
    int64_t tileBytes = std::max<int64_t>(1, rowBytes * tile.weightRows);
    ops.prefetchRowsAhead =
        interleavedGemv
            ? llvm::divideCeil(kPrefetchBytes, weightType.getDimSize(1))
            : llvm::divideCeil(kPrefetchBytes, tileBytes) * tile.weightRows;
  }
  // A second FMA chain measured slower wherever the rows are prefetched
  // (LLaMA-3-8B's shapes, and TinyLlama-1.1B's while its rows were, f16:
  // see kF16GemvChains).
  assert((tile.chains == 1 || tile.xRows * tile.weightRows == 1) &&
         "chains split a one-output tile's sum");
  ops.chains = ops.prefetchBuffer ? 1 : tile.chains;
  // Threads pay off once the work (weight elements × rows of x) outweighs
  // starting an OpenMP region. A prefill's row count is dynamic: it is
  // assumed to fill at least one tile, so that a prefill splits weights
  // that a one-row decode keeps on one thread (SmolLM2's 192x576 K/V
  // projections).
  int64_t rows = getStaticRowCount(cast<RankedTensorType>(x.getType()))
                     .value_or(tile.xRows);
  // (An interleaved weight's storage rows are its groups: the weight rows
  // are `interleave` times as many.)
  ops.threaded = !weightType.hasStaticShape() || !staticDepth ||
                 weightType.getDimSize(0) * interleave * *staticDepth *
                         std::max<int64_t>(rows, 1) >=
                     minParallelWeightElements;

  Value zero = indexConstant(b, loc, 0);
  // The prefill GEMM on bf16 weights in VDPBF16PS where the caller asks for
  // it (x rounded to bf16): weights stored in groups of pairs, or packed into
  // pair panels on the CPU's full-width vectors.
  ops.bf16Dot =
      ops.floatGroups
          ? bf16Dot && tile.xRows > 1 &&
                ops.floatGroups.getColumns() ==
                    llm::InterleavedFloatType::kBF16PairColumns
          : usesPackedGemm(ops, tile) && usesBF16DotGemm(weightType, bf16Dot) &&
                tile.lanes == kBF16DotLanes;
  if (ops.bf16Dot)
    declareBF16Dot(b, loc,
                   b.getInsertionBlock()->getParentOp()
                       ->getParentOfType<ModuleOp>());
  if (ops.floatGroups) {
    emitInterleavedFloatProjection(b, loc, ops, tile);
    return bufferization::ToTensorOp::create(b, loc, resultType, out,
                                             /*restrict=*/b.getUnitAttr(),
                                             /*writable=*/b.getUnitAttr());
  }
  // The GEMM on float weights: whole panels by the packed kernel first.
  Value outputsStart = zero;
  if (usesPackedGemm(ops, tile)) {
    outputsStart =
        roundDown(b, loc, ops.outputs, tile.weightRows * tile.lanes);
    emitPackedGemm(b, loc, ops, zero, outputsStart, tile);
  }
  // Full tiles, then the x rows left below a tile (every weight row block),
  // then the weight rows left below a block (every x row).
  Value rowsMain = roundDown(b, loc, ops.rows, tile.xRows);
  Value outputsMain = b.createOrFold<arith::AddIOp>(
      loc, outputsStart,
      roundDown(b, loc,
                b.createOrFold<arith::SubIOp>(loc, ops.outputs, outputsStart),
                tile.weightRows));
  emitTiles(b, loc, ops, outputsStart, outputsMain, zero, rowsMain, tile,
            getRowBlock(staticDepth, tile, ops.int8 ? 1 : 4,
                        tile.rowBlockBytes));
  if (tile.xRows > 1)
    emitTiles(b, loc, ops, outputsStart, outputsMain, rowsMain, ops.rows,
              {1, tile.weightRows, tile.lanes}, /*rowBlock=*/1);
  if (tile.weightRows > 1)
    emitTiles(b, loc, ops, outputsMain, ops.outputs, zero, ops.rows,
              {1, 1, tile.lanes}, /*rowBlock=*/1);

  return bufferization::ToTensorOp::create(b, loc, resultType, out,
                                           /*restrict=*/b.getUnitAttr(),
                                           /*writable=*/b.getUnitAttr());
}
