// llm.rope → a kernel over (token, head group) rotating one pair per thread,
// with a baked or run-time inv_freq table.
#include "codegen/cuda/RopeKernels.h"
#include "codegen/common/RopeFrequencies.h"
#include "codegen/cuda/LLMToCUDA.h"
#include "dialect/LLMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace llmc::cuda;

namespace llmc::cuda {

std::string RopeSpec::getFrequencyTag() const {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  os << llvm::bit_cast<uint64_t>(theta) << ';' << rotaryDim << ';';
  if (scaling)
    os << scaling;
  uint64_t hash = llvm::xxh3_64bits(llvm::StringRef(bytes));
  std::string tag;
  llvm::raw_string_ostream tagOs(tag);
  tagOs << llm::stringifyRopeScalingKind(llm::getRopeScalingKind(scaling))
        << "_"
        << llvm::format_hex_no_prefix(hash & 0xffffffffu, 8);
  return tag;
}

std::string RopeSpec::getName() const {
  return "rope_" + llm::stringifyRopeStyle(style).str() + "_h" +
         std::to_string(heads) + "_d" + std::to_string(headDim) + "_r" +
         std::to_string(rotaryDim) + "_" + getFrequencyTag() + "_" +
         getTypeTag(elementType);
}

std::optional<RopeSpec> getRopeSpec(MemRefType x, llm::RopeStyle style,
                                    double theta, int64_t rotaryDim,
                                    llm::RopeScalingAttrInterface scaling,
                                    std::string &reason) {
  if (x.isDynamicDim(2) || x.isDynamicDim(3)) {
    reason = "dynamic head count or size";
    return std::nullopt;
  }
  if (x.getElementTypeBitWidth() > 32) {
    reason = "f64 input";
    return std::nullopt;
  }
  if (llmc::usesNtkExponent(scaling) && rotaryDim == 2) {
    reason = "NTK scaling needs rotary_dim > 2";
    return std::nullopt;
  }
  return RopeSpec{style,     x.getDimSize(2), x.getDimSize(3),
                  rotaryDim, theta,           scaling,
                  x.getElementType()};
}

} // namespace llmc::cuda

