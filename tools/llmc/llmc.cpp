// llmc: the ahead-of-time compiler driver (phases, model info, artifacts).
#include "codegen/Artifact.h"
#include "codegen/CUDATarget.h"
#include "dialect/LLMOps.h"
#include "graph/ModelBuilder.h"
#include "frontend/ModelConfig.h"
#include "frontend/ModelStats.h"
#include "frontend/WeightFormats.h"
#include "passes/Passes.h"
#include "passes/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace llvm;
using namespace llmc;

namespace {

cl::SubCommand infoCommand("info", "Print parameter count, KV-cache size, "
                                   "FLOPs per token and weight bytes");
cl::SubCommand compileCommand("compile",
                              "Compile a model into a linkable artifact");

cl::OptionCategory compilerCategory("llmc options");

cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model>"),
                               cl::sub(cl::SubCommand::getTopLevel()),
                               cl::sub(infoCommand), cl::sub(compileCommand),
                               cl::cat(compilerCategory));

cl::opt<std::string>
    compileTo("compile-to",
              cl::desc("Stop after this phase and print its output"),
              cl::value_desc("phase"), cl::init("llm"),
              cl::cat(compilerCategory));

cl::opt<int64_t> batchSize("batch", cl::desc("Sequences decoded together"),
                           cl::init(1), cl::sub(cl::SubCommand::getTopLevel()),
                           cl::sub(compileCommand), cl::cat(compilerCategory));
cl::opt<int64_t>
    contextLength("context",
                  cl::desc("KV-cache capacity in positions (default: the "
                           "model's max_position_embeddings)"),
                  cl::init(0), cl::sub(cl::SubCommand::getTopLevel()),
                  cl::sub(compileCommand), cl::cat(compilerCategory));
cl::opt<std::string>
    weightTypeName("weight-type",
                   cl::desc("Weight format: f32, f16 or bf16 for every weight "
                            "(default: each weight's format in the weights "
                            "file where the target computes it, else the "
                            "model's dtype)"),
                   cl::init(""), cl::sub(cl::SubCommand::getTopLevel()),
                   cl::sub(compileCommand), cl::cat(compilerCategory));
cl::opt<std::string>
    kvTypeName("kv-type",
               cl::desc("KV-cache element type: f32, f16, bf16, int8 or fp8 "
                        "(e4m3; int8 and fp8 with an f32 scale per position "
                        "and KV head) (default: f32 when compiling; the "
                        "model's dtype for 'info')"),
               cl::init(""), cl::sub(cl::SubCommand::getTopLevel()),
               cl::sub(infoCommand), cl::sub(compileCommand),
               cl::cat(compilerCategory));
cl::opt<bool> pagedKVCache(
    "paged-kv-cache",
    cl::desc("Store the KV cache in pages behind a page table"),
    cl::init(false), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(compileCommand), cl::cat(compilerCategory));
cl::opt<int64_t> kvPageSize(
    "kv-page-size",
    cl::desc("Positions per page of a paged KV cache (must divide the "
             "context; default 16)"),
    cl::init(mlir::llm::kDefaultKVPageSize),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(compileCommand),
    cl::cat(compilerCategory));

cl::opt<bool> noFusion(
    "no-fusion",
    cl::desc("Skip the fusion passes (the fused phase then equals the llm "
             "phase): for measuring what fusion gains"),
    cl::init(false), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(compileCommand), cl::cat(compilerCategory));

cl::opt<int64_t> parallelMinWeightElements(
    "parallel-min-weight-elements",
    cl::desc("Split a projection across threads of its own only when its "
             "weight elements times its rows (at least 4 for a prefill) reach "
             "this number (below, only beside a sibling projection that has "
             "them; default 262144; 0: always)"),
    cl::init(-1), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(compileCommand), cl::cat(compilerCategory));

cl::opt<std::string> targetName(
    "target",
    cl::desc("cpu | cuda:sm_80 | cuda:sm_90 | cuda:sm_80,sm_90"),
    cl::sub(cl::SubCommand::getTopLevel()), cl::sub(compileCommand),
    cl::init("cpu"), cl::cat(compilerCategory));
