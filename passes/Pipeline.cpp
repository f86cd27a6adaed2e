// The phases of llmc's compilation pipeline and the passes each one adds.
#include "passes/Pipeline.h"

#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llmc;

namespace {
struct PhaseInfo {
  Phase phase;
  const char *name;
};

/// Scratch buffers of at most this size that no function returns live on
/// the stack (memref.alloca) instead of the heap: a SmolLM2-sized decode
/// step otherwise calls malloc and free about 5000 times (the attention's
/// per-block scratch, the layers' vectors), about 1% of its samples.
/// llm-cpu-hoist-allocas then gives each thread one of each.
constexpr unsigned kMaxStackScratchBytes = 16 * 1024;

constexpr PhaseInfo kPhases[] = {
    {Phase::Config, "config"}, {Phase::LLM, "llm"},
    {Phase::Fused, "fused"},   {Phase::Kernels, "kernels"},
    {Phase::LLVM, "llvm"},     {Phase::PTX, "ptx"},
};

/// `llm` → fused `llm` ops, the same for every target: residual adds into
/// the projections before them, then gate/up pairs and the other sibling
/// projections, then the norms those read (a norm can only move into a
/// fused projection), then the RoPE of queries and keys into the cache
/// append. Without `options.fusion` the module passes on unchanged (for
/// comparisons). Then the target's weight layout, which runs either way:
/// the CPU's kernels take projections in the 32-element formats
/// interleaved (llm-cpu-interleave-weights), the CUDA kernels every block
/// weight in planes (llm-cuda-planar-weights). These are still `llm` types,
/// so that the artifact's manifest, read off this phase, records them.
void addFusedPhase(mlir::OpPassManager &pm, const PipelineOptions &options) {
  if (options.fusion) {
    pm.addPass(createLLMFuseResidualAdd());
    pm.addPass(createLLMFuseSiblingLinears());
    pm.addPass(createLLMFuseNormIntoProjections());
    pm.addPass(createLLMFuseRopeAppend());
  }
  pm.addPass(options.target == TargetKind::CUDA
                 ? createLLMCUDAPlanarWeights()
                 : createLLMCPUInterleaveWeights());
}

/// llm-lower-to-linalg's options: the pass's defaults, overridden by those
/// `options` sets.
LLMLowerToLinalgOptions getLoweringOptions(const PipelineOptions &options) {
  LLMLowerToLinalgOptions lowering;
  if (options.parallelMinWeightElements)
    lowering.parallelMinWeightElements = *options.parallelMinWeightElements;
  if (options.vectorRegisterBits)
    lowering.vectorRegisterBits = *options.vectorRegisterBits;
  if (options.vectorRegisters)
    lowering.vectorRegisters = *options.vectorRegisters;
  if (options.floatGemmVectorBits)
    lowering.floatGemmVectorBits = *options.floatGemmVectorBits;
  if (options.int8Dot)
    lowering.int8Dot = *options.int8Dot;
  if (options.bf16Dot)
    lowering.bf16Dot = *options.bf16Dot;
  return lowering;
}

/// Drops the model functions' results that are buffers their caller
/// passed in, twice: a caller's result becomes one of its arguments only
/// once its callee's result has been dropped (the KV cache through the
/// layer calls). The model functions are private (the graph makes them
/// so), which is what lets drop-equivalent-buffer-results remove the KV
/// cache from their results: it is written in place, never copied.
void addDropCallerBuffers(mlir::OpPassManager &pm) {
  pm.addPass(mlir::bufferization::createDropEquivalentBufferResultsPass());
  pm.addPass(mlir::bufferization::createDropEquivalentBufferResultsPass());
}

/// Fused `llm` → CPU kernels (llm-lower-to-linalg first rewrites the fused
/// projections back into their parts, which its linalg fuses instead):
/// lower the ops on tensors (and the element-wise arith ops on tensors,
/// such as the rounding of keys and values that llm.kv_append's lowering
/// makes for a bf16/f16 cache, to linalg), tile a prefill's row-wise linalg
/// ops over its tokens into scf.forall loops (llm-cpu-parallel-rows),
/// bufferize across function boundaries (identity layouts, so the C ABI
/// sees plain strided buffers), fold loops that carry a buffer through
/// unchanged, drop results that are the caller's own buffers
/// (addDropCallerBuffers), put the small scratch buffers on the stack
/// (kMaxStackScratchBytes), free the other intermediate buffers, add the C
/// entry points, lower linalg to loops.
void addCPUKernelsPhase(mlir::OpPassManager &pm,
                        const PipelineOptions &options) {
  pm.addPass(createLLMLowerToLinalg(getLoweringOptions(options)));
  pm.addPass(mlir::createConvertElementwiseToLinalgPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createLLMCPUParallelRows());
  pm.addPass(mlir::createCanonicalizerPass());
  mlir::bufferization::OneShotBufferizePassOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.functionBoundaryTypeConversion =
      mlir::bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(mlir::bufferization::createOneShotBufferizePass(bufferization));
  pm.addPass(mlir::createCanonicalizerPass());
  addDropCallerBuffers(pm);
  mlir::bufferization::PromoteBuffersToStackPassOptions stack;
  stack.maxAllocSizeInBytes = kMaxStackScratchBytes;
  pm.addNestedPass<mlir::func::FuncOp>(
      mlir::bufferization::createPromoteBuffersToStackPass(stack));
  mlir::bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(mlir::createConvertBufferizationToMemRefPass());
  pm.addPass(createLLMCPUEntryPoints());
  pm.addPass(mlir::createConvertLinalgToLoopsPass());
  pm.addPass(mlir::createCanonicalizerPass());
}

/// Structured loops to branches (scf → cf), memref views' strided
/// metadata to plain index arithmetic, affine maps to arith: what every
/// lowering to LLVM or NVVM runs before the dialect conversions.
void addFlatteningPasses(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createSCFToControlFlowPass());
  pm.addPass(mlir::memref::createExpandStridedMetadataPass());
  pm.addPass(mlir::createLowerAffinePass());
}

