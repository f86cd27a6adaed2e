// The gpu.module that holds a model's CUDA kernels, and the host side of a launch.
#ifndef LLMC_CODEGEN_CUDA_KERNELMODULE_H
#define LLMC_CODEGEN_CUDA_KERNELMODULE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <array>

namespace llmc::cuda {

/// Name of the gpu.module every kernel of a model lives in.
constexpr llvm::StringLiteral kKernelModuleName = "llmc_kernels";

/// Kernels are specialized to the static shapes of the op they implement
/// (hidden size, head count, ...), so their names encode those parameters
/// and two ops with the same parameters share one kernel.
class KernelModule {
public:
  /// Finds or creates `gpu.module @llmc_kernels` at the end of `module` and
  /// marks `module` as a gpu.container_module.
  explicit KernelModule(mlir::ModuleOp module);

  /// The kernel `name` taking `argTypes`; on the first request it is
  /// created and `buildBody` fills its entry block (without the final
  /// gpu.return, which is added after it). `workgroupBuffers` become
  /// workgroup (shared-memory) attributions, available to `buildBody` as
  /// `func.getWorkgroupAttributions()`.
  using BodyBuilder =
      llvm::function_ref<void(mlir::OpBuilder &, mlir::gpu::GPUFuncOp)>;
  mlir::gpu::GPUFuncOp
  getOrCreate(llvm::StringRef name, mlir::TypeRange argTypes,
              BodyBuilder buildBody,
              llvm::ArrayRef<mlir::MemRefType> workgroupBuffers = {});

  mlir::gpu::GPUModuleOp getOp() { return gpuModule; }

private:
  mlir::gpu::GPUModuleOp gpuModule;
};

/// A workgroup (shared memory) buffer type: `shape` of `elementType` in
/// address space #gpu.address_space<workgroup>.
mlir::MemRefType getWorkgroupBufferType(llvm::ArrayRef<int64_t> shape,
                                        mlir::Type elementType);

/// Grid and block of a launch: the grid may depend on run-time sizes (the
/// sequence length), the block is fixed by the kernel's design.
struct LaunchShape {
  std::array<mlir::Value, 3> grid;
  std::array<int64_t, 3> block = {1, 1, 1};
};

/// Emits `gpu.launch_func` of `kernel` at `builder`'s insertion point with
/// the kernel's `args` (device buffers as memrefs, scalars as index / i32 /
/// f32 values; memrefs are cast to the kernel's parameter types with
/// castToParameterTypes). Null grid entries mean 1.
void emitLaunch(mlir::OpBuilder &builder, mlir::Location loc,
                mlir::gpu::GPUFuncOp kernel, const LaunchShape &shape,
                mlir::ValueRange args);

/// A device buffer of `type` for an op's result: memref.alloc, which the
/// host lowering turns into the runtime's scratch allocation (freed by the
/// runtime when the entry point returns, so no dealloc is emitted).
/// `dynamicSizes`: one index value per dynamic extent of `type`.
mlir::Value allocateResult(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::MemRefType type,
                           mlir::ValueRange dynamicSizes);

/// The dynamic extents of the memref `buffer`, in order.
llvm::SmallVector<mlir::Value> getDynamicSizes(mlir::OpBuilder &builder,
                                               mlir::Location loc,
                                               mlir::Value buffer);

/// An index constant.
mlir::Value indexConstant(mlir::OpBuilder &builder, mlir::Location loc,
                          int64_t value);

/// ceil(value / divisor) for an index value and a positive constant.
mlir::Value ceilDiv(mlir::OpBuilder &builder, mlir::Location loc,
                    mlir::Value value, int64_t divisor);

/// A name fragment for a float type: "f32", "bf16", "f16".
std::string getTypeTag(mlir::Type type);

/// A workgroup buffer type like getWorkgroupBufferType, but with the NVVM
/// shared address space as the plain integer 3: convert-vector-to-llvm runs
/// before convert-gpu-to-nvvm maps #gpu.address_space<workgroup>, and only
/// with the integer does it lower vector.load / vector.store on the buffer
/// (ld/st.shared.v4) instead of reporting "conversion of memref memory space
/// ... failed". Accepted as a workgroup attribution and by nvgpu.ldmatrix.
mlir::MemRefType getSharedBufferType(llvm::ArrayRef<int64_t> shape,
                                     mlir::Type elementType);

/// `args` with every memref whose type differs from the kernel's parameter
/// only in static vs dynamic extents memref.cast to the parameter type: a
/// kernel shared by prefill (dynamic T) and decode (T = 1) has dynamic
/// parameters, which gpu.launch_func requires to match exactly.
llvm::SmallVector<mlir::Value>
castToParameterTypes(mlir::OpBuilder &builder, mlir::Location loc,
                     mlir::gpu::GPUFuncOp kernel, mlir::ValueRange args);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_KERNELMODULE_H
