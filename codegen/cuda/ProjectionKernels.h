// The GEMV and GEMM kernels behind the llm.linear / llm.logits patterns.
#ifndef LLMC_CODEGEN_CUDA_PROJECTIONKERNELS_H
#define LLMC_CODEGEN_CUDA_PROJECTIONKERNELS_H

#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/KernelModule.h"
#include "dialect/LLMAttrs.h"
#include "dialect/LLMTypes.h"

namespace llmc::cuda {

/// One projection out = x · weightᵀ (+ bias) (+ residual) on device
/// buffers, every row K-contiguous: x (M, K) f32, weight (N, K)
/// f32/bf16/f16 or, with `weightFormat`, the bytes of N rows of K elements
/// in that block format (N, rowBytes) i8, bias (N) of any float type or
/// null, residual (M, N) f32 or null, out (M, N) f32. M may be dynamic; N
/// and K are static.
struct ProjectionOperands {
  mlir::Value x, weight, bias, residual, out;
  /// The weight's block format; null for float weights.
  mlir::llm::BlockQuantType weightFormat;

  /// N and K of the weight (K in elements, also for block formats).
  int64_t getOutputs() const;
  int64_t getDepth() const;

  /// The kernel arguments: x, then getOutputArgs().
  llvm::SmallVector<mlir::Value> getArgs() const;
  /// The arguments past x: weight, bias and residual (when present), out.
  /// A multi-output GEMV passes x once, then these for every output.
  llvm::SmallVector<mlir::Value> getOutputArgs() const;
  /// The operands inside a kernel taking `host`.getArgs().
  static ProjectionOperands fromKernel(mlir::gpu::GPUFuncOp kernel,
                                       const ProjectionOperands &host);
  /// The operands of x inside a kernel whose arguments `args` begin with
  /// `host`.getOutputArgs() (the rest of `args` is ignored).
  static ProjectionOperands fromOutputArgs(mlir::Value x, mlir::ValueRange args,
                                           const ProjectionOperands &host);
};

/// The RMS normalization a one-row kernel applies to x as it reads it
/// (llm.rms_norm fused into the projections): the dot products use x · weight
/// and are scaled by 1 / sqrt(mean(x²) + eps) at the end. A null weight: no
/// normalization.
struct GemvNorm {
  mlir::Value weight;
  double eps = 0.0;
};

/// Decode (M statically 1): a warp per weight row (or two), 128-bit weight
/// loads, warp-shuffle reductions. Bound by reading the weight once.
void launchGemv(mlir::OpBuilder &builder, mlir::Location loc,
                KernelModule &kernels, const ProjectionOperands &operands);

/// Several one-row projections of the same x (`outputs`, each with its own
/// weight (float or block format), bias, residual and out; at least one) in
/// one launch, x optionally
/// normalized: the grid's warps take the rows of the first output, then of
/// the second, and so on (llm.multi_linear).
void launchMultiGemv(mlir::OpBuilder &builder, mlir::Location loc,
                     KernelModule &kernels, const GemvNorm &norm,
                     llvm::ArrayRef<ProjectionOperands> outputs);

/// One projection per head (llm.head_linear without transpose_weight):
/// out[m, h·N + n] = x[m, h·K ..< (h+1)·K] · weight[h·N + n, :] for x (M,
/// heads · K) f32, weight (heads · N, K) f32/bf16/f16, out (M, heads · N),
/// M dynamic. The GEMV's warps (one weight row each, emitWarpDots) with
/// grid row m reading row m of x: for one row (decode) a GEMV that reads
/// the weight once; a prefill of M rows reads it M times, through L2.
void launchHeadGemv(mlir::OpBuilder &builder, mlir::Location loc,
                    KernelModule &kernels, const ProjectionOperands &operands,
                    int64_t heads);

/// out (1, N) = act(x · gateᵀ) · (x · upᵀ) for one row x, optionally
/// normalized: each warp computes a gate row and an up row and stores only
/// their gated unit (llm.glu_linear). Both weights have one element type,
/// or one block format (`weightFormat`, else null).
void launchGatedGemv(mlir::OpBuilder &builder, mlir::Location loc,
                     KernelModule &kernels, const GemvNorm &norm,
                     mlir::Value x, mlir::Value gateWeight,
                     mlir::Value upWeight,
                     mlir::llm::BlockQuantType weightFormat,
                     mlir::llm::Activation activation, mlir::Value out);

/// Any row count, bf16/f16 or block-quantized weights: mma.sync m16n8k16
/// with f32 accumulation, x rounded to the weight's type (f16 for blocks)
/// when staged in shared memory; blocks are decoded into f16 tiles in shared
/// memory (BlockGemmTile.cpp).
void launchMmaGemm(mlir::OpBuilder &builder, mlir::Location loc,
                   KernelModule &kernels, const ProjectionOperands &operands);

/// Any row count, f32 weights: shared-memory tiled f32 FMA (tensor cores'
/// tf32 would round the f32 operands).
void launchSimtGemm(mlir::OpBuilder &builder, mlir::Location loc,
                    KernelModule &kernels, const ProjectionOperands &operands);

/// Lanes of the widest vector access (at most 16 bytes) that divides a
/// K-contiguous row of `k` elements of `elementType`: then every row start
/// and every chunk is aligned to the vector's size and no chunk straddles K.
int64_t getRowVectorWidth(int64_t k, mlir::Type elementType);

/// bias[column] widened to f32, or null when the projection has no bias. A
/// column past N (whose result is not stored) reads bias[N - 1].
mlir::Value loadBias(DeviceBuilder &d, const ProjectionOperands &operands,
                     mlir::Value column);

/// out[row, column] = sum (+ `bias` unless null) (+ residual[row, column]
/// when the operands have one); with `guardColumn` only when column < N.
void storeProjectionResult(DeviceBuilder &d, const ProjectionOperands &operands,
                           mlir::Value row, mlir::Value column, mlir::Value sum,
                           mlir::Value bias, bool guardColumn);

//===----------------------------------------------------------------------===//
// GEMM operand tiles (GemmTiles.cpp)
//===----------------------------------------------------------------------===//

/// Shared buffers per GEMM operand: the CTA computes on one while the next
/// K tile is stored to the other (emitPipelinedKLoop).
constexpr int64_t kSharedBuffers = 2;

/// A tile of `rows` × `depth` elements of a K-contiguous operand (x or the
/// weight), copied from global to shared memory by all `numThreads` threads
/// of a CTA in chunks of `width` consecutive elements: chunk c (thread t
/// holds c = t, t + numThreads, ...) covers row c / (depth / width) at
/// column (c mod (depth / width)) · width, so a warp reads whole row
/// segments (coalesced). Elements past the operand's rows or past K read as
/// zero, which keeps partial tiles out of the sums.
struct OperandTile {
  /// The global (rows, K) buffer.
  mlir::Value source;
  /// The operand's row count (an index value), and whether a tile can
  /// reach past it (false when it is static and a multiple of `rows`).
  mlir::Value rowCount;
  bool guardRows;
  /// The tile's first row.
  mlir::Value firstRow;
  int64_t rows, depth, k, width, numThreads;

