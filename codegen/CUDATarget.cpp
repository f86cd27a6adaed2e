// The kernels of a CUDA model (NVVM phase) → PTX and cubin images embedded in the host module.
#include "codegen/CUDATarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;

llvm::StringRef llmc::getCUDAToolkitPath() {
  const char *path = std::getenv("LLMC_CUDA_TOOLKIT_DIR");
  return path && *path ? path : LLMC_CUDA_TOOLKIT_DIR;
}

namespace {

/// Runs gpu-module-to-binary with `format` on a clone of `module` and
/// collects one image per NVVM target.
llvm::Error serialize(ModuleOp module, llvm::StringRef format,
                      std::vector<llmc::CUDAImage> &images) {
  MLIRContext *context = module.getContext();
  DialectRegistry registry;
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  context->appendDialectRegistry(registry);

  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager pm(context);
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = format.str();
  binary.toolkitPath = llmc::getCUDAToolkitPath();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(*clone)))
    return llvm::createStringError(
        "serializing the kernels to " + format +
        " failed (see the diagnostics above; the toolkit is " +
        llmc::getCUDAToolkitPath() + ")");
  std::string imageFormat = format == "isa" ? "ptx" : "cubin";
  clone->walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      auto target = cast<NVVM::NVVMTargetAttr>(object.getTarget());
      std::string data = object.getObject().getValue().str();
      if (imageFormat == "ptx")
        data.push_back('\0'); // cuModuleLoadData reads PTX as a C string
      images.push_back({target.getChip().str(), imageFormat, std::move(data)});
    }
  });
  return llvm::Error::success();
}

} // namespace

/// The toolkit files serialization needs: libdevice for every kernel that
/// calls a math function (gpu-module-to-binary only warns when it is
/// missing and leaves the calls unresolved in the PTX), and ptxas for
/// cubins.
static llvm::Error checkCUDAToolkit(bool withCubin) {
  llvm::StringRef toolkit = llmc::getCUDAToolkitPath();
  auto missing = [&](llvm::StringRef what) {
    return llvm::createStringError(
        "the CUDA toolkit at " + toolkit + " has no " + what +
        ", which the CUDA target needs; install NVIDIA's CUDA toolkit there "
        "or set LLMC_CUDA_TOOLKIT_DIR to one");
  };
  if (!llvm::sys::fs::is_directory(toolkit))
    return llvm::createStringError(
        "no CUDA toolkit at " + toolkit +
        "; the CUDA target needs one: install NVIDIA's CUDA toolkit there or "
        "set LLMC_CUDA_TOOLKIT_DIR to one");
  llvm::SmallString<256> libdevice(toolkit);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (!llvm::sys::fs::exists(libdevice))
    return missing("nvvm/libdevice/libdevice.10.bc");
  llvm::SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  if (withCubin && !llvm::sys::fs::can_execute(ptxas))
    return missing("bin/ptxas");
  return llvm::Error::success();
}

llvm::Expected<std::vector<llmc::CUDAImage>>
llmc::serializeCUDAKernels(ModuleOp module, bool withCubin) {
  if (llvm::Error err = checkCUDAToolkit(withCubin))
    return std::move(err);
  std::vector<CUDAImage> images;
  if (llvm::Error err = serialize(module, "isa", images))
    return std::move(err);
  if (withCubin)
    if (llvm::Error err = serialize(module, "bin", images))
      return std::move(err);
  return images;
}

std::string llmc::getCUDAImageSymbol(llvm::StringRef prefix,
                                     const CUDAImage &image) {
  return (prefix + "_cuda_image_" + image.arch + "_" + image.format).str();
}

void llmc::embedCUDAImages(ModuleOp module, llvm::StringRef prefix,
                           llvm::ArrayRef<CUDAImage> images) {
  for (auto gpuModule :
       llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
    gpuModule.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  for (const CUDAImage &image : images) {
    auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), image.data.size());
    LLVM::GlobalOp::create(builder, module.getLoc(), type, /*isConstant=*/true,
                           LLVM::Linkage::External,
                           getCUDAImageSymbol(prefix, image),
                           builder.getStringAttr(image.data),
                           /*alignment=*/16);
  }
}
