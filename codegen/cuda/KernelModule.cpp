// The gpu.module that holds a model's CUDA kernels, and the host side of a launch.
#include "codegen/cuda/KernelModule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace llmc::cuda {

KernelModule::KernelModule(ModuleOp module) {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
  if (gpuModule)
    return;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  gpuModule =
      gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName);
}

gpu::GPUFuncOp KernelModule::getOrCreate(StringRef name, TypeRange argTypes,
                                         BodyBuilder buildBody,
                                         ArrayRef<MemRefType> workgroupBuffers) {
  if (auto existing = gpuModule.lookupSymbol<gpu::GPUFuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(gpuModule.getBody());
  MLIRContext *context = builder.getContext();
  SmallVector<Type> workgroupTypes(workgroupBuffers.begin(),
                                   workgroupBuffers.end());
  auto func = gpu::GPUFuncOp::create(
      builder, gpuModule.getLoc(), name,
      builder.getFunctionType(argTypes, {}), workgroupTypes);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(context));
  // Shared buffers are read as 128-bit vectors.
  for (unsigned i = 0, e = workgroupBuffers.size(); i < e; ++i)
    func.setWorkgroupAttributionAttr(i, "llvm.align",
                                     builder.getI64IntegerAttr(128));
  Block &entry = func.getBody().front();
  builder.setInsertionPointToStart(&entry);
  buildBody(builder, func);
  builder.setInsertionPointToEnd(&func.getBody().back());
  gpu::ReturnOp::create(builder, func.getLoc());
  return func;
}

MemRefType getWorkgroupBufferType(ArrayRef<int64_t> shape, Type elementType) {
  auto space = gpu::AddressSpaceAttr::get(elementType.getContext(),
                                          gpu::AddressSpace::Workgroup);
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(), space);
}

void emitLaunch(OpBuilder &builder, Location loc, gpu::GPUFuncOp kernel,
                const LaunchShape &shape, ValueRange args) {
  auto orOne = [&](Value v) { return v ? v : indexConstant(builder, loc, 1); };
  gpu::KernelDim3 grid{orOne(shape.grid[0]), orOne(shape.grid[1]),
                       orOne(shape.grid[2])};
  gpu::KernelDim3 block{indexConstant(builder, loc, shape.block[0]),
                        indexConstant(builder, loc, shape.block[1]),
                        indexConstant(builder, loc, shape.block[2])};
  // Kernels take dynamic extents where ops of several shapes share them
  // (decode's static T = 1 buffers meet prefill's kernels).
  gpu::LaunchFuncOp::create(builder, loc, kernel, grid, block,
                            /*dynamicSharedMemorySize=*/Value(),
                            castToParameterTypes(builder, loc, kernel, args));
}

Value allocateResult(OpBuilder &builder, Location loc, MemRefType type,
                     ValueRange dynamicSizes) {
  return memref::AllocOp::create(builder, loc, type, dynamicSizes);
}

SmallVector<Value> getDynamicSizes(OpBuilder &builder, Location loc,
                                   Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(builder.createOrFold<memref::DimOp>(loc, buffer, dim));
  return sizes;
}

Value indexConstant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

Value ceilDiv(OpBuilder &builder, Location loc, Value value, int64_t divisor) {
  // (value + divisor - 1) / divisor: arith.ceildivui has no direct LLVM
  // lowering (it needs arith-expand).
  Value rounded = arith::AddIOp::create(
      builder, loc, value, indexConstant(builder, loc, divisor - 1));
  return arith::DivUIOp::create(builder, loc, rounded,
                                indexConstant(builder, loc, divisor));
}

std::string getTypeTag(Type type) {
  std::string tag;
  llvm::raw_string_ostream os(tag);
  type.print(os);
  return tag;
}

MemRefType getSharedBufferType(ArrayRef<int64_t> shape, Type elementType) {
  constexpr int64_t kNVVMSharedAddressSpace = 3;
  auto space = IntegerAttr::get(IntegerType::get(elementType.getContext(), 64),
                                kNVVMSharedAddressSpace);
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         space);
}

SmallVector<Value> castToParameterTypes(OpBuilder &builder, Location loc,
                                        gpu::GPUFuncOp kernel,
                                        ValueRange args) {
  SmallVector<Value> cast;
  for (auto [arg, type] : llvm::zip(args, kernel.getArgumentTypes())) {
    if (arg.getType() != type && isa<MemRefType>(type) &&
        memref::CastOp::areCastCompatible(arg.getType(), type))
      cast.push_back(memref::CastOp::create(builder, loc, type, arg));
    else
      cast.push_back(arg);
  }
  return cast;
}

} // namespace llmc::cuda
