// The kernels of a CUDA model (NVVM phase) → PTX and cubin images embedded in the host module.
#ifndef LLMC_CODEGEN_CUDATARGET_H
#define LLMC_CODEGEN_CUDATARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmc {

/// One compiled form of the kernels for one architecture.
struct CUDAImage {
  std::string arch;   // "sm_90"
  std::string format; // "ptx" (NUL-terminated text) or "cubin"
  std::string data;
};

/// The CUDA toolkit that builds the kernels (ptxas for cubins, libdevice
/// for math functions): $LLMC_CUDA_TOOLKIT_DIR when set, else the one llmc
/// was configured with (CMake's LLMC_CUDA_TOOLKIT_DIR, /usr/local/cuda).
llvm::StringRef getCUDAToolkitPath();

/// Serializes the gpu.module of `module` (phase `llvm`, one NVVM target per
/// architecture) with gpu-module-to-binary: the PTX of every architecture,
/// and its cubin (assembled by the toolkit's ptxas) when `withCubin`.
/// `module` is not modified. Fails with one message naming the toolkit
/// when it lacks libdevice (or ptxas, for cubins).
llvm::Expected<std::vector<CUDAImage>> serializeCUDAKernels(mlir::ModuleOp module,
                                                            bool withCubin);

/// The exported symbol an image is stored under in the host object.
std::string getCUDAImageSymbol(llvm::StringRef prefix, const CUDAImage &image);

/// Replaces the gpu.module of `module` by exported constant globals that
/// hold `images` (see getCUDAImageSymbol), so that the module is plain LLVM
/// dialect and translates to one host object.
void embedCUDAImages(mlir::ModuleOp module, llvm::StringRef prefix,
                     llvm::ArrayRef<CUDAImage> images);

} // namespace llmc

#endif // LLMC_CODEGEN_CUDATARGET_H
