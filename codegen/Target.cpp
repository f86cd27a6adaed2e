// LLVM-dialect module → optimized native object file for a CPU.
#include "codegen/Target.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Frontend/Driver/CodeGenOptions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

using namespace llmc;

/// Features turned off whatever the CPU has: AMD's SSE4A, whose INSERTQ
/// LLVM picks to put a byte into a vector (the K-quant kernels gather their
/// scales that way) and which Zen cores run as slow microcode. Measured on
/// a 2-core Zen 3 (SmolLM2-135M-shaped Q6_K file, llmc-run decode on one
/// thread): 29.8 tokens/s with SSE4A, 56.1 without. No other format's
/// kernels had an SSE4A instruction.
static constexpr llvm::StringLiteral kDisabledX86Features = "-sse4a";

CPUTargetDescription llmc::describeCPUTarget(const CPUTargetOptions &options) {
  CPUTargetDescription description;
  description.triple = llvm::sys::getDefaultTargetTriple();
  std::string features;
  if (options.cpu != "native") {
    description.cpu = options.cpu;
  } else {
    description.cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
      if (!features.empty())
        features += ",";
      features += (feature.second ? "+" : "-") + feature.first().str();
    }
  }
  // The last mention of a feature wins: these override the host's.
  if (llvm::Triple(description.triple).isX86())
    features += (features.empty() ? "" : ",") + kDisabledX86Features.str();
  description.features = features;
  return description;
}

/// The LLVM target of `description`'s triple.
static llvm::Expected<const llvm::Target *>
lookupTarget(const CPUTargetDescription &description) {
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(description.triple), error);
  if (!target)
    return llvm::createStringError("no LLVM target for '" +
                                   description.triple + "': " + error);
  return target;
}

llvm::Expected<CPUVectorRegisterInfo>
llmc::getCPUVectorRegisters(const CPUTargetOptions &options) {
  llvm::InitializeNativeTarget();
  CPUTargetDescription description = describeCPUTarget(options);
  llvm::Triple triple(description.triple);
  llvm::Expected<const llvm::Target *> target = lookupTarget(description);
  if (!target)
    return target.takeError();
  // LLVM only warns about an unknown CPU name (and then compiles for the
  // baseline); a typo in --cpu is an error here.
  std::unique_ptr<llvm::MCSubtargetInfo> baseline(
      (*target)->createMCSubtargetInfo(triple, "", ""));
  if (!baseline || !baseline->isCPUStringValid(description.cpu))
    return llvm::createStringError("unknown CPU '" + description.cpu +
                                   "' for " + description.triple +
                                   " (llc -mcpu=help lists the names)");
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      (*target)->createMCSubtargetInfo(triple, description.cpu,
                                    description.features));
  auto has = [&](llvm::StringRef feature) {
    return subtarget && subtarget->checkFeatures(("+" + feature).str());
  };
  if (triple.isX86()) {
    Int8DotKind int8Dot =
        (has("avx512vnni") && has("avx512vl")) || has("avxvnni")
            ? Int8DotKind::VNNI
        : has("avx2") ? Int8DotKind::AVX2
                      : Int8DotKind::None;
    if (has("avx512f"))
      return CPUVectorRegisterInfo{512, 32, int8Dot, has("avx512bf16"),
                                   description.cpu == "znver4" ? 256 : 0};
    if (has("avx"))
      return CPUVectorRegisterInfo{256, 16, int8Dot};
    return CPUVectorRegisterInfo{128, 16, int8Dot};
  }
  if (has("neon"))
    return CPUVectorRegisterInfo{128, 32};
  return CPUVectorRegisterInfo{128, 16};
}

namespace {

/// LLVM's default pipeline at `optLevel` (what mlir::makeOptimizingTransformer
/// runs), with the target's vector math library: on GNU/Linux, glibc's
/// libmvec, so that loops calling expf (the softmax's and SiLU's exp)
/// vectorize instead of calling the scalar function once per element.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine,
                    unsigned optLevel) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  const llvm::Triple &triple = module.getTargetTriple();
  std::unique_ptr<llvm::TargetLibraryInfoImpl> library(llvm::driver::createTLII(
      triple, triple.isGNUEnvironment() && triple.isOSLinux()
                  ? llvm::driver::VectorLibrary::LIBMVEC
                  : llvm::driver::VectorLibrary::NoLibrary));
  // Registered first, so the pipeline's own registration does not replace it.
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(*library); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::OptimizationLevel level = levels[std::min(optLevel, 3u)];
  llvm::ModulePassManager pipeline =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  pipeline.run(module, modules);
}

/// True when `module` calls one of libmvec's vector functions (`_ZGV`
/// mangled names).
bool callsVectorMath(const llvm::Module &module) {
  for (const llvm::Function &function : module)
    if (function.isDeclaration() && function.getName().starts_with("_ZGV") &&
        !function.use_empty())
      return true;
  return false;
}

} // namespace

llvm::Expected<CPUObjectFile>
llmc::emitCPUObjectFile(mlir::ModuleOp module, const CPUTargetOptions &options,
                        llvm::StringRef path) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  CPUTargetDescription description = describeCPUTarget(options);
  llvm::Triple triple(description.triple);
  llvm::Expected<const llvm::Target *> target = lookupTarget(description);
  if (!target)
    return target.takeError();
  std::unique_ptr<llvm::TargetMachine> machine((*target)->createTargetMachine(
      triple, description.cpu, description.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for CPU '" +
                                   description.cpu + "'");

  mlir::registerBuiltinDialectTranslation(*module.getContext());
  mlir::registerLLVMDialectTranslation(*module.getContext());
  // Multi-threaded kernels reach this point as `omp` dialect regions.
  mlir::registerOpenMPDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError(
        "cannot translate the module to LLVM IR (is it LLVM dialect only?)");
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  for (llvm::Function &function : *llvmModule) {
    if (function.isDeclaration())
      continue;
    function.addFnAttr("target-cpu", description.cpu);
    if (!description.features.empty())
      function.addFnAttr("target-features", description.features);
  }

  optimizeModule(*llvmModule, *machine, options.optLevel);

  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + path + "': " +
                                   ec.message());
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  codegen.run(*llvmModule);
  out.flush();
  CPUObjectFile object;
  object.callsVectorMath = callsVectorMath(*llvmModule);
  return object;
}
