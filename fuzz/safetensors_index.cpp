// Fuzz target: a sharded checkpoint's model.safetensors.index.json, beside two fixed valid shards it may name.
#include "fuzz_input_file.h"
#include "walk.h"

#include <cstring>

namespace {

/// A valid safetensors file of `header` (JSON, padded with spaces to 8
/// bytes as the format's writers do) and `data_bytes` bytes of data.
std::string safetensors_file(std::string header, size_t data_bytes) {
  header.resize((header.size() + 7) / 8 * 8, ' ');
  uint64_t length = header.size();
  std::string file(reinterpret_cast<const char *>(&length), sizeof length);
  return file + header + std::string(data_bytes, '\x3c');
}

/// The shards the seed indexes name (fuzz/make_seeds.py), written once.
void write_shards() {
  const struct {
    const char *name;
    const char *header;
    size_t data_bytes;
  } kShards[] = {
      {"model-00001-of-00002.safetensors",
       R"({"__metadata__": {"format": "pt"}, "model.embed_tokens.weight": )"
       R"({"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})",
       16},
      {"model-00002-of-00002.safetensors",
       R"({"lm_head.weight": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}, )"
       R"("model.norm.weight": {"dtype": "BF16", "shape": [2], "data_offsets": [8, 12]}})",
       12},
  };
  for (const auto &shard : kShards) {
    std::string bytes = safetensors_file(shard.header, shard.data_bytes);
    llmc::fuzz::InputFile(shard.name)
        .write(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  write_shards();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile index("model.safetensors.index.json");
  llmc::fuzz::load_and_walk_weights(index.write(data, size),
                                    LLMC_WEIGHTS_SAFETENSORS);
  return 0;
}
