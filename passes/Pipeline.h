// The phases of llmc's compilation pipeline, shared by every tool and test.
#ifndef LLMC_PASSES_PIPELINE_H
#define LLMC_PASSES_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llmc {

/// Where `llmc --compile-to=<phase>` stops and prints. Phases run in this
/// order; each later phase is added here by the work that implements it.
enum class Phase {
  /// The parsed, validated ModelConfig.
  Config,
  /// The model graph in the `llm` dialect (prefill + decode).
  LLM,
  /// CPU kernels: loops over memrefs (linalg lowered, bufferized).
  Kernels,
  /// The LLVM dialect, ready for translation to LLVM IR.
  LLVM,
};

/// Parses a phase name as spelled on the command line.
std::optional<Phase> parsePhase(llvm::StringRef name);
llvm::StringRef getPhaseName(Phase phase);
/// Comma-separated list of every phase name, for help and error messages.
std::string getPhaseNames();

struct PipelineOptions {
  /// Last phase to run.
  Phase stopAfter = Phase::LLM;
  /// Threading threshold of the projection kernels (llm-lower-to-linalg's
  /// parallel-min-weight-elements); unset keeps the pass's default.
  std::optional<int64_t> parallelMinWeightElements;
};

/// Adds the passes that take a module from the `llm` phase to
/// `options.stopAfter` (nothing for `config` and `llm`).
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Registers the phases as llmc-opt pipelines: `llmc-cpu-kernels` (llm →
/// kernels) and `llmc-cpu-to-llvm` (llm → llvm), so that lit tests run
/// exactly what `llmc` runs.
void registerLLMCPipelines();

} // namespace llmc

#endif // LLMC_PASSES_PIPELINE_H