cl::opt<std::string> outputDir("o", cl::desc("Output directory"),
                               cl::value_desc("dir"), cl::sub(compileCommand));
cl::opt<std::string> artifactName(
    "name",
    cl::desc("Artifact name: the prefix of its files and C symbols (default: "
             "the model's file or directory name as a C identifier)"),
    cl::value_desc("identifier"), cl::sub(compileCommand),
    cl::cat(compilerCategory));
cl::opt<std::string> cpuName(
    "cpu",
    cl::desc("CPU to compile for: 'native' (this machine) or an LLVM CPU name "
             "such as x86-64-v3; sizes the prefill GEMM's vectors and tile "
             "for its SIMD registers. Default: native for 'compile'; for "
             "--compile-to, AVX-512's vector shapes (and no object code)"),
    cl::init(""), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(compileCommand), cl::cat(compilerCategory));

cl::opt<std::string> blockDot(
    "block-dot",
    cl::desc("How the CPU's decode GEMV and prefill GEMM multiply "
             "block-quantized weights: "
             "int8 (x rounded to int8 per 32 elements, integer dot products "
             "where --cpu has them: AVX2, AVX-VNNI, AVX-512 VNNI; default) or "
             "f32 (weights decoded to f32 in registers, x exact)"),
    cl::init("int8"), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(compileCommand), cl::cat(compilerCategory));

cl::opt<std::string> bf16Dot(
    "bf16-dot",
    cl::desc("How the CPU's prefill GEMM multiplies bf16 weights: bf16 (x "
             "rounded to bf16, VDPBF16PS where --cpu has AVX-512 BF16; "
             "default) or f32 (x exact, f32 FMAs)"),
    cl::init("bf16"), cl::sub(cl::SubCommand::getTopLevel()),
    cl::sub(compileCommand), cl::cat(compilerCategory));

/// The CPU the command compiles for: --cpu, or for `compile` the host.
std::optional<CPUTargetOptions> getCPUTargetOptions() {
  if (cpuName.empty() && !compileCommand)
    return std::nullopt;
  CPUTargetOptions options;
  options.cpu = cpuName.empty() ? "native" : cpuName.getValue();
  return options;
}

int fail(const Twine &message) {
  WithColor::error(errs(), "llmc") << message << "\n";
  return 1;
}

int fail(Error error) {
  std::string message = toString(std::move(error));
  return fail(message);
}

/// The --kv-type flag, or `fallback` when it is not given.
Expected<KVCacheFormat> getKVType(DType fallback) {
  if (kvTypeName.empty())
    return toKVCacheFormat(fallback);
  if (std::optional<KVCacheFormat> format = parseKVCacheFormat(kvTypeName))
    return *format;
  return createStringError(
      "--kv-type must be f32, f16, bf16, int8 or fp8, got '" + kvTypeName +
      "'");
}

/// Reads the command line's build options; fails with a message naming the
/// bad flag.
Expected<ModelBuildOptions> getBuildOptions() {
  ModelBuildOptions options;
  if (batchSize <= 0)
    return createStringError("--batch must be positive, got " +
                             Twine(batchSize.getValue()));
  options.batch = batchSize;
  if (contextLength < 0)
    return createStringError("--context must be positive, got " +
                             Twine(contextLength.getValue()));
  options.contextLength = contextLength;
  Expected<KVCacheFormat> kvType = getKVType(DType::F32);
  if (!kvType)
    return kvType.takeError();
  options.kvType = *kvType;
  options.pagedKVCache = pagedKVCache;
  if (kvPageSize.getNumOccurrences() && !pagedKVCache)
    return createStringError("--kv-page-size applies only with "
                             "--paged-kv-cache");
  if (kvPageSize <= 0)
    return createStringError("--kv-page-size must be positive, got " +
                             Twine(kvPageSize.getValue()));
  options.kvPageSize = kvPageSize;
  return options;
}

