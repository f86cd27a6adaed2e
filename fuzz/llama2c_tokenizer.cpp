// Fuzz target: a llama2.c tokenizer (tok*.bin), read to its end and as a 512-token vocabulary (stories260K's).
#include "fuzz_input_file.h"
#include "walk.h"

namespace {

/// 0 reads tokens until the end of the file; a positive size reads exactly
/// that many, which takes other paths at a short or a long file.
constexpr int32_t kVocabSizes[] = {0, 512};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile file("tok.bin");
  const std::string &path = file.write(data, size);
  for (int32_t vocab_size : kVocabSizes) {
    llmc_tokenizer *tokenizer = nullptr;
    if (llmc_tokenizer_load_llama2c(path.c_str(), vocab_size, &tokenizer) !=
        LLMC_OK)
      continue;
    llmc::fuzz::walk_tokenizer(tokenizer);
    llmc_tokenizer_destroy(tokenizer);
  }
  return 0;
}
