// Fuzz target: a llama2.c checkpoint (.bin: the 7 x int32 header, then f32 arrays) through the runtime's loader.
#include "fuzz_input_file.h"
#include "walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile file("model.bin");
  llmc::fuzz::load_and_walk_weights(file.write(data, size), LLMC_WEIGHTS_LLAMA2C);
  return 0;
}
