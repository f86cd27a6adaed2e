// The phases of llmc's compilation pipeline and the passes each one adds.
#include "passes/Pipeline.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llmc;

namespace {
struct PhaseInfo {
  Phase phase;
  const char *name;
  /// Textual pass pipeline from the previous phase to this one.
  const char *passes;
};

/// `llm` → CPU kernels: lower the ops on tensors, bufferize across function
/// boundaries (identity layouts, so the C ABI sees plain strided buffers),
/// fold loops that carry a buffer through unchanged, drop results that are
/// the caller's own buffers (twice: a caller's result becomes an argument
/// only once its callee's result has been dropped, e.g. the KV cache through
/// the layer calls), free intermediate buffers, add the C entry points,
/// lower linalg to loops. The model functions are private (the graph makes
/// them so), which is what lets drop-equivalent-buffer-results remove the KV
/// cache from their results: it is written in place, never copied.
constexpr const char *kCPUKernelsPasses =
    "llm-lower-to-linalg,canonicalize,cse,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "canonicalize,drop-equivalent-buffer-results,"
    "drop-equivalent-buffer-results,buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref,llm-cpu-entry-points,"
    "convert-linalg-to-loops,canonicalize";

/// Kernels → LLVM dialect. scf.parallel loops (the projection kernels' row
/// blocks) become OpenMP worksharing loops run by libomp; the memref
/// lowering must follow at once because that conversion wraps loop bodies in
/// memref.alloca_scope, which later passes do not lower. Vector reductions
/// may reassociate (tree sums; a serial chain of 16 adds otherwise). math ops
/// without an LLVM intrinsic (erf) become libm calls. omp ops stay until the
/// LLVM IR translation, which turns them into __kmpc_* calls (link libomp).
constexpr const char *kCPULLVMPasses =
    "convert-scf-to-openmp,finalize-memref-to-llvm,"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm,"
    "convert-vector-to-llvm{reassociate-fp-reductions},"
    "convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
    "convert-func-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts";

constexpr PhaseInfo kPhases[] = {
    {Phase::Config, "config", ""},
    {Phase::LLM, "llm", ""},
    {Phase::Kernels, "kernels", kCPUKernelsPasses},
    {Phase::LLVM, "llvm", kCPULLVMPasses},
};

/// Adds the passes of every phase after `llm` up to and including `last`.
/// `options.parallelMinWeightElements`, when set, becomes the option of the
/// kernels phase's first pass (llm-lower-to-linalg).
void addPhasesUpTo(mlir::OpPassManager &pm, Phase last,
                   const PipelineOptions &options) {
  for (const PhaseInfo &info : kPhases) {
    if (info.phase > last)
      break;
    if (*info.passes == '\0')
      continue;
    std::string passes = info.passes;
    llvm::StringRef lowering = "llm-lower-to-linalg";
    if (options.parallelMinWeightElements &&
        llvm::StringRef(passes).starts_with(lowering))
      passes.insert(lowering.size(),
                    "{parallel-min-weight-elements=" +
                        std::to_string(*options.parallelMinWeightElements) +
                        "}");
    if (mlir::failed(mlir::parsePassPipeline(passes, pm)))
      llvm::report_fatal_error(llvm::Twine("llmc: malformed built-in pass "
                                           "pipeline for phase '") +
                               info.name + "'");
  }
}
} // namespace

std::optional<Phase> llmc::parsePhase(llvm::StringRef name) {
  for (const PhaseInfo &info : kPhases)
    if (name == info.name)
      return info.phase;
  return std::nullopt;
}

llvm::StringRef llmc::getPhaseName(Phase phase) {
  for (const PhaseInfo &info : kPhases)
    if (info.phase == phase)
      return info.name;
  llvm_unreachable("unknown phase");
}

std::string llmc::getPhaseNames() {
  std::string names;
  for (const PhaseInfo &info : kPhases) {
    if (!names.empty())
      names += ", ";
    names += info.name;
  }
  return names;
}

void llmc::buildPipeline(mlir::OpPassManager &pm,
                         const PipelineOptions &options) {
  addPhasesUpTo(pm, options.stopAfter, options);
}

namespace {
/// Options of the llmc-cpu-* pipelines in llmc-opt.
struct CPUPipelineOptions : mlir::PassPipelineOptions<CPUPipelineOptions> {
  Option<int64_t> parallelMinWeightElements{
      *this, "parallel-min-weight-elements",
      llvm::cl::desc("Split a projection across threads only when its weight "
                     "has at least this many elements (default: the pass's)"),
      llvm::cl::init(-1)};

  PipelineOptions toPipelineOptions(Phase last) const {
    PipelineOptions options;
    options.stopAfter = last;
    if (parallelMinWeightElements >= 0)
      options.parallelMinWeightElements = parallelMinWeightElements;
    return options;
  }
};
} // namespace

void llmc::registerLLMCPipelines() {
  mlir::PassPipelineRegistration<CPUPipelineOptions>(
      "llmc-cpu-kernels", "llmc's phases from `llm` to CPU kernels",
      [](mlir::OpPassManager &pm, const CPUPipelineOptions &options) {
        buildPipeline(pm, options.toPipelineOptions(Phase::Kernels));
      });
  mlir::PassPipelineRegistration<CPUPipelineOptions>(
      "llmc-cpu-to-llvm", "llmc's phases from `llm` to the LLVM dialect",
      [](mlir::OpPassManager &pm, const CPUPipelineOptions &options) {
        buildPipeline(pm, options.toPipelineOptions(Phase::LLVM));
      });
}