/// Kernels → LLVM dialect. scf.forall loops (attention's heads and query
/// blocks) become scf.parallel, and scf.parallel loops (those and the
/// projection kernels' row blocks) OpenMP parallel regions run by libomp,
/// whose threads each run a partition of the iterations and then take
/// chunks of the others' (llm-parallel-to-openmp); the stack scratch of a
/// loop iteration then moves to the entry of its thread's region or
/// function (llm-cpu-hoist-allocas). Vector reductions may
/// reassociate (tree sums; a serial chain of 16 adds otherwise). math ops
/// without an LLVM intrinsic (erf) become libm calls. omp ops stay until
/// the LLVM IR translation, which turns them into __kmpc_* calls (link
/// libomp). f32 → bf16 truncations (keys and values stored into a bf16 KV
/// cache) are expanded to integer rounding: x86 without AVX512-BF16 has no
/// instruction for them, and LLVM's libcall (__truncsfbf2) is missing from
/// gcc 12's libgcc.
void addCPULLVMPhase(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createForallToParallelLoopPass());
  pm.addPass(createLLMParallelToOpenMP());
  pm.addPass(createLLMCPUHoistAllocas());
  addFlatteningPasses(pm);
  pm.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  mlir::arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(mlir::arith::createArithExpandOpsPass(expand));
  mlir::ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(mlir::createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(mlir::createConvertMathToLLVMPass());
  pm.addPass(mlir::createConvertMathToLibmPass());
  pm.addPass(mlir::createArithToLLVMConversionPass());
  pm.addPass(mlir::createConvertIndexToLLVMPass());
  pm.addPass(mlir::createConvertControlFlowToLLVMPass());
  pm.addPass(mlir::createConvertFuncToLLVMPass());
  pm.addPass(mlir::createConvertOpenMPToLLVMPass());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
}

/// `llm` → CUDA kernels: every op becomes a launch of a kernel in
/// gpu.module @llmc_kernels; as on the CPU, the KV cache (updated in place)
/// is dropped from the model functions' results before the C entry points
/// are added (they take device pointers here); then every scratch buffer is
/// freed after its last use, so that the runtime reuses its bytes.
void addCUDAKernelsPhase(mlir::OpPassManager &pm) {
  pm.addPass(createLLMLowerToCUDA());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  addDropCallerBuffers(pm);
  pm.addPass(createLLMCPUEntryPoints());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(createLLMCUDAFreeScratch());
}

