// Enums and attributes of the `llm` dialect.
#ifndef LLMC_DIALECT_LLMATTRS_H
#define LLMC_DIALECT_LLMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialect/LLMEnums.h.inc"

#include "dialect/LLMAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/LLMAttrs.h.inc"

namespace mlir::llm {

/// The method of an op's optional `scaling` (RoPE scaling): `none` where
/// it has none (plain RoPE).
inline RopeScalingKind getRopeScalingKind(RopeScalingAttrInterface scaling) {
  return scaling ? scaling.getKind() : RopeScalingKind::none;
}

} // namespace mlir::llm

#endif // LLMC_DIALECT_LLMATTRS_H
