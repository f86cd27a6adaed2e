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

/// `llm` → fused `llm` ops, the same for every target: residual adds into
/// the projections before them, then gate/up pairs and the other sibling
/// projections, then the norms those read (a norm can only move into a
/// fused projection), then the RoPE of queries and keys into the cache
/// append.
constexpr const char *kFusionPasses =
    "llm-fuse-residual-add,llm-fuse-sibling-linears,"
    "llm-fuse-norm-into-projections,llm-fuse-rope-append";

/// The end of the CPU's fused phase: the weight layout of its kernels
/// (still `llm` types, so that the artifact's manifest, read off this phase,
/// records it). Runs with --no-fusion too.
constexpr const char *kCPULayoutPasses = "llm-cpu-interleave-weights";

/// The end of the CUDA target's fused phase: its kernels' weight layout
/// (likewise recorded by the manifest). Runs with --no-fusion too.
constexpr const char *kCUDALayoutPasses = "llm-cuda-planar-weights";

/// Fused `llm` → CPU kernels (llm-lower-to-linalg first rewrites the fused
/// projections back into their parts, which its linalg fuses instead): lower the ops on tensors (and the element-wise arith
/// ops on tensors, such as the narrowing of keys and values for a bf16/f16
/// cache, to linalg), tile a prefill's row-wise linalg ops over its tokens
/// into scf.forall loops (llm-cpu-parallel-rows), bufferize across function
/// boundaries (identity layouts, so the C ABI sees plain strided buffers),
/// fold loops that carry a buffer through unchanged, drop results that are
/// the caller's own buffers (twice: a caller's result becomes an argument
/// only once its callee's result has been dropped, e.g. the KV cache through
/// the layer calls), free intermediate buffers, add the C entry points,
/// lower linalg to loops. The model functions are private (the graph makes
/// them so), which is what lets drop-equivalent-buffer-results remove the KV
/// cache from their results: it is written in place, never copied.
constexpr const char *kCPUKernelsPasses =
    "llm-lower-to-linalg,convert-elementwise-to-linalg,canonicalize,cse,"
    "llm-cpu-parallel-rows,canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "canonicalize,drop-equivalent-buffer-results,"
    "drop-equivalent-buffer-results,buffer-deallocation-pipeline,"
    "convert-bufferization-to-memref,llm-cpu-entry-points,"
    "convert-linalg-to-loops,canonicalize";

/// Kernels → LLVM dialect. scf.forall loops (attention's heads and query
/// blocks) become scf.parallel, and scf.parallel loops (those and the
/// projection kernels' row blocks) OpenMP parallel regions run by libomp,
/// whose threads each run a partition of the iterations and then take
/// chunks of the others' (llm-parallel-to-openmp). Vector reductions
/// may reassociate (tree sums; a serial chain of 16 adds otherwise). math ops
/// without an LLVM intrinsic (erf) become libm calls. omp ops stay until the
/// LLVM IR translation, which turns them into __kmpc_* calls (link libomp).
/// f32 → bf16 truncations (keys and values stored into a bf16 KV cache) are
/// expanded to integer rounding: x86 without AVX512-BF16 has no instruction
/// for them, and LLVM's libcall (__truncsfbf2) is missing from gcc 12's
/// libgcc.
constexpr const char *kCPULLVMPasses =
    "scf-forall-to-parallel,llm-parallel-to-openmp,"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm,arith-expand{include-bf16=true},"
    "convert-vector-to-llvm{reassociate-fp-reductions},"
    "convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
    "convert-func-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts";

/// `llm` → CUDA kernels: every op becomes a launch of a kernel in
/// gpu.module @llmc_kernels; as on the CPU, the KV cache (updated in place)
/// is dropped from the model functions' results before the C entry points
/// are added (they take device pointers here); then every scratch buffer is
/// freed after its last use, so that the runtime reuses its bytes.
constexpr const char *kCUDAKernelsPasses =
    "llm-lower-to-cuda,canonicalize,cse,"
    "drop-equivalent-buffer-results,drop-equivalent-buffer-results,"
    "llm-cpu-entry-points,canonicalize,llm-cuda-free-scratch";