/// Records in `config` what its weights file stores per tensor; a file the
/// runtime could not load is refused here rather than after compiling.
Error readWeightFormatsInto(ModelConfig &config) {
  Expected<WeightFormats> formats = readWeightFormats(modelPath);
  if (!formats)
    return formats.takeError();
  config.weightFormats = std::move(*formats);
  return Error::success();
}

int runInfo(ModelConfig config) {
  if (Error err = readWeightFormatsInto(config))
    return fail(std::move(err));
  Expected<KVCacheFormat> kvType = getKVType(config.dtype);
  if (!kvType)
    return fail(kvType.takeError());
  printModelStats(config, computeModelStats(config, *kvType), outs());
  return 0;
}

/// Every upstream dialect and extension: the lowering phases bufferize and
/// convert through many of them.
mlir::DialectRegistry getRegistry() {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  return registry;
}

/// The pipeline options of the command line (--target and the CPU
/// threading threshold), stopping after `phase`.
Expected<PipelineOptions> getPipelineOptions(Phase phase) {
  PipelineOptions pipelineOptions;
  pipelineOptions.stopAfter = phase;
  std::string error;
  if (failed(parseTarget(targetName, pipelineOptions, error)))
    return createStringError(error);
  pipelineOptions.fusion = !noFusion;
  if (parallelMinWeightElements >= 0)
    pipelineOptions.parallelMinWeightElements = parallelMinWeightElements;
  if (std::optional<CPUTargetOptions> cpu = getCPUTargetOptions();
      cpu && pipelineOptions.target == TargetKind::CPU) {
    // The prefill GEMM is tiled for the registers of the CPU compiled for.
    Expected<CPUVectorRegisterInfo> registers = getCPUVectorRegisters(*cpu);
    if (!registers)
      return createStringError("--cpu: " + toString(registers.takeError()));
    pipelineOptions.vectorRegisterBits = registers->bits;
    pipelineOptions.vectorRegisters = registers->count;
    if (registers->floatGemmBits)
      pipelineOptions.floatGemmVectorBits = registers->floatGemmBits;
    if (blockDot == "int8")
      pipelineOptions.int8Dot = getInt8DotKindName(registers->int8Dot).str();
    if (bf16Dot == "bf16")
      pipelineOptions.bf16Dot = registers->bf16Dot;
  }
  if (blockDot != "int8" && blockDot != "f32")
    return createStringError("--block-dot must be int8 or f32, not '" +
                             blockDot + "'");
  if (bf16Dot != "bf16" && bf16Dot != "f32")
    return createStringError("--bf16-dot must be bf16 or f32, not '" +
                             bf16Dot + "'");
  if (phase == Phase::PTX && pipelineOptions.target != TargetKind::CUDA)
    return createStringError("phase 'ptx' needs a CUDA target: add "
                             "--target=cuda:sm_80 or --target=cuda:sm_90");
  return pipelineOptions;
}

/// Runs the pipeline on `module`; diagnostics go to stderr.
Error runPipeline(mlir::ModuleOp module, const PipelineOptions &options) {
  mlir::PassManager pm(module.getContext());
  buildPipeline(pm, options);
  if (failed(pm.run(module)))
    return createStringError("compilation failed in phase '" +
                             getPhaseName(options.stopAfter) + "'");
  return Error::success();
}

/// The format of every weight: --weight-type, or the weights file's formats
/// (both targets compute on every block format).
Expected<WeightFormatMap> getWeightFormats(const ModelConfig &config) {
  std::optional<WeightFormat> requested;
  if (!weightTypeName.empty()) {
    requested = parseWeightFormat(weightTypeName);
    if (!requested)
      return createStringError("--weight-type must be one of " +
                               getWeightFormatNames() + ", got '" +
                               weightTypeName + "'");
  }
  return chooseWeightFormats(config, requested);
}

