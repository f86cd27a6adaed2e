// What a compiled model takes from its caller, read off the `llm` module: the weight table and the KV cache.
#include "codegen/ModelInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

std::string llmc::getWeightFormatName(Type elementType) {
  if (auto block = dyn_cast<llm::BlockQuantType>(elementType))
    return llm::stringifyBlockFormat(block.getFormat()).str();
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
    interface.weights.push_back(
        {name.str(),
         std::vector<int64_t>(tensor.getShape().begin(),
                              tensor.getShape().end()),
         getWeightFormatName(tensor.getElementType())});
  }
  if (!interface.cache)
    return llvm::createStringError("`@decode` takes no `!llm.kv_cache`");
  return interface;
}
