// Ops of the `llm` dialect (includes its dialect, attributes and types).
#ifndef LLMC_DIALECT_LLMOPS_H
#define LLMC_DIALECT_LLMOPS_H

#include "dialect/LLMDialect.h"
#include "dialect/LLMTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialect/LLMOps.h.inc"

#endif // LLMC_DIALECT_LLMOPS_H
