// What a compiled model takes from its caller, read off the `llm` module: the weight table and the KV cache.
#include "codegen/ModelInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

std::string llmc::getWeightFormatName(Type elementType) {
  if (auto block = dyn_cast<llm::BlockQuantType>(elementType))
    return llm::stringifyBlockFormat(block.getFormat()).str();
  if (auto interleaved = dyn_cast<llm::InterleavedFloatType>(elementType))
    return getWeightFormatName(interleaved.getElementType());
  if (elementType.isF32())
    return "f32";
  if (elementType.isF16())
    return "f16";
  if (elementType.isBF16())
    return "bf16";
  std::string name;
  llvm::raw_string_ostream os(name);
  elementType.print(os);
  return name;
}

llvm::Expected<llmc::ModelInterface> llmc::getModelInterface(ModuleOp module) {
  auto decode = module.lookupSymbol<func::FuncOp>("decode");
  if (!decode)
    return llvm::createStringError(
        "the module has no `@decode` function to read the weights from");
  ModelInterface interface;
  for (unsigned index = 0, e = decode.getNumArguments(); index < e; ++index) {
    Type type = decode.getArgument(index).getType();
    if (auto cache = dyn_cast<llm::KVCacheType>(type)) {
      interface.cache = cache;
      continue;
    }
    auto name = decode.getArgAttrOfType<StringAttr>(index, "llm.weight");
    if (!name)
      continue;
    auto tensor = cast<RankedTensorType>(type);
    InterfaceWeight weight{name.str(),
                           std::vector<int64_t>(tensor.getShape().begin(),
                                                tensor.getShape().end()),
                           getWeightFormatName(tensor.getElementType())};
    if (auto block = dyn_cast<llm::BlockQuantType>(tensor.getElementType())) {
      weight.interleave = block.getInterleave();
      weight.planar = block.getPlanar();
    }
    if (auto interleaved =
            dyn_cast<llm::InterleavedFloatType>(tensor.getElementType())) {
      weight.interleave = interleaved.getRows();
      weight.interleaveColumns = interleaved.getColumns();
    }
    if (auto source =
            decode.getArgAttrOfType<StringAttr>(index, "llm.weight_source")) {
      auto rows = decode.getArgAttrOfType<DenseI64ArrayAttr>(
          index, "llm.weight_rows");
      if (!rows || rows.size() != 4)
        return llvm::createStringError(
            "weight '" + name.str() +
            "' has an `llm.weight_source` without `llm.weight_rows` "
            "(start, count, stride, groups)");
      weight.source = source.str();
      weight.rows.assign(rows.asArrayRef().begin(), rows.asArrayRef().end());
    }
    interface.weights.push_back(std::move(weight));
  }
  if (!interface.cache)
    return llvm::createStringError("`@decode` takes no `!llm.kv_cache`");
  return interface;
}