/// Kernels → NVVM inside the gpu.module (after one nvvm-attach-target per
/// architecture, added in code) and LLVM on the host. Vector ops lower to
/// LLVM before convert-gpu-to-nvvm: 2-d vector slices of MMA fragments
/// otherwise leave unrealized casts. Memref arguments keep full descriptors
/// (the sequence length is a dynamic extent), expanded on both sides the
/// same way.
constexpr const char *kCUDADeviceLLVMPasses =
    "gpu.module(convert-nvgpu-to-nvvm,convert-vector-to-scf,"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "convert-vector-to-llvm,convert-gpu-to-nvvm,convert-nvvm-to-llvm,"
    "canonicalize,cse,reconcile-unrealized-casts),"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "llm-cuda-host-to-llvm,reconcile-unrealized-casts";

constexpr PhaseInfo kPhases[] = {
    {Phase::Config, "config", ""},
    {Phase::LLM, "llm", ""},
    {Phase::Fused, "fused", kFusionPasses},
    {Phase::Kernels, "kernels", kCPUKernelsPasses},
    {Phase::LLVM, "llvm", kCPULLVMPasses},
    {Phase::PTX, "ptx", ""},
};

/// The fused phase of a target: the fusion passes when `options.fusion`,
/// then the target's weight layout pass.
std::string getFusedPasses(const PipelineOptions &options,
                           const char *layoutPasses) {
  return options.fusion ? std::string(kFusionPasses) + "," + layoutPasses
                        : std::string(layoutPasses);
}

/// The CUDA pipeline of a phase (same phase names, other passes).
std::string getCUDAPasses(Phase phase, const PipelineOptions &options) {
  switch (phase) {
  case Phase::Fused:
    return getFusedPasses(options, kCUDALayoutPasses);
  case Phase::Kernels:
    return kCUDAKernelsPasses;
  case Phase::LLVM: {
    std::string passes;
    for (const std::string &arch : options.cudaArchs)
      passes += "nvvm-attach-target{module=llmc_kernels chip=" + arch +
                " features=+ptx80 O=3},";
    return passes + kCUDADeviceLLVMPasses;
  }
  default:
    return "";
  }
}

/// The options of llm-lower-to-linalg that `options` sets, as
/// "{name=value ...}" (empty when none).
std::string getLoweringOptions(const PipelineOptions &options) {
  std::string text;
  auto add = [&](llvm::StringRef name, std::optional<int64_t> value) {
    if (value)
      text += (text.empty() ? "{" : " ") + name.str() + "=" +
              std::to_string(*value);
  };
  add("parallel-min-weight-elements", options.parallelMinWeightElements);
  add("vector-register-bits", options.vectorRegisterBits);
  add("vector-registers", options.vectorRegisters);
  if (options.int8Dot)
    text += (text.empty() ? "{" : " ") + std::string("int8-dot=") +
            *options.int8Dot;
  return text.empty() ? text : text + "}";
}

/// The CPU pipeline of a phase: the table's, the fused phase's as
/// getFusedPasses makes it (with the CPU's layout pass).
std::string getCPUPasses(const PhaseInfo &info,
                         const PipelineOptions &options) {
  if (info.phase != Phase::Fused)
    return info.passes;
  return getFusedPasses(options, kCPULayoutPasses);
}