namespace {

/// Threads of the one-block kernel that computes dynamic NTK's table.
constexpr int64_t kDynamicBlockSize = 256;

/// The baked inverse-frequency table of a static scaling kind: a constant
/// global of the kernel module (read through the L1 cache; threads of a
/// warp read different entries, which suits global memory better than the
/// constant bank).
memref::GlobalOp getFrequencyTable(KernelModule &kernels,
                                   const RopeSpec &spec) {
  gpu::GPUModuleOp module = kernels.getOp();
  // Named by the frequencies alone, so Q and K (other head counts) share it.
  std::string name = "rope_inv_freq_r" + std::to_string(spec.rotaryDim) + "_" +
                     spec.getFrequencyTag();
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  MLIRContext *context = b.getContext();
  auto type = MemRefType::get({spec.half()}, Float32Type::get(context));
  SmallVector<float> values = llmc::getStaticInverseFrequencies(
      spec.theta, spec.rotaryDim, spec.scaling);
  auto tensorType = RankedTensorType::get({spec.half()}, type.getElementType());
  return memref::GlobalOp::create(
      b, module.getLoc(), name, b.getStringAttr("private"), type,
      DenseElementsAttr::get(tensorType, ArrayRef<float>(values)),
      /*constant=*/true, /*alignment=*/b.getI64IntegerAttr(16));
}

/// longrope's two candidate tables (short factors, then long factors; d/2
/// f32 each) as a constant global of the kernel module.
memref::GlobalOp getLongropeTables(KernelModule &kernels,
                                   const RopeSpec &spec) {
  gpu::GPUModuleOp module = kernels.getOp();
  std::string name = "rope_longrope_inv_freq_r" +
                     std::to_string(spec.rotaryDim) + "_" +
                     spec.getFrequencyTag();
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type f32 = Float32Type::get(b.getContext());
  auto type = MemRefType::get({2 * spec.half()}, f32);
  SmallVector<float> values = llmc::getLongropeInverseFrequencies(
      spec.theta, spec.rotaryDim, cast<llm::RopeLongropeAttr>(spec.scaling));
  return memref::GlobalOp::create(
      b, module.getLoc(), name, b.getStringAttr("private"), type,
      DenseElementsAttr::get(RankedTensorType::get({2 * spec.half()}, f32),
                             ArrayRef<float>(values)),
      /*constant=*/true, /*alignment=*/b.getI64IntegerAttr(16));
}

/// rope_dynamic_inv_freq_r<d>_<tag>: one block; L = max(positions) + 1,
/// then inv_freq[i] for every pair i: dynamic NTK with the CPU lowering's
/// f64 formula, longrope from the short or long table as the CPU chooses.
/// The maximum is taken in f32, exact for positions below 2^24.
gpu::GPUFuncOp getDynamicFrequencyKernel(KernelModule &kernels,
                                         const RopeSpec &spec,
                                         Type positionType) {
  MLIRContext *context = positionType.getContext();
  Type f32 = Float32Type::get(context);
  std::string name = "rope_dynamic_inv_freq_r" +
                     std::to_string(spec.rotaryDim) + "_" +
                     spec.getFrequencyTag() + "_" + getTypeTag(positionType);
  auto positionsType = MemRefType::get({ShapedType::kDynamic}, positionType);
  auto tableType = MemRefType::get({spec.half()}, f32);
  int64_t numWarps = kDynamicBlockSize / kWarpSize;
  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      name, {positionsType, tableType},
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location loc = func.getLoc();
        DeviceBuilder d(b, loc);
        Value positions = func.getArgument(0), table = func.getArgument(1);
        Value scratch = func.getWorkgroupAttributions()[0];
        Value count = memref::DimOp::create(b, loc, positions, 0);
        Value lowest = d.f32(-std::numeric_limits<double>::infinity());
        auto scan =
            scf::ForOp::create(b, loc, d.threadId(), count,
                               d.index(kDynamicBlockSize), ValueRange{lowest});
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(scan.getBody());
          Value p =
              memref::LoadOp::create(b, loc, positions, scan.getInductionVar());
          Value pf = arith::SIToFPOp::create(b, loc, f32, p);
          scf::YieldOp::create(b, loc,
                               ValueRange{arith::MaximumFOp::create(
                                   b, loc, scan.getRegionIterArg(0), pf)});
        }
        Value maxPosition = d.blockReduce(scan.getResult(0), ReduceKind::Max,
                                          scratch, numWarps);
        Value length = arith::AddFOp::create(
            b, loc, arith::ExtFOp::create(b, loc, b.getF64Type(), maxPosition),
            arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0)));
        auto longrope = dyn_cast<llm::RopeLongropeAttr>(spec.scaling);
        Value logTheta, tables, offset;
        if (longrope) {
          memref::GlobalOp global = getLongropeTables(kernels, spec);
          tables = memref::GetGlobalOp::create(b, loc, global.getType(),
                                               global.getSymName());
          offset = llmc::createLongropeTableOffset(b, loc, length,
                                                   spec.rotaryDim, longrope);
        } else {
          logTheta = llmc::createDynamicNtkLogTheta(
              b, loc, length, spec.theta, spec.rotaryDim,
              cast<llm::RopeDynamicAttr>(spec.scaling));
        }
        auto fill =
            scf::ForOp::create(b, loc, d.threadId(), d.index(spec.half()),
                               d.index(kDynamicBlockSize));
        b.setInsertionPointToStart(fill.getBody());
        Value i = fill.getInductionVar();
        Value invFreq;
        if (longrope) {
          invFreq = memref::LoadOp::create(
              b, loc, tables, ValueRange{arith::AddIOp::create(b, loc, offset, i)});
        } else {
          Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
          invFreq = llmc::createDynamicInverseFrequency(b, loc, logTheta, i64,
                                                        spec.rotaryDim);
        }
        memref::StoreOp::create(b, loc, invFreq, table, i);
      },
      {getWorkgroupBufferType({numWarps}, f32)});
  kernel.setKnownBlockSize(
      ArrayRef<int32_t>{static_cast<int32_t>(kDynamicBlockSize), 1, 1});
  return kernel;
}

} // namespace

