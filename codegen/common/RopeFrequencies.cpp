// RoPE inverse frequencies for every scaling kind, shared by the CPU and CUDA
// lowerings.
#include "codegen/common/RopeFrequencies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace {

/// 2π, for wavelengths and YaRN's rotation counts.
constexpr double kTwoPi = 6.28318530717958647692;
/// YaRN's default attention scale is 0.1·ln(factor) + 1.
constexpr double kYarnMscaleSlope = 0.1;
/// YaRN widens an empty ramp (low == high) by this much to avoid 0/0, as
/// Hugging Face's linear_ramp_factor does.
constexpr double kYarnEmptyRampWidth = 0.001;

/// The NTK exponent d/(d−2) by which θ grows with the scale (static and
/// dynamic NTK).
double ntkExponent(int64_t rotaryDim) {
  return double(rotaryDim) / double(rotaryDim - 2);
}

/// inv_freq[i] = θ^(−2i/d) for i ∈ [0, d/2), in double.
SmallVector<double> plainInverseFrequencies(double theta, int64_t rotaryDim) {
  SmallVector<double> invFreq(rotaryDim / 2);
  for (int64_t i = 0, e = rotaryDim / 2; i < e; ++i)
    invFreq[i] = std::pow(theta, -2.0 * double(i) / double(rotaryDim));
  return invFreq;
}

/// YaRN's dimension whose wavelength makes `rotations` turns over M
/// positions: d·ln(M/(r·2π)) / (2·ln θ).
double yarnCorrectionDim(double rotations, int64_t rotaryDim, double theta,
                         double originalMax) {
  return double(rotaryDim) * std::log(originalMax / (rotations * kTwoPi)) /
         (2.0 * std::log(theta));
}

/// YaRN's blend of interpolated and extrapolated frequencies (in place).
void applyYarn(SmallVector<double> &invFreq, double theta, int64_t rotaryDim,
               llm::RopeYarnAttr yarn) {
  double factor = yarn.getFactor().convertToDouble();
  double originalMax = double(yarn.getOriginalMaxPositionEmbeddings());
  // HF's find_correction_range: rounded outwards unless truncate = false.
  double low = yarnCorrectionDim(yarn.getBetaFast().convertToDouble(),
                                 rotaryDim, theta, originalMax);
  double high = yarnCorrectionDim(yarn.getBetaSlow().convertToDouble(),
                                  rotaryDim, theta, originalMax);
  if (yarn.getTruncate()) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, double(rotaryDim - 1));
  if (high == low)
    high += kYarnEmptyRampWidth;
  for (int64_t i = 0, e = invFreq.size(); i < e; ++i) {
    double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
    double extrapolation = 1.0 - ramp;
    invFreq[i] = invFreq[i] / factor * (1.0 - extrapolation) +
                 invFreq[i] * extrapolation;
  }
}

/// Llama 3.1's wavelength bands (in place).
void applyLlama3(SmallVector<double> &invFreq, llm::RopeLlama3Attr llama3) {
  double factor = llama3.getFactor().convertToDouble();
  double originalMax = double(llama3.getOriginalMaxPositionEmbeddings());
  double lowFreqFactor = llama3.getLowFreqFactor().convertToDouble();
  double highFreqFactor = llama3.getHighFreqFactor().convertToDouble();
  double lowFreqWavelength = originalMax / lowFreqFactor;
  double highFreqWavelength = originalMax / highFreqFactor;
  for (double &f : invFreq) {
    double wavelength = kTwoPi / f;
    if (wavelength > lowFreqWavelength) {
      f /= factor;
    } else if (wavelength >= highFreqWavelength) {
      double smooth = (originalMax / wavelength - lowFreqFactor) /
                      (highFreqFactor - lowFreqFactor);
      f = (1.0 - smooth) * f / factor + smooth * f;
    }
  }
}

/// The static inverse frequencies in double (see the header).
SmallVector<double>
staticInverseFrequencies(double theta, int64_t rotaryDim,
                         llm::RopeScalingAttrInterface scaling) {
  SmallVector<double> invFreq = plainInverseFrequencies(theta, rotaryDim);
  if (!scaling)
    return invFreq;
  double factor = scaling.getFactor().convertToDouble();
  llvm::TypeSwitch<Attribute>(scaling)
      .Case([&](llm::RopeLinearAttr) {
        for (double &f : invFreq)
          f /= factor;
      })
      .Case([&](llm::RopeNtkAttr) {
        invFreq = plainInverseFrequencies(
            theta * std::pow(factor, ntkExponent(rotaryDim)), rotaryDim);
      })
      .Case([&](llm::RopeYarnAttr yarn) {
        applyYarn(invFreq, theta, rotaryDim, yarn);
      })
      .Case([&](llm::RopeLlama3Attr llama3) { applyLlama3(invFreq, llama3); })
      // Dynamic NTK and longrope choose their frequencies per call.
      .Default([](Attribute) {});
  return invFreq;
}

