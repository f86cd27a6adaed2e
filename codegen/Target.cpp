// LLVM-dialect module → optimized native object file for a CPU.
#include "codegen/Target.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <memory>

using namespace llmc;

CPUTargetDescription llmc::describeCPUTarget(const CPUTargetOptions &options) {
  CPUTargetDescription description;
  description.triple = llvm::sys::getDefaultTargetTriple();
  if (options.cpu != "native") {
    description.cpu = options.cpu;
    return description;
  }
  description.cpu = llvm::sys::getHostCPUName().str();
  std::string features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
    if (!features.empty())
      features += ",";
    features += (feature.second ? "+" : "-") + feature.first().str();
  }
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
    if (has("avx512f"))
      return CPUVectorRegisterInfo{512, 32};
    if (has("avx"))
      return CPUVectorRegisterInfo{256, 16};
    return CPUVectorRegisterInfo{128, 16};
  }
  if (has("neon"))
    return CPUVectorRegisterInfo{128, 32};
  return CPUVectorRegisterInfo{128, 16};
}

llvm::Error llmc::emitCPUObjectFile(mlir::ModuleOp module,
                                    const CPUTargetOptions &options,
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

  auto optimize = mlir::makeOptimizingTransformer(options.optLevel,
                                                  /*sizeLevel=*/0,
                                                  machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return err;

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
  return llvm::Error::success();
}
