// Enums and attributes of the `llm` dialect, with the RoPE scaling verifier.
#include "dialect/LLMAttrs.h"
#include "dialect/LLMDialect.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::llm;

#include "dialect/LLMEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/LLMAttrs.cpp.inc"

void LLMDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/LLMAttrs.cpp.inc"
      >();
}

namespace {
/// The parameter defaults, mirrored from LLMAttrs.td: a parameter that does
/// not apply to the chosen kind must keep its default.
struct ScalingDefaults {
  static constexpr double factor = 1.0;
  static constexpr int64_t originalMax = 0;
  static constexpr double lowFreqFactor = 1.0;
  static constexpr double highFreqFactor = 4.0;
  static constexpr double betaFast = 32.0;
  static constexpr double betaSlow = 1.0;
  static constexpr double attentionFactor = 0.0;
};
} // namespace

LogicalResult
RopeScalingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        RopeScalingKind kind, APFloat factorValue,
                        int64_t originalMax, APFloat lowFreqValue,
                        APFloat highFreqValue, APFloat betaFastValue,
                        APFloat betaSlowValue, APFloat attentionValue,
                        bool truncate, DenseF64ArrayAttr shortFactorAttr,
                        DenseF64ArrayAttr longFactorAttr) {
  ArrayRef<double> shortFactor =
      shortFactorAttr ? shortFactorAttr.asArrayRef() : ArrayRef<double>();
  ArrayRef<double> longFactor =
      longFactorAttr ? longFactorAttr.asArrayRef() : ArrayRef<double>();
  double factor = factorValue.convertToDouble();
  double lowFreqFactor = lowFreqValue.convertToDouble();
  double highFreqFactor = highFreqValue.convertToDouble();
  double betaFast = betaFastValue.convertToDouble();
  double betaSlow = betaSlowValue.convertToDouble();
  double attentionFactor = attentionValue.convertToDouble();
  StringRef kindName = stringifyRopeScalingKind(kind);
  bool usesFactor = kind != RopeScalingKind::none;
  bool usesOriginalMax = kind == RopeScalingKind::dynamic ||
                         kind == RopeScalingKind::yarn ||
                         kind == RopeScalingKind::llama3 ||
                         kind == RopeScalingKind::longrope;
  bool usesFreqFactors = kind == RopeScalingKind::llama3;
  bool usesBetas = kind == RopeScalingKind::yarn;
  bool usesAttentionFactor =
      kind == RopeScalingKind::yarn || kind == RopeScalingKind::longrope;
  bool usesExtFactors = kind == RopeScalingKind::longrope;

  auto rejectUnused = [&](bool used, bool isDefault,
                          StringRef name) -> LogicalResult {
    if (used || isDefault)
      return success();
    return emitError() << "rope scaling '" << kindName
                       << "' does not take parameter '" << name << "'";
  };
  if (failed(rejectUnused(usesFactor, factor == ScalingDefaults::factor,
                          "factor")) ||
      failed(rejectUnused(usesOriginalMax,
                          originalMax == ScalingDefaults::originalMax,
                          "original_max_position_embeddings")) ||
      failed(rejectUnused(usesFreqFactors,
                          lowFreqFactor == ScalingDefaults::lowFreqFactor,
                          "low_freq_factor")) ||
      failed(rejectUnused(usesFreqFactors,
                          highFreqFactor == ScalingDefaults::highFreqFactor,
                          "high_freq_factor")) ||
      failed(rejectUnused(usesBetas, betaFast == ScalingDefaults::betaFast,
                          "beta_fast")) ||
      failed(rejectUnused(usesBetas, betaSlow == ScalingDefaults::betaSlow,
                          "beta_slow")) ||
      failed(rejectUnused(usesBetas, truncate, "truncate")) ||
      failed(rejectUnused(usesAttentionFactor,
                          attentionFactor == ScalingDefaults::attentionFactor,
                          "attention_factor")) ||
      failed(rejectUnused(usesExtFactors, shortFactor.empty(),
                          "short_factor")) ||
      failed(rejectUnused(usesExtFactors, longFactor.empty(), "long_factor")))
    return failure();

  if (usesFactor && !(factor >= 1.0))
    return emitError() << "rope scaling '" << kindName
                       << "' needs factor >= 1, got " << factor;
  if (usesOriginalMax && originalMax <= 0)
    return emitError() << "rope scaling '" << kindName
                       << "' needs original_max_position_embeddings > 0";
  if (usesFreqFactors && !(lowFreqFactor > 0.0))
    return emitError() << "rope scaling 'llama3' needs low_freq_factor > 0";
  if (usesFreqFactors && !(highFreqFactor > lowFreqFactor))
    return emitError()
           << "rope scaling 'llama3' needs high_freq_factor > low_freq_factor";
  if (usesBetas && !(betaSlow > 0.0 && betaFast > betaSlow))
    return emitError() << "rope scaling 'yarn' needs beta_fast > beta_slow > 0";
  if (usesAttentionFactor && attentionFactor < 0.0)
    return emitError() << "rope scaling '" << kindName
                       << "' needs attention_factor >= 0";
  if (usesExtFactors) {
    if (shortFactor.empty() || shortFactor.size() != longFactor.size())
      return emitError() << "rope scaling 'longrope' needs short_factor and "
                            "long_factor of the same non-zero length";
    for (ArrayRef<double> factors : {shortFactor, longFactor})
      for (double f : factors)
        if (!(f > 0.0))
          return emitError() << "rope scaling 'longrope' needs positive "
                                "short_factor and long_factor entries";
  }
  return success();
}
