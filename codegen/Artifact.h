// Writes a compiled model as a linkable artifact: object, libraries, header, manifest.
#ifndef LLMC_CODEGEN_ARTIFACT_H
#define LLMC_CODEGEN_ARTIFACT_H

#include "codegen/ModelInterface.h"
#include "codegen/Target.h"
#include "frontend/ModelConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace llmc {

/// Version of the entry-point ABI and manifest layout; the runtime refuses
/// artifacts of another version. 2: the prefill takes logit_rows and writes
/// the logits of the last logit_rows tokens only (1: every token's).
constexpr int kArtifactABIVersion = 2;

/// Writes into `outputDir` (created if needed), for model prefix P:
///   P.o        the compiled decoder (PIC object)
///   libP.a     the same as a static library
///   libP.so    a shared object for runtimes that dlopen it (linked with `cc`)
///   P.h        the C declarations of P_prefill / P_decode and sizes
///   P.json     the manifest: ABI version, target, config, KV-cache shape,
///              entry points and the weight table (name, shape, dtype) in
///              argument order
/// The header and manifest describe `interface`, read off the module at the
/// end of the fused phase (getModelInterface); `config` adds the model's
/// description.
/// `module` must be in the LLVM dialect (phase `llvm`).
llvm::Error writeCPUArtifact(mlir::ModuleOp module, const ModelConfig &config,
                             const ModelInterface &interface,
                             const CPUTargetOptions &targetOptions,
                             llvm::StringRef outputDir);

/// Version of the host API table a CUDA artifact calls
/// (LLMC_CUDA_HOST_API_VERSION in runtime/include/llmc/cuda_host_api.h).
constexpr int kCUDAHostAPIVersion = 2;

/// The CUDA artifact: the same files, where P.o holds the host code (entry
/// points that launch kernels through the runtime's host API table) and, as
/// exported constants, the PTX and cubin of the kernels for every
/// architecture in `archs`; the manifest lists the images and the host API
/// symbol. `module` must be in the `llvm` phase of the CUDA pipeline.
llvm::Error writeCUDAArtifact(mlir::ModuleOp module, const ModelConfig &config,
                              const ModelInterface &interface,
                              llvm::ArrayRef<std::string> archs,
                              llvm::StringRef outputDir);

} // namespace llmc

#endif // LLMC_CODEGEN_ARTIFACT_H
