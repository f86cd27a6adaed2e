// Patterns that lower `llm` ops to linalg/tensor/scf/arith/math, by op family.
#ifndef LLMC_CODEGEN_CPU_LLMTOLINALG_H
#define LLMC_CODEGEN_CPU_LLMTOLINALG_H

#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMTypes.h"

#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include <utility>

namespace llmc {

/// Index of the keys in the leading dimension of the converted cache
/// tensor; the values' is KVCacheType::getValuesPlane() (1, or 0 when the
/// values are the keys).
constexpr int64_t kKeysIndex = 0;

/// Maps `!llm.kv_cache` to the tensor `(planes, layers, batch, capacity,
/// kv_heads, head_dim)`, or `(planes, layers, pages, page_size, kv_heads,
/// head_dim)` for the paged layout (index 0 of the first dimension: keys,
/// 1: values; one plane when the values are the keys), and leaves every
/// other type unchanged.
void addKVCacheTypeConversion(mlir::TypeConverter &converter);

/// Maps block-quantized weights, tensor<N x K x !llm.block<f>>, to their
/// bytes, tensor<N x rowBytes x i8>, and interleaved float weights to their
/// groups, tensor<N / 16 x 16 · K x t> (getWeightStorageType): what the
/// entry points take and the kernels read.
void addWeightStorageTypeConversion(mlir::TypeConverter &converter);

/// One layer of a converted cache that llm.attention reads a key tile at a
/// time: a paged cache (through its page table) or a quantized one (whose
/// rows hold codes and scales).
struct CacheLayer {
  mlir::Value cache;
  /// Null for the contiguous layout.
  mlir::Value pageTable;
  mlir::OpFoldResult layer;
  mlir::llm::KVCacheType cacheType;
};

/// When `keys` and `values` are the results of one llm.kv_view of a paged
/// or quantized cache whose operands are converted: that layer. Lets
/// llm.attention read only the keys it needs, as stored.
std::optional<CacheLayer> getCacheLayer(mlir::Value keys, mlir::Value values,
                                        mlir::ConversionPatternRewriter &rewriter);

/// Keys and values [start, start + length) of every sequence in logical
/// order as stored, (batch, length, kv_heads, row) each: sliced from a
/// contiguous cache, gathered through the page table of a paged one (one
/// lookup per key for both). A row is head_dim elements, or for a
/// quantized cache head_dim code bytes and the scale's bytes (i8). When the
/// values are the keys, the keys are read once and returned as both. With
/// `kvHead`, only that KV head's rows are read (kv_heads extent 1).
std::pair<mlir::Value, mlir::Value>
readCacheRows(mlir::OpBuilder &b, mlir::Location loc, const CacheLayer &layer,
              mlir::Value start, mlir::OpFoldResult length,
              mlir::Value kvHead = mlir::Value());

/// The scales of rows read from a quantized cache, (batch, length, kv_heads)
/// f32.
mlir::Value decodeRowScales(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value rows, mlir::llm::KVCacheType cacheType);

/// The first head_dim bytes of such rows: the codes.
mlir::Value sliceRowCodes(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value rows, mlir::llm::KVCacheType cacheType);

/// llm.add, llm.glu, llm.activation.
void populateElementwiseToLinalgPatterns(mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);
/// llm.rms_norm, llm.layer_norm.
void populateNormToLinalgPatterns(mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
/// llm.linear, llm.logits, llm.embedding.
void populateProjectionToLinalgPatterns(mlir::TypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);
/// llm.linear, llm.logits with f32 / bf16 / f16 operands: the vector GEMV
/// kernel for a statically single row (decode), the register-tiled one for
/// any other row count (prefill, its tile sized for `registers`), at a
/// higher benefit than the generic projection patterns. Projections whose
/// weight elements × rows fall below `minParallelWeightElements` get loops
/// marked small (ParallelLoopMarks.h): threads only beside a sibling. With an `int8Dot` kind, the decode GEMV and the
/// prefill GEMM of block-quantized weights multiply them with x rounded to
/// int8; with `bf16Dot` (AVX-512 BF16), the prefill GEMM multiplies bf16
/// weights with x rounded to bf16 in VDPBF16PS.
void populateProjectionToVectorPatterns(mlir::TypeConverter &converter,
                                        mlir::RewritePatternSet &patterns,
                                        int64_t minParallelWeightElements,
                                        CPUVectorRegisters registers,
                                        Int8DotKind int8Dot, bool bf16Dot);
/// llm.rope (every style and scaling kind).
void populateRopeToLinalgPatterns(mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
/// llm.attention (tiled online softmax). A call of at most one query block
/// runs its query heads on threads only when heads × head_dim × keys (the
/// view's capacity) reach `minParallelElements` (0: always).
void populateAttentionToLinalgPatterns(mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       int64_t minParallelElements);
/// llm.kv_append, llm.kv_view.
void populateKVCacheToLinalgPatterns(mlir::TypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_LLMTOLINALG_H
