// Declaration of the `llm` dialect.
#ifndef LLMC_DIALECT_LLMDIALECT_H
#define LLMC_DIALECT_LLMDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "dialect/LLMDialect.h.inc"

#endif // LLMC_DIALECT_LLMDIALECT_H
