// The phases of llmc's compilation pipeline, shared by every tool and test.
#ifndef LLMC_PASSES_PIPELINE_H
#define LLMC_PASSES_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llmc {

/// Where `llmc --compile-to=<phase>` stops and prints. Phases run in this
/// order; each later phase is added here by the work that implements it.
enum class Phase {
  /// The parsed, validated ModelConfig.
  Config,
  /// The model graph in the `llm` dialect (prefill + decode).
  LLM,
  /// The graph after the target-independent fusion passes: residual adds,
  /// sibling projections and norms merged into fused `llm` ops; on the CPU
  /// also the weight layout of its kernels (interleaved q4_0 rows), which
  /// the artifact's manifest is read from.
  Fused,
  /// Kernels: CPU loops over memrefs (linalg lowered, bufferized), or CUDA
  /// gpu.func kernels plus host functions that launch them.
  Kernels,
  /// The LLVM dialect, ready for translation to LLVM IR (CUDA: the host in
  /// LLVM, the gpu.module in NVVM).
  LLVM,
  /// CUDA only: the PTX of the kernels, one text per architecture. Not a
  /// pass pipeline: serialized from the `llvm` phase (see CUDATarget.h).
  PTX,
};

/// What the kernels are generated for.
enum class TargetKind { CPU, CUDA };

/// Parses a phase name as spelled on the command line.
std::optional<Phase> parsePhase(llvm::StringRef name);
llvm::StringRef getPhaseName(Phase phase);
/// Comma-separated list of every phase name, for help and error messages.
std::string getPhaseNames();

struct PipelineOptions {
  /// The phase the module is in: the passes of the phases after it run.
  Phase startAfter = Phase::LLM;
  /// Last phase to run.
  Phase stopAfter = Phase::LLM;
  TargetKind target = TargetKind::CPU;
  /// Whether the fused phase runs its fusion passes (false: it passes the `llm`
  /// module on unchanged, for comparisons).
  bool fusion = true;
  /// CUDA: the architectures kernels are built for (sm_80, sm_90), one
  /// NVVM target each.
  std::vector<std::string> cudaArchs = {"sm_90"};
  /// Threading threshold of the projection kernels (llm-lower-to-linalg's
  /// parallel-min-weight-elements); unset keeps the pass's default.
  std::optional<int64_t> parallelMinWeightElements;
  /// SIMD registers of the target CPU, which size the prefill GEMM's tile
  /// (llm-lower-to-linalg's vector-register-bits and vector-registers);
  /// unset keeps the pass's defaults (AVX-512). llmc sets them from --cpu
  /// (`llmc compile`: the host CPU unless --cpu names another).
  std::optional<int64_t> vectorRegisterBits;
  std::optional<int64_t> vectorRegisters;
  /// The vector width of the float prefill GEMM's tile where the CPU
  /// measured a narrower tile faster than its registers' (llm-lower-to-linalg's
  /// float-gemm-vector-bits; llmc sets 256 for AMD Zen 4); unset: the registers'.
  std::optional<int64_t> floatGemmVectorBits;
  /// The int8 dot-product instructions the decode GEMV and the prefill GEMM
  /// of block-quantized weights use (llm-lower-to-linalg's int8-dot: none, avx2, vnni); unset
  /// keeps the pass's default (none). llmc sets its --cpu's unless
  /// --block-dot=f32.
  std::optional<std::string> int8Dot;
  /// Whether the prefill GEMM multiplies bf16 weights with x rounded to
  /// bf16 in VDPBF16PS (llm-lower-to-linalg's bf16-dot); unset keeps the
  /// pass's default (off). llmc sets it where --cpu has AVX-512 BF16,
  /// unless --bf16-dot=f32.
  std::optional<bool> bf16Dot;
};

/// Adds the passes that take a module from the `llm` phase to
/// `options.stopAfter` (nothing for `config` and `llm`; for `ptx`, those up
/// to `llvm`).
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Parses a `--target` value: "cpu", or "cuda:" followed by a
/// comma-separated list of sm_80 / sm_90. Fails with a message.
llvm::LogicalResult parseTarget(llvm::StringRef name, PipelineOptions &options,
                                std::string &error);

/// Registers the phases as llmc-opt pipelines: `llmc-cpu-kernels` (llm →
/// kernels), `llmc-cpu-to-llvm` (llm → llvm), `llmc-cuda-kernels` and
/// `llmc-cuda-to-llvm{archs=sm_80,sm_90}`, so that lit tests run exactly
/// what `llmc` runs.
void registerLLMCPipelines();

} // namespace llmc

#endif // LLMC_PASSES_PIPELINE_H
