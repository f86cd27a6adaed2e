// Patterns that lower `llm` ops to CUDA kernels (gpu.func) and their launches, by op family.
#ifndef LLMC_CODEGEN_CUDA_LLMTOCUDA_H
#define LLMC_CODEGEN_CUDA_LLMTOCUDA_H

#include "codegen/cuda/KernelModule.h"

#include "mlir/Transforms/DialectConversion.h"

namespace llmc::cuda {

/// Maps ranked tensors to identity-layout memrefs (device buffers), a
/// block-quantized weight tensor<N x K x !llm.block<f>> to its bytes
/// memref<N x rowBytes x i8>, and
/// `!llm.kv_cache` to its bytes, `memref<N x i8>`, laid out as
/// (2, layers, batch, capacity, kv_heads, head_dim) like the CPU cache, or
/// for the paged layout (2, layers, pages, page_size, kv_heads, head_dim)
/// (the same size; a page table tensor becomes a memref<B x P x i32> like
/// any tensor); the KV-cache ops view one layer's keys or values with
/// memref.view, which keeps every buffer a kernel sees in the identity
/// layout.
void addTypeConversions(mlir::TypeConverter &converter);

/// A conversion pattern that builds its kernels into `kernels`.
template <typename OpTy>
struct KernelPattern : mlir::OpConversionPattern<OpTy> {
  KernelPattern(mlir::TypeConverter &converter, mlir::MLIRContext *context,
                KernelModule &kernels)
      : mlir::OpConversionPattern<OpTy>(converter, context), kernels(kernels) {}
  KernelModule &kernels;
};

/// Every family below takes the converter and the module the kernels are
/// created in; each pattern (a KernelPattern) allocates its result with
/// allocateResult and launches its kernel(s) with emitLaunch.

/// tensor.expand_shape / collapse_shape / dim on converted buffers.
void populateTensorViewPatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
/// llm.add, llm.glu, llm.activation, and arith.truncf / arith.extf on
/// tensors (the only arith ops the graph applies to tensors).
void populateElementwiseKernelPatterns(mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       KernelModule &kernels);
/// llm.rms_norm, llm.layer_norm.
void populateNormKernelPatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                KernelModule &kernels);
/// llm.embedding.
void populateEmbeddingKernelPatterns(mlir::TypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     KernelModule &kernels);
/// llm.linear, llm.logits: GEMV for one row (decode), tensor-core GEMM for
/// any other row count (prefill); a residual is added in either's epilogue.
/// llm.multi_linear, llm.glu_linear of one row: fused GEMVs (the pass
/// decomposes those of several rows first).
void populateProjectionKernelPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      KernelModule &kernels);
/// True for an llm.multi_linear or llm.glu_linear that the one-row GEMVs
/// take: x of one row (every leading extent 1) and, for a gated unit, gate
/// and up weights of one type. llm-lower-to-cuda decomposes the other fused
/// projections (those of a prefill) before the conversion: the GEMMs take a
/// residual in their epilogue, but no norm prologue, sibling weights or
/// gated unit.
bool isGemvFusedProjection(mlir::Operation *op);
/// llm.head_linear (f32/bf16/f16 weights): per-head GEMVs, the weight's
/// rows per head K-contiguous or, with transpose_weight, N-contiguous.
void populateHeadLinearKernelPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      KernelModule &kernels);
/// tensor.concat along the last dimension and tensor.extract_slice of a
/// static run of the last dimension (whole or token-prefix leading
/// extents): column-copy kernels.
void populateColumnCopyKernelPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      KernelModule &kernels);
/// llm.rope.
void populateRopeKernelPatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns,
                                KernelModule &kernels);
/// llm.attention (prefill: flash attention; one query row: split-K decode
/// attention + combine).
void populateAttentionKernelPatterns(mlir::TypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     KernelModule &kernels);
/// llm.rope_append: one kernel for the queries' rotation and the rotated
/// keys' and values' append.
void populateRopeAppendKernelPatterns(mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      KernelModule &kernels);
/// llm.kv_append, llm.kv_view.
void populateKVCacheKernelPatterns(mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   KernelModule &kernels);

/// The view of a paged cache (`llm.kv_view ... pages(...)`) or of a
/// quantized one is not materialized in its logical f32 order: the
/// attention kernels read K/V through the page table and decode codes and
/// scales where llm.attention consumes the view as its keys and values. An
/// error (emitted on the view) for any other user; llm-lower-to-cuda checks
/// this before the conversion.
mlir::LogicalResult verifyStoredKVViews(mlir::Operation *root);

/// Softcaps the f32 buffer `buffer` (any shape) in place, cap · tanh(x /
/// cap), with one element-wise kernel (cap and 1/cap its arguments): the
/// epilogue of a softcapped llm.logits after its GEMV or GEMM, which stay
/// plain projections.
void emitSoftcapInPlace(mlir::OpBuilder &b, mlir::Location loc,
                        KernelModule &kernels, mlir::Value buffer, double cap);

/// True for an arith op on tensors, which the elementwise patterns convert
/// (the pass keeps arith ops on scalars legal).
bool isTensorArithOp(mlir::Operation *op);

/// Kernels the runtime launches itself on logits (not part of a model
/// function): argmax and top-k/top-p sampling. Added to every CUDA module.
void addSamplingKernels(KernelModule &kernels, int64_t vocabSize);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_LLMTOCUDA_H
