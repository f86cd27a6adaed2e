// Fuzz target: a model directory's tokenizer_config.json and generation_config.json (one input written as both), beside a small fixed tokenizer.json.
#include "fuzz_check.h"
#include "fuzz_input_file.h"
#include "walk.h"

#include <cstring>

namespace {

/// A SentencePiece-style tokenizer.json of 11 ids, small so that each input
/// parses in microseconds; the configs' special tokens (<s>, </s>, <unk>,
/// <|im_start|>, <|im_end|>) are its added tokens.
constexpr const char kTokenizerJson[] =
    R"({"version":"1.0","added_tokens":[{"id":0,"content":"<unk>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)"
    R"({"id":1,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)"
    R"({"id":2,"content":"</s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)"
    R"({"id":9,"content":"<|im_start|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},)"
    R"({"id":10,"content":"<|im_end|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],)"
    R"("normalizer":null,"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":false},"post_processor":null,)"
    R"("decoder":{"type":"Metaspace","replacement":"▁"},)"
    R"("model":{"type":"BPE","dropout":null,"unk_token":"<unk>","byte_fallback":false,"vocab":{"<unk>":0,"<s>":1,"</s>":2,"a":3,"b":4,"ab":5,"▁":6,"▁a":7,"▁ab":8},"merges":[["a","b"],["▁","a"],["▁a","b"]]}})";

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  llmc::fuzz::InputFile("tokenizer.json")
      .write(reinterpret_cast<const uint8_t *>(kTokenizerJson),
             sizeof(kTokenizerJson) - 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const llmc::fuzz::InputFile tokenizer_config("tokenizer_config.json");
  static const llmc::fuzz::InputFile generation_config("generation_config.json");
  tokenizer_config.write(data, size);
  generation_config.write(data, size);
  const std::string &dir = llmc::fuzz::scratch_directory();

  llmc_tokenizer *tokenizer = nullptr;
  if (llmc_tokenizer_load(dir.c_str(), &tokenizer) == LLMC_OK) {
    // What tokenizer_config.json decides: the special ids and whether they
    // are added (the vocabulary's own walk is fuzz/tokenizer_json.cpp's).
    int32_t vocab = llmc_tokenizer_vocab_size(tokenizer);
    int32_t ids[LLMC_MAX_EOS_IDS];
    size_t n = llmc_tokenizer_end_of_generation(tokenizer, ids, LLMC_MAX_EOS_IDS);
    for (size_t i = 0; i < n && i < LLMC_MAX_EOS_IDS; ++i)
      LLMC_FUZZ_CHECK(ids[i] >= 0 && ids[i] < vocab);
    for (int32_t special : {llmc_tokenizer_bos_id(tokenizer),
                            llmc_tokenizer_eos_id(tokenizer)})
      LLMC_FUZZ_CHECK(special >= -1 && special < vocab);
    const char text[] = "Once upon a time</s><s>";
    llmc::fuzz::encode_and_decode(tokenizer, text, sizeof(text) - 1,
                                  LLMC_ENCODE_FILE_DEFAULTS);
    llmc_tokenizer_destroy(tokenizer);
  }
  llmc_chat_template *tmpl = nullptr;
  if (llmc_chat_template_load(dir.c_str(), &tmpl) == LLMC_OK) {
    const char *messages = llmc::fuzz::sample_conversation(size);
    llmc_chat_render_options opts = llmc::fuzz::full_render_options();
    llmc::fuzz::render_checked(tmpl, messages, std::strlen(messages), &opts);
    llmc_chat_template_destroy(tmpl);
  }
  llmc_generation_config generation;
  if (llmc_generation_config_load(dir.c_str(), &generation) == LLMC_OK) {
    LLMC_FUZZ_CHECK(generation.n_eos_ids >= 0 &&
                    generation.n_eos_ids <= LLMC_MAX_EOS_IDS);
    LLMC_FUZZ_CHECK(generation.found == 1);
  }
  return 0;
}
