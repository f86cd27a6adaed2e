// Patterns that lower `llm` ops to linalg/tensor/scf/arith/math, by op family.
#ifndef LLMC_CODEGEN_CPU_LLMTOLINALG_H
#define LLMC_CODEGEN_CPU_LLMTOLINALG_H

#include "codegen/cpu/VectorProjection.h"

#include "mlir/Transforms/DialectConversion.h"

namespace llmc {

/// Maps `!llm.kv_cache` to the tensor `(2, layers, batch, capacity,
/// kv_heads, head_dim)` (index 0 of the first dimension: keys, 1: values)
/// and leaves every other type unchanged. Paged caches are not converted
/// (the CPU lowering stores them contiguously only; see the pass).
void addKVCacheTypeConversion(mlir::TypeConverter &converter);

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
/// weight elements × rows fall below `minParallelWeightElements` are not
/// split across threads.
void populateProjectionToVectorPatterns(mlir::TypeConverter &converter,
                                        mlir::RewritePatternSet &patterns,
                                        int64_t minParallelWeightElements,
                                        CPUVectorRegisters registers);
/// llm.rope (every style and scaling kind).
void populateRopeToLinalgPatterns(mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
/// llm.attention (tiled online softmax).
void populateAttentionToLinalgPatterns(mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);
/// llm.kv_append, llm.kv_view.
void populateKVCacheToLinalgPatterns(mlir::TypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);

} // namespace llmc

#endif // LLMC_CODEGEN_CPU_LLMTOLINALG_H