/// Adds the passes of every phase after `options.startAfter` up to and
/// including `options.stopAfter`. The CPU lowering options `options` sets
/// become those of the kernels phase's first pass (llm-lower-to-linalg).
void addPhases(mlir::OpPassManager &pm, const PipelineOptions &options) {
  for (const PhaseInfo &info : kPhases) {
    if (info.phase <= options.startAfter)
      continue;
    if (info.phase > options.stopAfter)
      break;
    std::string passes = options.target == TargetKind::CUDA
                             ? getCUDAPasses(info.phase, options)
                             : getCPUPasses(info, options);
    if (passes.empty())
      continue;
    llvm::StringRef lowering = "llm-lower-to-linalg";
    if (llvm::StringRef(passes).starts_with(lowering))
      passes.insert(lowering.size(), getLoweringOptions(options));
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
  addPhases(pm, options);
}

/// The CUDA architectures llmc builds kernels for.
constexpr llvm::StringLiteral kCUDAArchs[] = {"sm_80", "sm_90"};

llvm::LogicalResult llmc::parseTarget(llvm::StringRef name,
                                      PipelineOptions &options,
                                      std::string &error) {
  if (name == "cpu") {
    options.target = TargetKind::CPU;
    return llvm::success();
  }
  llvm::StringRef archList = name;
  if (!archList.consume_front("cuda:") || archList.empty()) {
    error = "unknown target '" + name.str() +
            "'; expected cpu or cuda:<arch>[,<arch>] with arch sm_80 or sm_90";
    return llvm::failure();
  }
  options.target = TargetKind::CUDA;
  options.cudaArchs.clear();
  llvm::SmallVector<llvm::StringRef> archs;
  archList.split(archs, ',');
  for (llvm::StringRef arch : archs) {
    if (!llvm::is_contained(kCUDAArchs, arch)) {
      error = "unknown CUDA architecture '" + arch.str() +
              "'; expected sm_80 or sm_90";
      return llvm::failure();
    }
    if (!llvm::is_contained(options.cudaArchs, arch.str()))
      options.cudaArchs.push_back(arch.str());
  }
  return llvm::success();
}

namespace {
/// Options of the llmc-cpu-* pipelines in llmc-opt.
struct CPUPipelineOptions : mlir::PassPipelineOptions<CPUPipelineOptions> {
  Option<int64_t> parallelMinWeightElements{
      *this, "parallel-min-weight-elements",
      llvm::cl::desc("Split a projection across threads only when its weight "
                     "has at least this many elements (default: the pass's)"),
      llvm::cl::init(-1)};
  Option<int64_t> vectorRegisterBits{
      *this, "vector-register-bits",
      llvm::cl::desc("Width in bits of the target's SIMD registers, which "
                     "size the prefill GEMM (default: the pass's, AVX-512)"),
      llvm::cl::init(-1)};
  Option<int64_t> vectorRegisters{
      *this, "vector-registers",
      llvm::cl::desc("Number of the target's SIMD registers (default: the "
                     "pass's, AVX-512)"),
      llvm::cl::init(-1)};
  Option<std::string> int8Dot{
      *this, "int8-dot",
      llvm::cl::desc("Int8 dot products for block-quantized weights in the "
                     "decode GEMV and prefill GEMM: none, avx2, vnni "
                     "(default: the pass's, "
                     "none)")};

  PipelineOptions toPipelineOptions(Phase last) const {
    PipelineOptions options;
    options.stopAfter = last;
    if (parallelMinWeightElements >= 0)
      options.parallelMinWeightElements = parallelMinWeightElements;
    if (vectorRegisterBits >= 0)
      options.vectorRegisterBits = vectorRegisterBits;
    if (vectorRegisters >= 0)
      options.vectorRegisters = vectorRegisters;
    if (!int8Dot.empty())
      options.int8Dot = int8Dot;
    return options;
  }
};
} // namespace

namespace {
/// Options of the llmc-cuda-* pipelines in llmc-opt.
struct CUDAPipelineOptions : mlir::PassPipelineOptions<CUDAPipelineOptions> {
  ListOption<std::string> archs{
      *this, "archs",
      llvm::cl::desc("CUDA architectures (sm_80, sm_90; default sm_90)")};

  PipelineOptions toPipelineOptions(Phase last) const {
    PipelineOptions options;
    options.stopAfter = last;
    options.target = TargetKind::CUDA;
    if (!archs.empty())
      options.cudaArchs.assign(archs.begin(), archs.end());
    return options;
  }
};
} // namespace

void llmc::registerLLMCPipelines() {
  mlir::PassPipelineRegistration<CUDAPipelineOptions>(
      "llmc-cuda-kernels", "llmc's phases from `llm` to CUDA kernels",
      [](mlir::OpPassManager &pm, const CUDAPipelineOptions &options) {
        buildPipeline(pm, options.toPipelineOptions(Phase::Kernels));
      });
  mlir::PassPipelineRegistration<CUDAPipelineOptions>(
      "llmc-cuda-to-llvm",
      "llmc's phases from `llm` to LLVM (host) and NVVM (kernels)",
      [](mlir::OpPassManager &pm, const CUDAPipelineOptions &options) {
        buildPipeline(pm, options.toPipelineOptions(Phase::LLVM));
      });
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
