// The register-tiled vector kernel behind the CPU projection patterns (x · Wᵀ + bias, threaded with scf.parallel).
#ifndef LLMC_CODEGEN_CPU_VECTORPROJECTION_H
#define LLMC_CODEGEN_CPU_VECTORPROJECTION_H

#include "codegen/cpu/ActivationQuantization.h"
#include "codegen/cpu/Int8Dot.h"
#include "dialect/LLMTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace llmc {

/// Lanes of the f32 vectors the decode GEMV walks K with: one AVX-512
/// register (two AVX2 registers), the width measured at 92-94% of memory
/// bandwidth.
constexpr int64_t kProjectionVectorWidth = 16;

/// The SIMD registers of the CPU the kernels are compiled for. The default
/// is AVX-512's (32 × 512 bits); `llmc compile` passes its target CPU's.
struct CPUVectorRegisters {
  int64_t bits = 512;
  int64_t count = 32;
  /// The width of the float GEMM's vectors where the target measured a
  /// narrower tile faster than one of its full registers (0: bits).
  int64_t floatGemmBits = 0;
};

/// Weight rows of the interleaved int8 GEMV's tile: one group of an
/// interleaved weight (`!llm.block<q4_0, interleave = 8>`), one row per
/// int32 lane of a 256-bit dot product.
constexpr int64_t kInterleavedGemvRows =
    mlir::llm::BlockQuantType::kInterleavedRows;

/// Whether the interleaved int8 GEMV computes on `format` (a 32-element
/// format in groups of kInterleavedGemvRows: q4_0, q4_1, q5_0, q5_1, q8_0).
inline bool hasInterleavedGemv(mlir::llm::BlockQuantType format) {
  return format && format.getBlockElements() == 32 &&
         format.getInterleave() == kInterleavedGemvRows;
}

/// How many rows of x and of W one kernel tile computes together: each
/// loaded x vector is reused for `weightRows` FMAs and each weight vector
/// for `xRows` FMAs, with xRows × weightRows vector accumulators live, each
/// a vector<`lanes` x f32>.
struct ProjectionTile {
  int64_t xRows;
  int64_t weightRows;
  int64_t lanes = kProjectionVectorWidth;
  /// A GEMM tile's cache block: bytes of x rows it keeps in cache per row
  /// block (getGemmTile, getInt8GemmTile); 0 for a GEMV's tile.
  int64_t rowBlockBytes = 0;
  /// Independent sums along K of a one-output tile (xRows = weightRows =
  /// 1) on float weights, added together after the K loop: FMA chains
  /// that do not wait on each other. Rows the kernel prefetches keep one.
  int64_t chains = 1;
};

/// The prefill GEMM tile for `registers`: vectors one register wide, 4 x
/// rows × as many weight rows as keep the accumulators and the vectors of
/// one K step in registers, spilling none: 4 × 6 vector<16xf32> on AVX-512
/// (32 zmm), 4 × 3 vector<8xf32> on AVX2 (16 ymm).
ProjectionTile getGemmTile(CPUVectorRegisters registers);

/// The prefill GEMM tile on block-quantized weights with int8 dot products
/// (Int8Gemm.h; lanes unused): 4 x rows × panels of 8 weight rows (one
/// int32 lane each), as many panels as keep each (x row, panel)'s int32 and
/// f32 accumulators in registers: 2 on AVX-512 (16 rows), 1 on AVX2.
ProjectionTile getInt8GemmTile(CPUVectorRegisters registers);

/// The GEMM tile of bf16 weights multiplied in VDPBF16PS: getGemmTile's at
/// the registers' full width (the instruction's 16 lanes), whatever floatGemmBits
/// says about the f32 tile.
ProjectionTile getBF16DotGemmTile(CPUVectorRegisters registers);

/// The prefill GEMM tile on float rows in interleaved groups
/// (`!llm.interleaved<t, rows = 16>`; lanes 16, one group per weight
/// vector, so weightRows counts groups): x rows × groups, as many x rows
/// first and then groups as keep the accumulators, the step's group
/// columns and one broadcast x element in registers: 8 × 3 on AVX-512 (28
/// zmm), 6 × 1 on AVX2 (each vector two ymm: 15), 2 × 1 on 16 SSE
/// registers. The 8 × 3 tile, widening
/// the 3 group columns in the K loop (3 VCVTPH2PS per 24 FMAs, nothing
/// packed), ran f16 weights at 96-99% of the FMA rate on one Zen 4 core
/// (bench/f16_panels.c, M = 128), where packing the rows into f32 panels for
/// 4 × 6 vector<8xf32> tiles ran at 89-92%. `stepVectors` is what a group
/// gives each K step: its run's columns (1, or bf16's pairs widened to 2
/// vectors), or 1 for VDPBF16PS, whose operand is a whole pair run; a
/// step broadcasts as many x elements (or pairs) per x row.
ProjectionTile getInterleavedGemmTile(CPUVectorRegisters registers,
                                      int64_t stepVectors);

