// Fuzz target: a Hugging Face tokenizer.json (model, pre-tokenizer, normalizer, decoder, added tokens) through the runtime's loader.
#include "fuzz_input_file.h"
#include "walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile file("tokenizer.json");
  const std::string &path = file.write(data, size);
  llmc_tokenizer *tokenizer = nullptr;
  if (llmc_tokenizer_load(path.c_str(), &tokenizer) != LLMC_OK)
    return 0;
  llmc::fuzz::walk_tokenizer(tokenizer);
  llmc_tokenizer_destroy(tokenizer);
  return 0;
}
