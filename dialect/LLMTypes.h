// Types of the `llm` dialect.
#ifndef LLMC_DIALECT_LLMTYPES_H
#define LLMC_DIALECT_LLMTYPES_H

#include "dialect/LLMAttrs.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

namespace mlir::llm {
/// Tokens per page of a paged cache unless the type says otherwise: 16 keeps
/// page-table overhead small while wasting at most 15 slots per sequence.
constexpr int64_t kDefaultKVPageSize = 16;
} // namespace mlir::llm

#define GET_TYPEDEF_CLASSES
#include "dialect/LLMTypes.h.inc"

#endif // LLMC_DIALECT_LLMTYPES_H