/// Builds the `llm` module of `config` and runs the pipeline; with
/// `interface`, reads the compiled model's interface off the fused `llm`
/// module into it on the way (what the artifact's manifest and header
/// describe).
Expected<mlir::OwningOpRef<mlir::ModuleOp>>
compileModule(mlir::MLIRContext &context, const ModelConfig &config,
              ModelBuildOptions options, const PipelineOptions &pipelineOptions,
              ModelInterface *interface = nullptr) {
  if (Error err = checkCompilable(config))
    return std::move(err);
  Expected<WeightFormatMap> formats = getWeightFormats(config);
  if (!formats)
    return formats.takeError();
  options.weightFormats = std::move(*formats);
  int64_t capacity = getKVCacheCapacity(config, options);
  // Positions are int32 in the entry points and the runtime; the KV cache's
  // byte size must be a number the compiled code can compute.
  if (capacity > std::numeric_limits<int32_t>::max())
    return createStringError(
        "a context of " + Twine(capacity) +
        " positions is more than 32-bit positions address (2147483647); set "
        "a smaller --context");
  unsigned __int128 kvBytes = static_cast<unsigned __int128>(2) *
                              config.numLayers * options.batch * capacity *
                              config.numKVHeads *
                              getKVHeadRowBytes(options.kvType, config.headDim);
  if (kvBytes > static_cast<unsigned __int128>(
                    std::numeric_limits<int64_t>::max()))
    return createStringError(
        "the KV cache of a " + Twine(capacity) +
        "-position context does not fit in 2^63 bytes; set a smaller "
        "--context");
  if (options.pagedKVCache && capacity % options.kvPageSize != 0)
    return createStringError(
        "--paged-kv-cache needs a context length that is a multiple of the "
        "page size (" + Twine(options.kvPageSize) + "), got " +
        Twine(capacity) + "; set --context or --kv-page-size");
  context.loadDialect<mlir::llm::LLMDialect, mlir::func::FuncDialect,
                      mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      buildModelModule(context, config, options);
  if (failed(mlir::verify(*module)))
    return createStringError(
        "internal error: the generated `llm` module does not verify");
  if (!interface) {
    if (Error err = runPipeline(*module, pipelineOptions))
      return std::move(err);
    return std::move(module);
  }
  // The interface is read at the end of the fused phase, the last with
  // `llm` types, where the weights have the layout the kernels read.
  PipelineOptions toFused = pipelineOptions;
  toFused.stopAfter = std::min(pipelineOptions.stopAfter, Phase::Fused);
  if (Error err = runPipeline(*module, toFused))
    return std::move(err);
  Expected<ModelInterface> read = getModelInterface(*module);
  if (!read)
    return read.takeError();
  *interface = std::move(*read);
  PipelineOptions rest = pipelineOptions;
  rest.startAfter = toFused.stopAfter;
  if (Error err = runPipeline(*module, rest))
    return std::move(err);
  return std::move(module);
}

/// Prints `module` at the end of `phase`: the IR, or for `ptx` the PTX of
/// every architecture.
int printPhase(mlir::ModuleOp module, Phase phase) {
  if (phase != Phase::PTX) {
    module->print(outs());
    outs() << "\n";
    return 0;
  }
  Expected<std::vector<CUDAImage>> images =
      serializeCUDAKernels(module, /*withCubin=*/false);
  if (!images)
    return fail(images.takeError());
  for (const CUDAImage &image : *images) {
    StringRef text(image.data);
    outs() << "// ---- llmc: PTX for " << image.arch << "\n"
           << text.rtrim(StringRef("\0", 1)) << "\n";
  }
  return 0;
}

/// `llmc --compile-to=<phase> file.mlir`: runs the phases after `llm` on a
/// module already in the `llm` dialect (how lit tests look at one op's
/// kernels).
int runCompileMLIRFile(StringRef path, Phase phase) {
  Expected<PipelineOptions> pipelineOptions = getPipelineOptions(phase);
  if (!pipelineOptions)
    return fail(pipelineOptions.takeError());
  mlir::MLIRContext context(getRegistry());
  context.loadDialect<mlir::llm::LLMDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(path, &context);
  if (!module)
    return fail("cannot parse '" + path + "' as an MLIR module");
  if (Error err = runPipeline(*module, *pipelineOptions))
    return fail(std::move(err));
  return printPhase(*module, phase);
}