/// Whether the prefill GEMM multiplies `weightType`'s weights in VDPBF16PS
/// (bf16 weights, under bf16Dot), with getBF16DotGemmTile's tile.
bool usesBF16DotGemm(mlir::RankedTensorType weightType, bool bf16Dot);

/// True when the vector kernel handles a projection of these types: every
/// element type is f32, bf16 or f16 (products are accumulated in f32), or
/// for the weight a block format (`weightType` is then the logical
/// tensor<N x K x !llm.block<...>>) or float rows in interleaved groups (an
/// f32 result only), and x has at least one leading (row) dimension.
bool isVectorProjectionSupported(mlir::RankedTensorType xType,
                                 mlir::RankedTensorType weightType,
                                 mlir::Type biasType,
                                 mlir::RankedTensorType resultType);

/// The number of rows of x (product of its leading dimensions) when static.
std::optional<int64_t> getStaticRowCount(mlir::RankedTensorType xType);

/// Emits `x[l..., K] · weight[N, K]ᵀ (+ bias[N])` as a tensor of
/// `resultType`: the operands are read with vector.transfer_read on their
/// tensors, the result is a fresh buffer filled by scf.parallel loops over
/// tiles of `tile` rows (x rows in cache blocks of up to 96 KiB outermost,
/// then weight rows, then the block's tiles, so that the block stays in L2
/// and each weight tile's rows in L1 across it), each
/// tile an scf.for over K in vector<`tile.lanes` x f32> with vector.fma
/// accumulators, a masked tail for K % lanes and one reassociating
/// vector.reduction per output. Rows that do not fill a tile are computed by
/// smaller tiles. `weight` is the weight's storage and `logicalWeightType`
/// the op's type of it. With a block format (`!llm.block<...>`), `weight`
/// holds the bytes of block-quantized rows ([N, rowBytes] i8) and the K
/// loop walks whole
/// blocks, decoding each in registers (BlockDecoder) once per tile and
/// reusing it for every x row of the tile; in a cache block of several x
/// tiles, block and 16-bit weight rows are instead decoded (widened) once
/// per (block, weight tile) into an f32 buffer that the block's tiles read. With an `int8Dot` kind, x is
/// rounded to int8 in 32-element blocks first and each block of weight
/// codes meets it in integer dot products (llama.cpp's scheme), trading x's
/// rounding (relative 2^-8 per block) for fewer instructions per weight: in
/// the GEMV (one x row) per row and 32 elements; in the GEMM on weight
/// tiles decoded once per x row block into codes (Int8Gemm.h), as an outer
/// product of 4 x rows and `tile.weightRows` weight rows. On float
/// weights with an f32 result, the GEMM computes whole panels of
/// tile.weightRows × lanes weight rows with PackedGemm.h's outer-product
/// kernel (each panel packed K-major once per block of 128 x rows) and
/// leaves only the rows below a panel to the dot-product tiles; with
/// `bf16Dot`, bf16 weights (on 16-lane vectors) go to its VDPBF16PS kernel
/// instead, x rounded to bf16 (relative 2^-9 per element) once per
/// projection, the weights packed in pairs of K. Float rows in interleaved
/// groups (`!llm.interleaved<...>`, storage [N / 16, 16 · K]) go to their
/// own kernels (PackedGemm.h): the GEMV sums each group in `tile.chains`
/// chains with x's elements broadcast, the GEMM runs `tile`
/// (getInterleavedGemmTile) over the groups as stored, bf16 pair groups in
/// VDPBF16PS under `bf16Dot` (x rounded to bf16). When the
/// work is small (fewer than `minParallelWeightElements` weight elements
/// times the rows of x, at least `tile.xRows` when the row count is
/// dynamic), the scf.parallel loops are marked small (ParallelLoopMarks.h).
mlir::Value createVectorProjection(mlir::OpBuilder &builder, mlir::Location loc,
                                   mlir::Value x, mlir::Value weight,
                                   mlir::RankedTensorType logicalWeightType,
                                   mlir::Value bias,
                                   mlir::RankedTensorType resultType,
                                   ProjectionTile tile,
                                   Int8DotKind int8Dot, bool bf16Dot,
                                   int64_t minParallelWeightElements,
                                   QuantizedActivationCache &activations);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_VECTORPROJECTION_H
