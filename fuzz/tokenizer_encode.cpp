// Fuzz target: arbitrary text (any bytes) through encode, decode and the detokenizer of fixed real tokenizers.
#include "test_inputs.h"
#include "walk.h"

namespace {

/// One tokenizer of each kind the runtime implements, from the test data
/// (test/runtime/Inputs): byte-level BPE with each pre-tokenizer regex
/// family (GPT-2, Llama 3, Qwen2, DeepSeek V3, Tekken), SentencePiece BPE
/// with byte fallback (metaspace, stories260K's directory with its
/// tokenizer_config.json), and a Unicode normalizer (NFKC).
const char *const kTokenizers[] = {
    "tokenizers/gpt-2.json",       "tokenizers/llama-bpe.gguf",
    "tokenizers/qwen2.json",       "tokenizers/deepseek-v3.gguf",
    "tokenizers/tekken.gguf",      "tokenizers/metaspace.json",
    "tokenizers/stories260k",      "tokenizers_nfc/nfkc.json",
};

} // namespace

/// The first byte picks the tokenizer, the second the encode flags; the
/// rest is the text.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const auto tokenizers = llmc::fuzz::load_test_inputs(
      kTokenizers, "", llmc_tokenizer_load, llmc_tokenizer_destroy);
  if (size < 2)
    return 0;
  const llmc_tokenizer *tokenizer = tokenizers[data[0] % tokenizers.size()].get();
  uint32_t flags = data[1] & (LLMC_ENCODE_ADD_BOS | LLMC_ENCODE_NO_SPACE_PREFIX |
                              LLMC_ENCODE_PLAIN_SPECIAL |
                              LLMC_ENCODE_FILE_DEFAULTS | LLMC_ENCODE_ADD_EOS);
  llmc::fuzz::encode_and_decode(tokenizer,
                                reinterpret_cast<const char *>(data + 2),
                                size - 2, flags);
  return 0;
}