int runCompileTo(ModelConfig config) {
  std::optional<Phase> phase = parsePhase(compileTo);
  if (!phase)
    return fail("unknown phase '" + compileTo +
                "' for --compile-to; expected one of: " + getPhaseNames());
  if (*phase == Phase::Config) {
    printModelConfig(config, outs());
    return 0;
  }
  // The phases show the weights in the formats `llmc compile` gives them.
  if (Error err = readWeightFormatsInto(config))
    return fail(std::move(err));
  Expected<ModelBuildOptions> options = getBuildOptions();
  if (!options)
    return fail(options.takeError());
  Expected<PipelineOptions> pipelineOptions = getPipelineOptions(*phase);
  if (!pipelineOptions)
    return fail(pipelineOptions.takeError());
  mlir::MLIRContext context(getRegistry());
  auto module = compileModule(context, config, *options, *pipelineOptions);
  if (!module)
    return fail(module.takeError());
  return printPhase(**module, *phase);
}

int runCompile(ModelConfig config) {
  if (Error err = readWeightFormatsInto(config))
    return fail(std::move(err));
  if (!artifactName.empty()) {
    // Build systems name the files they expect (llmc_add_model), so the
    // name must already be the identifier the files are called by.
    if (getModelSymbolPrefix(artifactName) != artifactName)
      return fail("--name='" + artifactName +
                  "' is not a C identifier (letters, digits and '_', not "
                  "starting with a digit)");
    config.name = artifactName;
  }
  Expected<PipelineOptions> pipelineOptions = getPipelineOptions(Phase::LLVM);
  if (!pipelineOptions)
    return fail(pipelineOptions.takeError());
  if (outputDir.empty())
    return fail("'llmc compile' needs an output directory: -o <dir>");
  Expected<ModelBuildOptions> options = getBuildOptions();
  if (!options)
    return fail(options.takeError());
  mlir::MLIRContext context(getRegistry());
  ModelInterface interface;
  auto module = compileModule(context, config, *options, *pipelineOptions,
                              &interface);
  if (!module)
    return fail(module.takeError());
  Error written = Error::success();
  if (pipelineOptions->target == TargetKind::CUDA) {
    written = writeCUDAArtifact(**module, config, interface,
                                pipelineOptions->cudaArchs, outputDir);
  } else {
    written = writeCPUArtifact(**module, config, interface,
                               *getCPUTargetOptions(), outputDir);
  }
  if (written)
    return fail(std::move(written));
  outs() << "llmc: wrote " << getModelSymbolPrefix(config.name)
         << " artifact for " << targetName << " to " << outputDir << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  registerLLMCPasses();
  cl::HideUnrelatedOptions(compilerCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "llmc: ahead-of-time compiler for LLaMA-family transformers\n\n"
      "  llmc [--compile-to=<phase>] [--target=<t>] <model>   print one phase's output\n"
      "  llmc --compile-to=<phase> [--target=<t>] <file.mlir>  the same from an `llm` module\n"
      "  llmc info <model>                     model statistics\n"
      "  llmc compile <model> --target=<t> -o <dir>\n\n"
      "<model> is a Hugging Face config.json, a directory holding one, or a "
      "GGUF file.\n");

  if (modelPath.empty())
    return fail("no model given; pass a config.json, a model directory or a "
                "GGUF file");
  if (StringRef(modelPath).ends_with(".mlir") && !infoCommand &&
      !compileCommand) {
    std::optional<Phase> phase = parsePhase(compileTo);
    if (!phase || *phase == Phase::Config)
      return fail("--compile-to=" + compileTo +
                  " cannot start from an .mlir file; expected one of the "
                  "phases after 'llm'");
    return runCompileMLIRFile(modelPath, *phase);
  }
  Expected<ModelConfig> config = loadModelConfig(modelPath);
  if (!config)
    return fail(config.takeError());

  if (infoCommand)
    return runInfo(std::move(*config));
  if (compileCommand)
    return runCompile(std::move(*config));
  return runCompileTo(std::move(*config));
}
