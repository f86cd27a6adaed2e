// The llm-cpu-interleave-weights pass: projection weights of the 32-element block formats stored in groups of 8 interleaved rows.
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

/// A weight this pass may interleave: a rank-2 tensor of plain rows in a format
/// of the interleaved GEMV (q4_0, q4_1, q5_0, q5_1, q8_0) whose row count is a
/// multiple of the group.
bool isCandidateType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 2)
    return false;
  auto block = dyn_cast<BlockQuantType>(tensor.getElementType());
  // Only the formats whose interleaved rows a CPU kernel computes on (the
  // interleaved int8 GEMV); the others keep their rows.
  return block && !block.isInterleaved() && !block.getPlanar() &&
         llmc::hasInterleavedGemv(
             block.withInterleave(BlockQuantType::kInterleavedRows)) &&
         !tensor.isDynamicDim(0) &&
         tensor.getDimSize(0) % BlockQuantType::kInterleavedRows == 0;
}

struct LLMCPUInterleaveWeightsPass
    : public llmc::impl::LLMCPUInterleaveWeightsBase<
          LLMCPUInterleaveWeightsPass> {
  void runOnOperation() override {
    llmc::relayoutWeightArguments(
        getOperation(), isCandidateType, llmc::isProjectionWeightUse, [](Type type) {
          auto tensor = cast<RankedTensorType>(type);
          auto block = cast<BlockQuantType>(tensor.getElementType());
          return tensor.clone(
              block.withInterleave(BlockQuantType::kInterleavedRows));
        });
  }
};

} // namespace
