// Enums, attribute interfaces and attributes of the `llm` dialect, with the RoPE scaling methods' verifiers.
#include "dialect/LLMAttrs.h"
#include "dialect/LLMDialect.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::llm;

#include "dialect/LLMEnums.cpp.inc"

#include "dialect/LLMAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/LLMAttrs.cpp.inc"

void LLMDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/LLMAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// RoPE scaling methods
//===----------------------------------------------------------------------===//

namespace {
/// The rules every method shares: factor ≥ 1 and, where it has one, an
/// original context M > 0 (named `name` in messages).
LogicalResult verifyFactorAndContext(function_ref<InFlightDiagnostic()> emitError,
                                     StringRef name, APFloat factor,
                                     std::optional<int64_t> originalMax) {
  if (!(factor.convertToDouble() >= 1.0))
    return emitError() << name << " needs factor >= 1, got "
                       << factor.convertToDouble();
  if (originalMax && *originalMax <= 0)
    return emitError() << name
                       << " needs original_max_position_embeddings > 0";
  return success();
}

LogicalResult verifyAttentionFactor(function_ref<InFlightDiagnostic()> emitError,
                                    StringRef name, APFloat attentionFactor) {
  if (attentionFactor.convertToDouble() < 0.0)
    return emitError() << name << " needs attention_factor >= 0";
  return success();
}
} // namespace

LogicalResult RopeLinearAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     APFloat factor) {
  return verifyFactorAndContext(emitError, "rope_linear", factor, std::nullopt);
}

LogicalResult RopeNtkAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  APFloat factor) {
  return verifyFactorAndContext(emitError, "rope_ntk", factor, std::nullopt);
}

LogicalResult
RopeDynamicAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        APFloat factor, int64_t originalMax) {
  return verifyFactorAndContext(emitError, "rope_dynamic", factor, originalMax);
}

LogicalResult RopeYarnAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   APFloat factor, int64_t originalMax,
                                   APFloat betaFast, APFloat betaSlow,
                                   APFloat attentionFactor, bool truncate) {
  if (failed(verifyFactorAndContext(emitError, "rope_yarn", factor,
                                    originalMax)) ||
      failed(verifyAttentionFactor(emitError, "rope_yarn", attentionFactor)))
    return failure();
  double fast = betaFast.convertToDouble(), slow = betaSlow.convertToDouble();
  if (!(slow > 0.0 && fast > slow))
    return emitError() << "rope_yarn needs beta_fast > beta_slow > 0";
  return success();
}

LogicalResult
RopeLlama3Attr::verify(function_ref<InFlightDiagnostic()> emitError,
                       APFloat factor, int64_t originalMax,
                       APFloat lowFreqFactor, APFloat highFreqFactor) {
  if (failed(verifyFactorAndContext(emitError, "rope_llama3", factor,
                                    originalMax)))
    return failure();
  double low = lowFreqFactor.convertToDouble();
  if (!(low > 0.0))
    return emitError() << "rope_llama3 needs low_freq_factor > 0";
  if (!(highFreqFactor.convertToDouble() > low))
    return emitError()
           << "rope_llama3 needs high_freq_factor > low_freq_factor";
  return success();
}

LogicalResult
RopeLongropeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         APFloat factor, int64_t originalMax,
                         APFloat attentionFactor, DenseF64ArrayAttr shortFactor,
                         DenseF64ArrayAttr longFactor) {
  if (failed(verifyFactorAndContext(emitError, "rope_longrope", factor,
                                    originalMax)) ||
      failed(verifyAttentionFactor(emitError, "rope_longrope",
                                   attentionFactor)))
    return failure();
  if (shortFactor.empty() || shortFactor.size() != longFactor.size())
    return emitError() << "rope_longrope needs short_factor and long_factor "
                          "of the same non-zero length";
  for (ArrayRef<double> factors :
       {shortFactor.asArrayRef(), longFactor.asArrayRef()})
    for (double f : factors)
      if (!(f > 0.0))
        return emitError() << "rope_longrope needs positive short_factor and "
                              "long_factor entries";
  return success();
}
