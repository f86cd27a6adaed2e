// The llm-cpu-interleave-weights pass: projection weights of the 32-element block formats stored in groups of 8 interleaved rows, float ones in groups of 16 (bf16 in pairs of columns).
#include "passes/Passes.h"
#include "passes/WeightLayout.h"

#include "codegen/cpu/VectorProjection.h"
#include "dialect/LLMOps.h"

namespace llmc {
#define GEN_PASS_DEF_LLMCPUINTERLEAVEWEIGHTS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

using llm::BlockQuantType;

/// A weight this pass may interleave: a matrix of the file's block rows in
/// a format of the interleaved GEMV (q4_0, q4_1, q5_0, q5_1, q8_0; the
/// other formats keep their rows) whose row count is a multiple of the
/// group.
bool isCandidateType(Type type) {
  BlockQuantType block = llmc::getBlockRowsFormat(type);
  return block &&
         llmc::hasInterleavedGemv(
             block.withInterleave(BlockQuantType::kInterleavedRows)) &&
         cast<RankedTensorType>(type).getDimSize(0) %
                 BlockQuantType::kInterleavedRows ==
             0;
}

/// A float matrix with a static shape whose row count is a multiple of the
/// float groups: the interleaved float kernels' candidates (a bf16 one with
/// an even row length: its groups hold pairs of columns). Measured on a
/// 2-core Zen 4 (bench/turns.c, 2 threads unless noted, interleaved ÷ rows):
/// prefill (128 tokens) SmolLM2-135M's shape F16 1.17x, TinyLlama-1.1B's
/// 1.18x, LLaMA-3-8B's layers 1.16x, their x86-64-v3 code 1.08x / 0.99x /
/// 1.06x; SmolLM2's F32 1.14x, the 8B layers' 1.25x. Decode (16 tokens after
/// 128): F16 0.98-1.02x on SmolLM2's and TinyLlama's shapes, 1.07x at one
/// thread, the 8B layers' 1.03-1.14x; F32 SmolLM2's 1.02x, the 8B layers'
/// 1.31x (1.36x at one thread). bf16 in pairs, against rows packed into
/// VDPBF16PS pair panels per projection (and one-chain GEMV rows): prefill
/// 1.09x, 1.10x and 1.16x on the three shapes, decode 1.00-1.02x, 1.02x and
/// 1.03x; the x86-64-v3 code (f32 FMAs on widened pairs, 4 × 1 tiles)
/// SmolLM2's 1.05x / 1.05x, TinyLlama's 0.99x / 1.00x.
bool isFloatCandidate(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 2 || !tensor.hasStaticShape() ||
      tensor.getDimSize(0) % llm::InterleavedFloatType::kGroupRows != 0)
    return false;
  Type element = tensor.getElementType();
  return element.isF16() || element.isF32() ||
         (element.isBF16() &&
          tensor.getDimSize(1) %
                  llm::InterleavedFloatType::kBF16PairColumns ==
              0);
}

/// A projection's weight use whose result is f32, the interleaved float
/// kernels' (isVectorProjectionSupported).
bool isFloatGroupsUse(OpOperand &use) {
  return llmc::isProjectionWeightUse(use) &&
         llvm::all_of(use.getOwner()->getResultTypes(), [](Type type) {
           return getElementTypeOrSelf(type).isF32();
         });
}

struct LLMCPUInterleaveWeightsPass
    : public llmc::impl::LLMCPUInterleaveWeightsBase<
          LLMCPUInterleaveWeightsPass> {
  void runOnOperation() override {
    llmc::relayoutWeightArguments(
        getOperation(), isCandidateType, llmc::isProjectionWeightUse,
        [](Type type) {
          auto tensor = cast<RankedTensorType>(type);
          auto block = cast<BlockQuantType>(tensor.getElementType());
          return tensor.clone(
              block.withInterleave(BlockQuantType::kInterleavedRows));
        });
    llmc::relayoutWeightArguments(
        getOperation(), isFloatCandidate, isFloatGroupsUse, [](Type type) {
          auto tensor = cast<RankedTensorType>(type);
          Type element = tensor.getElementType();
          return tensor.clone(llm::InterleavedFloatType::get(
              element, llm::InterleavedFloatType::kGroupRows,
              element.isBF16() ? llm::InterleavedFloatType::kBF16PairColumns
                               : 1));
        });
  }
};

} // namespace