namespace llmc::cuda {

Value launchDynamicFrequencies(OpBuilder &builder, Location loc,
                               KernelModule &kernels, const RopeSpec &spec,
                               Value positions) {
  if (!spec.isDynamic())
    return Value();
  Type positionType = cast<MemRefType>(positions.getType()).getElementType();
  gpu::GPUFuncOp tableKernel =
      getDynamicFrequencyKernel(kernels, spec, positionType);
  auto tableType = MemRefType::get({spec.half()}, builder.getF32Type());
  Value table = allocateResult(builder, loc, tableType, {});
  LaunchShape shape;
  shape.block = {kDynamicBlockSize, 1, 1};
  emitLaunch(builder, loc, tableKernel, shape, {positions, table});
  return table;
}

Value getInverseFrequencies(OpBuilder &builder, Location loc,
                            KernelModule &kernels, const RopeSpec &spec,
                            Value dynamicTable) {
  if (spec.isDynamic())
    return dynamicTable;
  memref::GlobalOp table = getFrequencyTable(kernels, spec);
  return memref::GetGlobalOp::create(builder, loc, table.getType(),
                                     table.getSymName());
}

RotatedPair rotatePair(DeviceBuilder &d, const RopeSpec &spec, Value x,
                       Value positions, Value invFreq, Value token,
                       Value pair) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Type f32 = b.getF32Type();
  double attentionFactor = llmc::getRopeAttentionFactor(spec.scaling);
  Value head = arith::DivUIOp::create(b, loc, pair, d.index(spec.half()));
  Value i = arith::RemUIOp::create(b, loc, pair, d.index(spec.half()));
  // angle = f32(position) · inv_freq[i]; cos/sin in f32 (libdevice),
  // scaled by YaRN's or longrope's attention factor, as the CPU tables are.
  Value position = arith::SIToFPOp::create(
      b, loc, f32, memref::LoadOp::create(b, loc, positions, token));
  Value angle = arith::MulFOp::create(
      b, loc, position, memref::LoadOp::create(b, loc, invFreq, i));
  Value cos = math::CosOp::create(b, loc, angle);
  Value sin = math::SinOp::create(b, loc, angle);
  if (attentionFactor != 1.0) {
    Value scale = d.f32(static_cast<float>(attentionFactor));
    cos = arith::MulFOp::create(b, loc, cos, scale);
    sin = arith::MulFOp::create(b, loc, sin, scale);
  }
  Value base = arith::MulIOp::create(b, loc, head, d.index(spec.headDim));
  // The pair's members: (2i, 2i+1) interleaved, (i, i + d/2) half.
  RotatedPair result;
  Value x0, x1;
  if (spec.style == llm::RopeStyle::interleaved) {
    result.column0 = arith::AddIOp::create(
        b, loc, base, arith::MulIOp::create(b, loc, i, d.index(2)));
    result.column1 = arith::AddIOp::create(b, loc, result.column0, d.index(1));
    Value pairValues = d.toF32(d.loadVector(
        VectorType::get({2}, spec.elementType), x, {token, result.column0}));
    x0 = vector::ExtractOp::create(b, loc, pairValues, 0);
    x1 = vector::ExtractOp::create(b, loc, pairValues, 1);
  } else {
    result.column0 = arith::AddIOp::create(b, loc, base, i);
    result.column1 =
        arith::AddIOp::create(b, loc, result.column0, d.index(spec.half()));
    x0 = d.toF32(
        memref::LoadOp::create(b, loc, x, ValueRange{token, result.column0}));
    x1 = d.toF32(
        memref::LoadOp::create(b, loc, x, ValueRange{token, result.column1}));
  }
  // out0 = x0·cos + x1·(−sin), out1 = x1·cos + x0·sin.
  result.value0 = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, x0, cos),
      arith::MulFOp::create(b, loc, x1, arith::NegFOp::create(b, loc, sin)));
  result.value1 = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, x1, cos),
      arith::MulFOp::create(b, loc, x0, sin));
  return result;
}

void emitRotatePair(DeviceBuilder &d, const RopeSpec &spec, Value x,
                    Value positions, Value invFreq, Value token, Value pair,
                    Value out, Value outRow) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  RotatedPair rotated =
      rotatePair(d, spec, x, positions, invFreq, token, pair);
  Value out0 = d.fromF32(rotated.value0, outType);
  Value out1 = d.fromF32(rotated.value1, outType);
  if (spec.style == llm::RopeStyle::interleaved) {
    Value result = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, outType), ValueRange{out0, out1});
    d.storeVector(result, out, {outRow, rotated.column0});
  } else {
    memref::StoreOp::create(b, loc, out0, out,
                            ValueRange{outRow, rotated.column0});
    memref::StoreOp::create(b, loc, out1, out,
                            ValueRange{outRow, rotated.column1});
  }
}

void emitPassThrough(DeviceBuilder &d, const RopeSpec &spec, Value x,
                     Value token, Value item, Value out, Value outRow) {
  OpBuilder &b = d.builder();
  Location loc = d.location();
  int64_t passThrough = spec.headDim - spec.rotaryDim;
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  Value head = arith::DivUIOp::create(b, loc, item, d.index(passThrough));
  Value j = arith::AddIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, item, d.index(passThrough)),
      d.index(spec.rotaryDim));
  Value col = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, head, d.index(spec.headDim)), j);
  Value value = memref::LoadOp::create(b, loc, x, ValueRange{token, col});
  if (value.getType() != outType)
    value = d.fromF32(d.toF32(value), outType);
  memref::StoreOp::create(b, loc, value, out, ValueRange{outRow, col});
}

} // namespace llmc::cuda

