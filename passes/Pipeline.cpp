// The phases of llmc's compilation pipeline and the passes each one adds.
#include "passes/Pipeline.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llmc;

namespace {
struct PhaseName {
  Phase phase;
  const char *name;
};
constexpr PhaseName kPhaseNames[] = {{Phase::Config, "config"},
                                     {Phase::LLM, "llm"}};
} // namespace

std::optional<Phase> llmc::parsePhase(llvm::StringRef name) {
  for (const PhaseName &entry : kPhaseNames)
    if (name == entry.name)
      return entry.phase;
  return std::nullopt;
}

llvm::StringRef llmc::getPhaseName(Phase phase) {
  for (const PhaseName &entry : kPhaseNames)
    if (entry.phase == phase)
      return entry.name;
  llvm_unreachable("unknown phase");
}

std::string llmc::getPhaseNames() {
  std::string names;
  for (const PhaseName &entry : kPhaseNames) {
    if (!names.empty())
      names += ", ";
    names += entry.name;
  }
  return names;
}

void llmc::buildPipeline(mlir::OpPassManager &pm,
                         const PipelineOptions &options) {
  // `config` and `llm` are produced by the frontend; no pass runs yet.
  (void)pm;
  (void)options;
}