Value f64Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
}

} // namespace

bool llmc::usesNtkExponent(llm::RopeScalingAttrInterface scaling) {
  return isa_and_present<llm::RopeNtkAttr, llm::RopeDynamicAttr>(scaling);
}

SmallVector<float>
llmc::getStaticInverseFrequencies(double theta, int64_t rotaryDim,
                                  llm::RopeScalingAttrInterface scaling) {
  SmallVector<float> values;
  for (double f : staticInverseFrequencies(theta, rotaryDim, scaling))
    values.push_back(static_cast<float>(f));
  return values;
}

SmallVector<float>
llmc::getLongropeInverseFrequencies(double theta, int64_t rotaryDim,
                                    llm::RopeLongropeAttr scaling) {
  SmallVector<double> plain = plainInverseFrequencies(theta, rotaryDim);
  SmallVector<float> values;
  for (ArrayRef<double> ext : {scaling.getShortFactor().asArrayRef(),
                               scaling.getLongFactor().asArrayRef()})
    for (int64_t i = 0, e = plain.size(); i < e; ++i)
      values.push_back(static_cast<float>(plain[i] / ext[i]));
  return values;
}

bool llmc::choosesFrequenciesPerCall(llm::RopeScalingAttrInterface scaling) {
  return isa_and_present<llm::RopeDynamicAttr, llm::RopeLongropeAttr>(scaling);
}

double llmc::getRopeAttentionFactor(llm::RopeScalingAttrInterface scaling) {
  // The given factor, and the default where it is 0.
  double given = 0.0;
  if (auto yarn = dyn_cast_if_present<llm::RopeYarnAttr>(scaling))
    given = yarn.getAttentionFactor().convertToDouble();
  else if (auto longrope = dyn_cast_if_present<llm::RopeLongropeAttr>(scaling))
    given = longrope.getAttentionFactor().convertToDouble();
  else
    return 1.0;
  if (given != 0.0)
    return given;
  double factor = scaling.getFactor().convertToDouble();
  if (!(factor > 1.0))
    return 1.0;
  if (isa<llm::RopeYarnAttr>(scaling))
    return kYarnMscaleSlope * std::log(factor) + 1.0;
  // longrope: sqrt(1 + ln(factor) / ln(M)).
  double originalMax = double(
      cast<llm::RopeLongropeAttr>(scaling).getOriginalMaxPositionEmbeddings());
  return std::sqrt(1.0 + std::log(factor) / std::log(originalMax));
}

Value llmc::createLongropeTableOffset(OpBuilder &b, Location loc, Value length,
                                      int64_t rotaryDim,
                                      llm::RopeLongropeAttr scaling) {
  Value longer = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGT, length,
      f64Constant(b, loc,
                  double(scaling.getOriginalMaxPositionEmbeddings())));
  return arith::SelectOp::create(
      b, loc, longer, arith::ConstantIndexOp::create(b, loc, rotaryDim / 2),
      arith::ConstantIndexOp::create(b, loc, 0));
}

Value llmc::createDynamicNtkLogTheta(OpBuilder &b, Location loc, Value length,
                                     double theta, int64_t rotaryDim,
                                     llm::RopeDynamicAttr scaling) {
  double factor = scaling.getFactor().convertToDouble();
  double originalMax = double(scaling.getOriginalMaxPositionEmbeddings());
  // ln θ' = ln θ + d/(d−2) · ln(factor·L/M − (factor − 1)).
  Value growth = arith::SubFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, length,
                            f64Constant(b, loc, factor / originalMax)),
      f64Constant(b, loc, factor - 1.0));
  Value scaledLogTheta = arith::AddFOp::create(
      b, loc, f64Constant(b, loc, std::log(theta)),
      arith::MulFOp::create(b, loc, f64Constant(b, loc, ntkExponent(rotaryDim)),
                            math::LogOp::create(b, loc, growth)));
  Value longer =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, length,
                            f64Constant(b, loc, originalMax));
  return arith::SelectOp::create(b, loc, longer, scaledLogTheta,
                                 f64Constant(b, loc, std::log(theta)));
}

Value llmc::createDynamicInverseFrequency(OpBuilder &b, Location loc,
                                          Value logTheta, Value i,
                                          int64_t rotaryDim) {
  Value exponent = arith::MulFOp::create(
      b, loc, arith::SIToFPOp::create(b, loc, b.getF64Type(), i),
      f64Constant(b, loc, -2.0 / double(rotaryDim)));
  Value invFreq = math::ExpOp::create(
      b, loc, arith::MulFOp::create(b, loc, exponent, logTheta));
  return arith::TruncFOp::create(b, loc, b.getF32Type(), invFreq);
}