namespace {

/// The rotation kernel. Arguments: x (tokens × heads·head_dim), positions
/// (tokens), [inv_freq (d/2) for dynamic NTK], out (like x). Block
/// (token, g) handles items g·128 + threadIdx.x: item < heads·d/2 rotates
/// pair (item / (d/2), item % (d/2)); item < heads·(head_dim − d) copies one
/// element past rotary_dim (partial rotary).
gpu::GPUFuncOp getRopeKernel(KernelModule &kernels, const RopeSpec &spec,
                             Type positionType) {
  MLIRContext *context = positionType.getContext();
  Type f32 = Float32Type::get(context);
  auto dyn = ShapedType::kDynamic;
  int64_t rowSize = spec.heads * spec.headDim;
  auto rowsType = MemRefType::get({dyn, rowSize}, spec.elementType);
  SmallVector<Type> argTypes{rowsType, MemRefType::get({dyn}, positionType)};
  if (spec.isDynamic())
    argTypes.push_back(MemRefType::get({spec.half()}, f32));
  argTypes.push_back(rowsType);

  gpu::GPUFuncOp kernel = kernels.getOrCreate(
      spec.getName() + "_" + getTypeTag(positionType), argTypes,
      [&](OpBuilder &b, gpu::GPUFuncOp func) {
        Location loc = func.getLoc();
        DeviceBuilder d(b, loc);
        Value x = func.getArgument(0), positions = func.getArgument(1);
        Value out = func.getArgument(func.getNumArguments() - 1);
        Value invFreq = getInverseFrequencies(
            b, loc, kernels, spec,
            spec.isDynamic() ? func.getArgument(2) : Value());
        Value token = d.blockId(gpu::Dimension::x);
        Value item = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, d.blockId(gpu::Dimension::y),
                                  d.index(kRopeBlockSize)),
            d.threadId());

        // Rotation of pair (head, i).
        Value isPair = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             item, d.index(spec.numPairs()));
        auto rotate = scf::IfOp::create(b, loc, isPair, /*withElse=*/false);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(rotate.thenBlock());
          emitRotatePair(d, spec, x, positions, invFreq, token, item, out,
                         token);
        }

        // Partial rotary: elements past rotary_dim are copied unchanged.
        if (spec.numPassThrough() == 0)
          return;
        Value isCopy =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, item,
                                  d.index(spec.numPassThrough()));
        auto copy = scf::IfOp::create(b, loc, isCopy, /*withElse=*/false);
        b.setInsertionPointToStart(copy.thenBlock());
        emitPassThrough(d, spec, x, token, item, out, token);
      });
  kernel.setKnownBlockSize(
      ArrayRef<int32_t>{static_cast<int32_t>(kRopeBlockSize), 1, 1});
  return kernel;
}

struct RopeLowering : KernelPattern<llm::RopeOp> {
  using KernelPattern::KernelPattern;
  LogicalResult
  matchAndRewrite(llm::RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), positions = adaptor.getPositions();
    auto xType = cast<MemRefType>(x.getType());
    auto positionsType = cast<MemRefType>(positions.getType());
    std::string reason;
    std::optional<RopeSpec> maybeSpec = getRopeSpec(
        xType, op.getStyle(), op.getTheta().convertToDouble(),
        op.getRotaryDim(), op.getScalingAttr(), reason);
    if (!maybeSpec)
      return rewriter.notifyMatchFailure(op, reason);
    const RopeSpec &spec = *maybeSpec;
    Type positionType = positionsType.getElementType();

    // (B, T, H, Dh) → (B·T, H·Dh); positions (B, T) → (B·T).
    Value xRows = memref::CollapseShapeOp::create(
        rewriter, loc, x, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
    Value ids = memref::CollapseShapeOp::create(
        rewriter, loc, positions, SmallVector<ReassociationIndices>{{0, 1}});
    Value result =
        allocateResult(rewriter, loc, xType, getDynamicSizes(rewriter, loc, x));
    Value outRows = memref::CollapseShapeOp::create(
        rewriter, loc, result,
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
    Value tokens = memref::DimOp::create(rewriter, loc, ids, 0);

    SmallVector<Value> args{xRows, ids};
    if (Value table =
            launchDynamicFrequencies(rewriter, loc, kernels, spec, ids))
      args.push_back(table);
    args.push_back(outRows);
    gpu::GPUFuncOp kernel = getRopeKernel(kernels, spec, positionType);
    LaunchShape shape;
    shape.grid[0] = tokens;
    shape.grid[1] = indexConstant(
        rewriter, loc,
        llvm::divideCeil(std::max(spec.numPairs(), spec.numPassThrough()),
                         kRopeBlockSize));
    shape.block = {kRopeBlockSize, 1, 1};
    emitLaunch(rewriter, loc, kernel, shape, args);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void llmc::cuda::populateRopeKernelPatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            KernelModule &kernels) {
  patterns.add<RopeLowering>(converter, patterns.getContext(), kernels);
}
