// Fuzz target: a GGUF file (header, metadata, tensor infos, the tokenizer and chat template in its metadata) through the runtime's loader.
#include "fuzz_input_file.h"
#include "walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile file("input.gguf");
  llmc::fuzz::load_and_walk_weights(file.write(data, size), LLMC_WEIGHTS_GGUF);
  return 0;
}
