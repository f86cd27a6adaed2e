// Everything `llmc --compile-to=config` and `llmc info` print about a parsed ModelConfig.
#include "walk_model_config.h"

#include "ModelStats.h"
#include "WeightFormats.h"

#include "llvm/Support/raw_ostream.h"

namespace llmc::fuzz {

void walk_model_config(const ModelConfig &config) {
  printModelConfig(config, llvm::nulls());
  for (KVCacheFormat kvFormat :
       {KVCacheFormat::F32, KVCacheFormat::F16, KVCacheFormat::BF16,
        KVCacheFormat::Int8, KVCacheFormat::FP8E4M3})
    printModelStats(config, computeModelStats(config, kvFormat), llvm::nulls());
}

void load_and_walk_model_config(llvm::StringRef path) {
  llvm::Expected<ModelConfig> config = loadModelConfig(path);
  if (!config) {
    llvm::consumeError(config.takeError());
    return;
  }
  llvm::Expected<WeightFormats> formats = readWeightFormats(path);
  if (!formats) {
    llvm::consumeError(formats.takeError());
    return;
  }
  config->weightFormats = std::move(*formats);
  walk_model_config(*config);
}

} // namespace llmc::fuzz
