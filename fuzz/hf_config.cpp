// Fuzz target: a Hugging Face config.json through the frontend (llvm::json, then the field checks), and `llmc info`'s counts.
#include "walk_model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<llmc::ModelConfig> config = llmc::parseHFConfig(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz/config.json");
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  llmc::fuzz::walk_model_config(*config);
  return 0;
}
