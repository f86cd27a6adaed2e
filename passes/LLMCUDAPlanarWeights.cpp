// The llm-cuda-planar-weights pass: block-quantized weights stored as planes of aligned codes and scales, the CUDA kernels' layout.
#include "passes/Passes.h"
#include "passes/WeightLayout.h"

#include "dialect/LLMOps.h"

namespace llmc {
#define GEN_PASS_DEF_LLMCUDAPLANARWEIGHTS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

using llm::BlockQuantType;

/// A weight this pass may store as planes: a static rank-2 tensor of a
/// block format in the file's rows.
bool isCandidateType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != 2 || !tensor.hasStaticShape())
    return false;
  auto block = dyn_cast<BlockQuantType>(tensor.getElementType());
  return block && !block.isInterleaved() && !block.getPlanar();
}

/// Whether `use` reads its value through the CUDA kernels' block decoder:
/// as a projection's weight, or as the table of an embedding gather.
bool isDecodedWeightUse(OpOperand &use) {
  if (auto embedding = dyn_cast<llm::EmbeddingOp>(use.getOwner()))
    return use.get() == embedding.getTable();
  return llmc::isProjectionWeightUse(use);
}

struct LLMCUDAPlanarWeightsPass
    : public llmc::impl::LLMCUDAPlanarWeightsBase<LLMCUDAPlanarWeightsPass> {
  void runOnOperation() override {
    llmc::relayoutWeightArguments(
        getOperation(), isCandidateType, isDecodedWeightUse, [](Type type) {
          auto tensor = cast<RankedTensorType>(type);
          return tensor.clone(
              cast<BlockQuantType>(tensor.getElementType()).withPlanar());
        });
  }
};

} // namespace
