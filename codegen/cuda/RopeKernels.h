// RoPE building blocks shared by the llm.rope and llm.rope_append kernels.
#ifndef LLMC_CODEGEN_CUDA_ROPEKERNELS_H
#define LLMC_CODEGEN_CUDA_ROPEKERNELS_H

#include "codegen/common/RopeFrequencies.h"
#include "codegen/cuda/DeviceBuilder.h"
#include "codegen/cuda/KernelModule.h"
#include "dialect/LLMAttrs.h"

#include <optional>
#include <string>

namespace llmc::cuda {

/// Threads per block of a rotation kernel: a block covers 128 pairs of one
/// token (a few heads), enough blocks for any sequence length.
constexpr int64_t kRopeBlockSize = 128;

/// The static parameters of one rotation (of the queries or of the keys).
struct RopeSpec {
  mlir::llm::RopeStyle style;
  int64_t heads;
  int64_t headDim;
  int64_t rotaryDim;
  double theta;
  /// The context-extension method; null for plain RoPE.
  mlir::llm::RopeScalingAttrInterface scaling;
  /// The element type of the rotated input.
  mlir::Type elementType;

  int64_t half() const { return rotaryDim / 2; }
  /// Whether the frequencies are chosen per call (dynamic NTK, longrope):
  /// a one-block kernel writes the table the rotation kernels then read.
  bool isDynamic() const {
    return llmc::choosesFrequenciesPerCall(scaling);
  }
  /// Rotated pairs and passed-through elements of one token.
  int64_t numPairs() const { return heads * half(); }
  int64_t numPassThrough() const { return heads * (headDim - rotaryDim); }

  /// What the frequencies depend on: θ, rotary_dim and the scaling with
  /// its parameters (printed exactly), hashed into a short stable tag.
  std::string getFrequencyTag() const;
  /// rope_<style>_h<H>_d<Dh>_r<rot>_<frequency tag>_<type>.
  std::string getName() const;
};

/// The RopeSpec of rotating a (B, T, H, Dh) buffer of type `x`, or none
/// with `reason` set for what the kernels do not take: a dynamic head count
/// or size, f64, NTK scaling of a single rotated pair (its exponent
/// d/(d−2) is infinite).
std::optional<RopeSpec> getRopeSpec(mlir::MemRefType x,
                                    mlir::llm::RopeStyle style, double theta,
                                    int64_t rotaryDim,
                                    mlir::llm::RopeScalingAttrInterface scaling,
                                    std::string &reason);

/// Before the launch of a rotation kernel: for dynamic NTK and longrope, the
/// per-call inverse-frequency table (d/2 f32) computed by a one-block kernel
/// from max(positions) + 1 and returned; null for the static kinds, whose
/// table is baked into the kernel module.
mlir::Value launchDynamicFrequencies(mlir::OpBuilder &builder,
                                     mlir::Location loc, KernelModule &kernels,
                                     const RopeSpec &spec,
                                     mlir::Value positions);

/// Inside a kernel: the inverse-frequency table to read, `dynamicTable`
/// (a kernel argument) for the per-call kinds, else the baked constant global
/// `rope_inv_freq_r<rot>_<tag>` (f32, bit-identical to the CPU's table).
mlir::Value getInverseFrequencies(mlir::OpBuilder &builder, mlir::Location loc,
                                  KernelModule &kernels, const RopeSpec &spec,
                                  mlir::Value dynamicTable);

/// A rotated pair in f32 and the columns of its two members in the token's
/// row (heads · head_dim).
struct RotatedPair {
  mlir::Value value0, value1;
  mlir::Value column0, column1;
};

/// Rotates pair `pair` (head pair / (d/2), index pair % (d/2)) of row
/// `token` of x by positions[token] · inv_freq (see emitRotatePair) and
/// returns it.
RotatedPair rotatePair(DeviceBuilder &d, const RopeSpec &spec, mlir::Value x,
                       mlir::Value positions, mlir::Value invFreq,
                       mlir::Value token, mlir::Value pair);

/// Rotates pair `pair` (head pair / (d/2), index pair % (d/2)) of row
/// `token` of x (tokens × heads·head_dim) by positions[token] · inv_freq
/// and stores both results, converted to `out`'s element type, at row
/// `outRow` of out (rows × heads·head_dim). Angles, cos and sin in f32,
/// scaled by YaRN's attention factor, as the CPU lowering computes them.
void emitRotatePair(DeviceBuilder &d, const RopeSpec &spec, mlir::Value x,
                    mlir::Value positions, mlir::Value invFreq,
                    mlir::Value token, mlir::Value pair, mlir::Value out,
                    mlir::Value outRow);

/// Copies element `item` past rotary_dim (partial rotary; item <
/// numPassThrough()) of row `token` of x to row `outRow` of out, converted
/// to out's element type.
void emitPassThrough(DeviceBuilder &d, const RopeSpec &spec, mlir::Value x,
                     mlir::Value token, mlir::Value item, mlir::Value out,
                     mlir::Value outRow);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_ROPEKERNELS_H