  int64_t getChunksPerThread() const {
    return rows * depth / width / numThreads;
  }
};

/// This thread's chunks of the tile starting at column `k0`: for each, a
/// vector of the source's element type (loaded from a clamped address when
/// out of range) and an i1 saying whether it is in range.
llvm::SmallVector<mlir::Value>
loadTile(DeviceBuilder &d, const OperandTile &tile, mlir::Value k0);

/// Stores the chunks from loadTile (zeros for those out of range) into
/// `buffer` of the workgroup memref `shared` (buffers × ...), converted to
/// its element type: at
/// [buffer, row, column...] or, `transposed`, element by element at
/// [buffer, column + i, row].
void storeTile(DeviceBuilder &d, const OperandTile &tile,
               llvm::ArrayRef<mlir::Value> chunks, mlir::Value shared,
               mlir::Value buffer, bool transposed);

/// The K loop of a GEMM over `numTiles` tiles of `depth` columns, double
/// buffered in shared memory with register prefetch: while the CTA computes
/// on one buffer, each thread's loads of the next tile are in flight, and
/// are stored to the other buffer afterwards; one barrier per tile.
/// `load(k0)` reads a tile into registers, `store(values, buffer)` writes
/// them to shared buffer 0 or 1, `compute(buffer, accumulators)` returns the
/// updated accumulators. Returns the final accumulators.
llvm::SmallVector<mlir::Value> emitPipelinedKLoop(
    DeviceBuilder &d, int64_t numTiles, int64_t depth, mlir::ValueRange init,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value)> load,
    llvm::function_ref<void(llvm::ArrayRef<mlir::Value>, mlir::Value)> store,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value,
                                                      mlir::ValueRange)>
        compute);

