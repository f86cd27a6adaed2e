// The llm-cpu-entry-points pass: fixed C signatures around the model functions.
#include "passes/Passes.h"

#include "dialect/LLMTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <cctype>

namespace llmc {
#define GEN_PASS_DEF_LLMCPUENTRYPOINTS
#include "passes/Passes.h.inc"
} // namespace llmc

using namespace mlir;

namespace {

/// The model functions the entry points wrap; decode has no seq_len.
struct EntryPointKind {
  const char *callee;
  bool takesSeqLen;
};
constexpr EntryPointKind kEntryPoints[] = {{"prefill", true},
                                           {"decode", false}};

std::string getSymbolPrefix(ModuleOp module) {
  auto name = module->getAttrOfType<StringAttr>("llm.model");
  return llmc::getModelSymbolPrefix(name ? name.getValue() : "model");
}

class EntryPointBuilder {
public:
  EntryPointBuilder(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc), i64(builder.getI64Type()),
        ptr(LLVM::LLVMPointerType::get(builder.getContext())) {}

  Value constant(int64_t value) {
    return LLVM::ConstantOp::create(builder, loc, i64,
                                    builder.getI64IntegerAttr(value));
  }

  /// A memref of `type` over the dense row-major buffer at `base`; the
  /// dynamic extents (at most one kind: the sequence length) are `seqLen`.
  FailureOr<Value> viewBuffer(Value base, MemRefType type, Value seqLen) {
    int64_t rank = type.getRank();
    SmallVector<Value> sizes;
    for (int64_t extent : type.getShape()) {
      if (!ShapedType::isDynamic(extent)) {
        sizes.push_back(constant(extent));
        continue;
      }
      if (!seqLen)
        return failure();
      sizes.push_back(seqLen);
    }
    SmallVector<Value> strides(rank);
    Value stride = constant(1);
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      strides[dim] = stride;
      stride = LLVM::MulOp::create(builder, loc, stride, sizes[dim]);
    }
    auto arrayType = LLVM::LLVMArrayType::get(i64, rank);
    auto descriptorType = LLVM::LLVMStructType::getLiteral(
        builder.getContext(), {ptr, ptr, i64, arrayType, arrayType});
    Value descriptor = LLVM::PoisonOp::create(builder, loc, descriptorType);
    descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor, base,
                                             ArrayRef<int64_t>{0});
    descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor, base,
                                             ArrayRef<int64_t>{1});
    descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor,
                                             constant(0), ArrayRef<int64_t>{2});
    for (int64_t dim = 0; dim < rank; ++dim) {
      descriptor = LLVM::InsertValueOp::create(
          builder, loc, descriptor, sizes[dim], ArrayRef<int64_t>{3, dim});
      descriptor = LLVM::InsertValueOp::create(
          builder, loc, descriptor, strides[dim], ArrayRef<int64_t>{4, dim});
    }
    return UnrealizedConversionCastOp::create(builder, loc, type, descriptor)
        .getResult(0);
  }

  /// `base` advanced by `bytes` bytes.
  Value offsetBytes(Value base, int64_t bytes) {
    return LLVM::GEPOp::create(builder, loc, ptr, builder.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{constant(bytes)});
  }

  /// Loads entry `index` of the pointer table `table` (a weight index: far
  /// below the 32-bit constant indices GEP takes).
  Value loadTableEntry(Value table, int32_t index) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptr, ptr, table,
                                     ArrayRef<LLVM::GEPArg>{index});
    return LLVM::LoadOp::create(builder, loc, ptr, slot);
  }

private:
  OpBuilder &builder;
  Location loc;
  Type i64, ptr;
};

/// The argument attributes that name a model function's inputs (tokens,
/// positions, kv_cache, kv_page_table, logit_rows) and mark the caller's
/// logits buffer.
constexpr StringLiteral kInputAttr = "llm.input";
constexpr StringLiteral kOutputAttr = "llm.output";

