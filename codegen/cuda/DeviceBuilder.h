// Building blocks of kernel bodies: thread ids, warp and block reductions, float conversions.
#ifndef LLMC_CODEGEN_CUDA_DEVICEBUILDER_H
#define LLMC_CODEGEN_CUDA_DEVICEBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace llmc::cuda {

/// Threads per warp on every NVIDIA GPU llmc targets.
constexpr int64_t kWarpSize = 32;

enum class ReduceKind { Sum, Max };

/// Wraps an OpBuilder positioned inside a kernel body.
class DeviceBuilder {
public:
  DeviceBuilder(mlir::OpBuilder &builder, mlir::Location loc)
      : b(builder), loc(loc) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() { return loc; }

  mlir::Value threadId(mlir::gpu::Dimension dim = mlir::gpu::Dimension::x);
  mlir::Value blockId(mlir::gpu::Dimension dim = mlir::gpu::Dimension::x);
  /// threadIdx.x / 32 and threadIdx.x % 32.
  mlir::Value warpId();
  mlir::Value laneId();

  mlir::Value index(int64_t value);
  mlir::Value f32(double value);
  mlir::Value i32(int32_t value);

  /// `value` converted to f32 (extf, or unchanged).
  mlir::Value toF32(mlir::Value value);
  /// An f32 (scalar or vector) converted to `elementType` (truncf).
  mlir::Value fromF32(mlir::Value value, mlir::Type elementType);
  /// An integer (i32/i64) or index value as index.
  mlir::Value toIndex(mlir::Value value);

  /// Butterfly reduction across the 32 lanes of a warp (shfl.sync.bfly);
  /// every lane receives the result.
  mlir::Value warpReduce(mlir::Value value, ReduceKind kind);
  /// Reduction across the block's `numWarps` warps (threads laid out along
  /// x): warp reductions, one partial per warp through `scratch` (a
  /// workgroup memref of at least numWarps f32), then the first warp
  /// reduces the partials. Every thread receives the result. Contains
  /// barriers: call it from uniform control flow only.
  mlir::Value blockReduce(mlir::Value value, ReduceKind kind,
                          mlir::Value scratch, int64_t numWarps);

  /// vector.load / vector.store aligned to the vector's size (at most 16
  /// bytes): the alignment is what turns them into one ld/st.global.v4
  /// instead of scalar accesses. The caller guarantees it (static
  /// innermost extents that are multiples of the vector length).
  mlir::Value loadVector(mlir::VectorType type, mlir::Value buffer,
                         mlir::ValueRange indices);
  void storeVector(mlir::Value vector, mlir::Value buffer,
                   mlir::ValueRange indices);

  mlir::Value combine(mlir::Value a, mlir::Value b, ReduceKind kind);
  /// 1 / sqrt(v) for an f32 scalar, both steps correctly rounded
  /// (sqrt.rn.f32, div.rn.f32) as in the CPU lowering of math.rsqrt (fdiv
  /// 1, llvm.sqrt). math.sqrt would become libdevice's sqrt.approx, which
  /// LLVM then folds into rsqrt.approx.
  mlir::Value inverseSqrt(mlir::Value v);
  void barrier();

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// `buffer` (M, N) with a dynamic M (a cast when M is static), so that one
/// kernel serves every row count (prefill and decode).
mlir::Value withDynamicRows(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value buffer);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_DEVICEBUILDER_H