/// A tile of `rows` weight rows × `depth` elements of a block-quantized
/// weight (its bytes, (N, rowBytes) i8, in `source`), decoded by all
/// `numThreads` threads of a CTA, kBlockDecodeLanes elements each (rows ·
/// depth = numThreads · kBlockDecodeLanes; a stage of `depth` elements lies
/// in one block). Rows past N read as zero.
struct BlockWeightTile {
  mlir::Value source;
  mlir::llm::BlockQuantType format;
  int64_t n;
  mlir::Value firstRow;
  int64_t rows, depth, numThreads;
};

/// This thread's run of the tile at column `k0`, decoded to f32: {vector,
/// i1 in range}. The loads and the decoding happen here, in registers.
llvm::SmallVector<mlir::Value>
loadBlockTile(DeviceBuilder &d, const BlockWeightTile &tile, mlir::Value k0);

/// Stores the run from loadBlockTile (zeros when out of range) into
/// [buffer, row, column...] of the workgroup memref `shared`, converted to
/// its element type.
void storeBlockTile(DeviceBuilder &d, const BlockWeightTile &tile,
                    llvm::ArrayRef<mlir::Value> values, mlir::Value shared,
                    mlir::Value buffer);

/// Tile sizes of a GEMM kernel: output rows × columns per CTA, K per stage.
struct GemmTileShape {
  int64_t rows, columns, depth;
};

/// The output block of a tiled GEMM kernel — rows blockIdx.x·rows..,
/// columns blockIdx.y·columns.. (grid x walks the rows of x fastest, so the
/// CTAs running together share weight tiles through L2) — and the x and
/// weight tiles it streams through shared memory.
struct GemmBlock {
  GemmBlock(DeviceBuilder &d, const ProjectionOperands &operands, int64_t n,
            int64_t k, GemmTileShape tile, int64_t xWidth, int64_t weightWidth,
            int64_t numThreads);

  /// This thread's chunks of both tiles at column `k0`, x's first.
  llvm::SmallVector<mlir::Value> load(DeviceBuilder &d, mlir::Value k0) const;
  /// Stores what `load` returned into `buffer` of the two shared tiles.
  void store(DeviceBuilder &d, llvm::ArrayRef<mlir::Value> chunks,
             mlir::Value sharedX, mlir::Value sharedWeight, mlir::Value buffer,
             bool transposed) const;

  mlir::Value rowCount, firstRow, firstColumn;
  OperandTile x, weight;
};

/// Launches a GEMM kernel over `operands` with one CTA of `numThreads`
/// threads per output block of `tile`.
void launchGemmGrid(mlir::OpBuilder &builder, mlir::Location loc,
                    mlir::gpu::GPUFuncOp kernel,
                    const ProjectionOperands &operands, int64_t n,
                    GemmTileShape tile, int64_t numThreads);

/// Kernel-name fragment of the epilogue: "_bias<type>" with a bias,
/// "_res" with a residual, "" for neither.
std::string getEpilogueTag(const ProjectionOperands &operands);

/// Kernel-name fragment of the weight: its element type ("bf16") or block
/// format ("q4_k").
std::string getWeightTag(const ProjectionOperands &operands);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_PROJECTIONKERNELS_H