/// Makes `callee` compute its logits in its caller's buffer, a new last
/// argument (`llm.output = "logits"`), instead of a buffer of its own that
/// the entry point would copy out and free (for a decode step of a 49152
/// token vocabulary, a 192 KiB malloc, copy and free per token). Only
/// when the returned buffer is a top-level allocation whose dynamic extents
/// are all the `logit_rows` argument, the extent the caller's buffer has
/// there, and when nothing in `module` calls it (a test driver may); returns
/// whether it did.
bool computeLogitsInPlace(func::FuncOp callee, ModuleOp module) {
  if (!SymbolTable::symbolKnownUseEmpty(callee, module))
    return false;
  Block &body = callee.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!ret || ret.getNumOperands() != 1)
    return false;
  auto alloc = ret.getOperand(0).getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != &body || !alloc.getSymbolOperands().empty())
    return false;
  for (Value extent : alloc.getDynamicSizes()) {
    auto argument = dyn_cast<BlockArgument>(extent);
    if (!argument || argument.getOwner() != &body)
      return false;
    auto role = callee.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                                    kInputAttr);
    if (!role || role != "logit_rows")
      return false;
  }
  unsigned index = callee.getNumArguments();
  MLIRContext *context = callee.getContext();
  auto attrs = DictionaryAttr::get(
      context, NamedAttribute(StringAttr::get(context, kOutputAttr),
                              StringAttr::get(context, "logits")));
  // A func.func takes any argument and drops any result: these cannot
  // fail, so no check here leaves the function half changed.
  [[maybe_unused]] LogicalResult inserted =
      callee.insertArgument(index, alloc.getType(), attrs, alloc.getLoc());
  assert(succeeded(inserted) && "func.func takes any new argument");
  alloc.replaceAllUsesWith(body.getArgument(index));
  alloc.erase();
  ret->eraseOperands(0, 1);
  [[maybe_unused]] LogicalResult erased = callee.eraseResult(0);
  assert(succeeded(erased) && "func.func drops any result");
  return true;
}

