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

/// A weight this pass may store as planes: a matrix of the file's block
/// rows, in any format.
bool isCandidateType(Type type) {
  return static_cast<bool>(llmc::getBlockRowsFormat(type));
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
