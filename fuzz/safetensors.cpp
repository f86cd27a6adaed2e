// Fuzz target: one .safetensors file (length, JSON header, data offsets) through the runtime's loader.
#include "fuzz_input_file.h"
#include "walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile file("model.safetensors");
  llmc::fuzz::load_and_walk_weights(file.write(data, size),
                                    LLMC_WEIGHTS_SAFETENSORS);
  return 0;
}
