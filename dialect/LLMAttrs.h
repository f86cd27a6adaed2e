// Enums and attributes of the `llm` dialect.
#ifndef LLMC_DIALECT_LLMATTRS_H
#define LLMC_DIALECT_LLMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialect/LLMEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/LLMAttrs.h.inc"

#endif // LLMC_DIALECT_LLMATTRS_H