/// Kernels → NVVM inside the gpu.module (one NVVM target per architecture
/// of `options`) and LLVM on the host. Vector ops lower to LLVM before
/// convert-gpu-to-nvvm: 2-d vector slices of MMA fragments otherwise leave
/// unrealized casts. Memref arguments keep full descriptors (the sequence
/// length is a dynamic extent), expanded on both sides the same way.
void addCUDALLVMPhase(mlir::OpPassManager &pm, const PipelineOptions &options) {
  for (const std::string &arch : options.cudaArchs) {
    mlir::GpuNVVMAttachTargetOptions target;
    target.moduleMatcher = "llmc_kernels";
    target.chip = arch;
    target.features = "+ptx80";
    target.optLevel = 3;
    pm.addPass(mlir::createGpuNVVMAttachTarget(target));
  }
  mlir::OpPassManager &device = pm.nest<mlir::gpu::GPUModuleOp>();
  device.addPass(mlir::createConvertNVGPUToNVVMPass());
  device.addPass(mlir::createConvertVectorToSCFPass());
  addFlatteningPasses(device);
  device.addPass(mlir::createConvertVectorToLLVMPass());
  device.addPass(mlir::createConvertGpuOpsToNVVMOps());
  device.addPass(mlir::createConvertNVVMToLLVMPass());
  device.addPass(mlir::createCanonicalizerPass());
  device.addPass(mlir::createCSEPass());
  device.addPass(mlir::createReconcileUnrealizedCastsPass());
  addFlatteningPasses(pm);
  pm.addPass(createLLMCUDAHostToLLVM());
  pm.addPass(mlir::createReconcileUnrealizedCastsPass());
}

/// Adds the passes that take a module from the phase before `phase` to
/// `phase` (none for `config`, `llm` and `ptx`, which is serialized from
/// the `llvm` phase).
void addPhase(mlir::OpPassManager &pm, Phase phase,
              const PipelineOptions &options) {
  bool cuda = options.target == TargetKind::CUDA;
  switch (phase) {
  case Phase::Fused:
    addFusedPhase(pm, options);
    return;
  case Phase::Kernels:
    cuda ? addCUDAKernelsPhase(pm) : addCPUKernelsPhase(pm, options);
    return;
  case Phase::LLVM:
    cuda ? addCUDALLVMPhase(pm, options) : addCPULLVMPhase(pm);
    return;
  case Phase::Config:
  case Phase::LLM:
  case Phase::PTX:
    return;
  }
  llvm_unreachable("unknown phase");
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
  for (const PhaseInfo &info : kPhases)
    if (info.phase > options.startAfter && info.phase <= options.stopAfter)
      addPhase(pm, info.phase, options);
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
  Option<int64_t> floatGemmVectorBits{
      *this, "float-gemm-vector-bits",
      llvm::cl::desc("Vector width of the float prefill GEMM's tile where "
                     "the target measured a narrower tile faster (default: "
                     "the registers')"),
      llvm::cl::init(-1)};
  Option<std::string> int8Dot{
      *this, "int8-dot",
      llvm::cl::desc("Int8 dot products for block-quantized weights in the "
                     "decode GEMV and prefill GEMM: none, avx2, vnni "
                     "(default: the pass's, "
                     "none)")};
  Option<bool> bf16Dot{
      *this, "bf16-dot",
      llvm::cl::desc("VDPBF16PS for bf16 weights in the prefill GEMM, x "
                     "rounded to bf16 (default: the pass's, off)"),
      llvm::cl::init(false)};

  PipelineOptions toPipelineOptions(Phase last) const {
    PipelineOptions options;
    options.stopAfter = last;
    if (parallelMinWeightElements >= 0)
      options.parallelMinWeightElements = parallelMinWeightElements;
    if (vectorRegisterBits >= 0)
      options.vectorRegisterBits = vectorRegisterBits;
    if (vectorRegisters >= 0)
      options.vectorRegisters = vectorRegisters;
    if (floatGemmVectorBits >= 0)
      options.floatGemmVectorBits = floatGemmVectorBits;
    if (!int8Dot.empty())
      options.int8Dot = int8Dot;
    if (bf16Dot)
      options.bf16Dot = true;
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