struct LLMCPUEntryPointsPass
    : public llmc::impl::LLMCPUEntryPointsBase<LLMCPUEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string prefix = getSymbolPrefix(module);
    for (const EntryPointKind &kind : kEntryPoints) {
      auto callee = module.lookupSymbol<func::FuncOp>(kind.callee);
      if (!callee)
        continue;
      if (failed(emitEntryPoint(module, callee, prefix + "_" + kind.callee,
                                kind.takesSeqLen)))
        return signalPassFailure();
    }
    // Only the entry points are visible outside the object, so that several
    // models (each with its own @prefill, @decode_layer, helpers) can be
    // linked into one program.
    auto internal =
        LLVM::LinkageAttr::get(&getContext(), LLVM::Linkage::Internal);
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPrivate() && !func.isExternal())
        func->setAttr("llvm.linkage", internal);
  }

  LogicalResult emitEntryPoint(ModuleOp module, func::FuncOp callee,
                               StringRef name, bool takesSeqLen) {
    Location loc = callee.getLoc();
    if (!callee.isPrivate())
      return callee.emitOpError(
          "must be private: a public model function returns a copy of the "
          "KV cache instead of updating it in place");
    FunctionType calleeType = callee.getFunctionType();
    if (calleeType.getNumResults() != 1 ||
        !isa<MemRefType>(calleeType.getResult(0)))
      return callee.emitOpError(
          "expected one memref result (the logits) after bufferization");
    bool inPlace = computeLogitsInPlace(callee, module);
    calleeType = callee.getFunctionType();

    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    MLIRContext *context = builder.getContext();
    Type ptr = LLVM::LLVMPointerType::get(context);
    Type i64 = builder.getI64Type();
    // (tokens, positions[, seq_len, logit_rows], kv_cache, weights, logits)
    // -> status
    SmallVector<Type> argTypes = {ptr, ptr};
    if (takesSeqLen)
      argTypes.append({i64, i64});
    argTypes.append({ptr, ptr, ptr});
    auto entry = func::FuncOp::create(
        builder, loc, name,
        builder.getFunctionType(argTypes, {builder.getI32Type()}));
    Block *body = entry.addEntryBlock();
    builder.setInsertionPointToStart(body);
    unsigned next = 0;
    Value tokens = body->getArgument(next++);
    Value positions = body->getArgument(next++);
    Value seqLen = takesSeqLen ? body->getArgument(next++) : Value();
    Value logitRows = takesSeqLen ? body->getArgument(next++) : Value();
    Value cache = body->getArgument(next++);
    Value weightTable = body->getArgument(next++);
    Value logits = body->getArgument(next++);

    EntryPointBuilder emitter(builder, loc);
    // The caller's logits as a memref of `type`: a prefill's are those of
    // its last logit_rows tokens.
    auto viewLogits = [&](Type type) -> FailureOr<Value> {
      FailureOr<Value> view =
          emitter.viewBuffer(logits, cast<MemRefType>(type), logitRows);
      if (failed(view))
        return callee.emitOpError(
            "logits have a dynamic extent without logit_rows");
      return view;
    };
    // A paged cache's buffer starts with its page table, padded to
    // kPageTableAlignment bytes; the keys and values follow.
    Value cacheData = cache;
    for (auto [index, type] : llvm::enumerate(calleeType.getInputs())) {
      auto role = callee.getArgAttrOfType<StringAttr>(index, kInputAttr);
      auto table = dyn_cast<MemRefType>(type);
      if (role && role == "kv_page_table" && table)
        cacheData = emitter.offsetBytes(
            cache, llm::getPageTableBytes(table.getNumElements()));
    }
    SmallVector<Value> operands;
    int32_t weightIndex = 0;
    for (auto [index, type] : llvm::enumerate(calleeType.getInputs())) {
      auto role = callee.getArgAttrOfType<StringAttr>(index, kInputAttr);
      if (role && role == "logit_rows") {
        if (!type.isIndex() || !logitRows)
          return callee.emitOpError()
                 << "argument " << index
                 << ": `logit_rows` must be an index argument of the prefill";
        operands.push_back(arith::IndexCastOp::create(
            builder, loc, builder.getIndexType(), logitRows));
        continue;
      }
      auto memrefType = dyn_cast<MemRefType>(type);
      if (!memrefType)
        return callee.emitOpError() << "argument " << index
                                    << " is not a memref after bufferization";
      if (callee.getArgAttr(index, kOutputAttr)) {
        FailureOr<Value> out = viewLogits(memrefType);
        if (failed(out))
          return failure();
        operands.push_back(*out);
        continue;
      }
      Value base;
      if (role) {
        if (role == "tokens")
          base = tokens;
        else if (role == "positions")
          base = positions;
        else if (role == "kv_cache")
          base = cacheData;
        else if (role == "kv_page_table")
          base = cache;
      } else if (callee.getArgAttr(index, "llm.weight")) {
        base = emitter.loadTableEntry(weightTable, weightIndex++);
      }
      if (!base)
        return callee.emitOpError()
               << "argument " << index
               << " has neither an `llm.input` nor an `llm.weight` role";
      FailureOr<Value> view = emitter.viewBuffer(base, memrefType, seqLen);
      if (failed(view))
        return callee.emitOpError()
               << "argument " << index
               << " has a dynamic extent but the entry point has no seq_len";
      operands.push_back(*view);
    }
    auto call = func::CallOp::create(builder, loc, callee, operands);
    if (!inPlace) {
      Value result = call.getResult(0);
      FailureOr<Value> out = viewLogits(result.getType());
      if (failed(out))
        return failure();
      memref::CopyOp::create(builder, loc, result, *out);
      memref::DeallocOp::create(builder, loc, result);
    }
    Value ok = arith::ConstantOp::create(builder, loc, builder.getI32Type(),
                                         builder.getI32IntegerAttr(0));
    func::ReturnOp::create(builder, loc, ok);
    return success();
  }
};

} // namespace

std::string llmc::getModelSymbolPrefix(llvm::StringRef modelName) {
  std::string prefix = modelName.str();
  for (char &c : prefix)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  if (prefix.empty() || std::isdigit(static_cast<unsigned char>(prefix[0])))
    prefix = "_" + prefix;
  return prefix;
}
