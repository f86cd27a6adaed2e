// Fuzz target: a GGUF file's header and metadata through the frontend (what `llmc compile` and `llmc info` read), and `llmc info`'s counts.
#include "fuzz_input_file.h"
#include "walk_model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile file("model.gguf");
  llmc::fuzz::load_and_walk_model_config(file.write(data, size));
  return 0;
}
