// Reading a tokenizer's vocabulary and round-tripping fixed texts through encode, decode and the detokenizer.
#include "fuzz_check.h"
#include "walk.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace llmc::fuzz {

namespace {

/// Ids whose kind, text and piece are read (a vocabulary has 10^5).
constexpr int32_t kMaxWalkedIds = 512;

/// Texts that reach the pre-tokenizers' and the BPE's corners: spaces and
/// newlines in runs, digits, contractions, multi-byte and astral characters,
/// the spellings of common special tokens, byte-fallback spellings, and text that a normalizer decomposes.
const char *const kTexts[] = {
    "",
    " ",
    "Hello world! Once upon a time, there was a little girl named Lily.",
    "  leading\n\n\ttabs   and  spaces \r\n",
    "1234567890 3.14159 don't I'll WE'VE",
    "日本語のテキスト, emoji 🙂👍🏽, Ünïcödé, e\xcc\x81 (e + U+0301), ﬁ Ⅻ",
    "<s></s><unk><|im_start|>user\nhi<|im_end|><|endoftext|><|begin_of_text|>",
    "<0x0A><0xFF>\xe2\x96\x81piece",
};
/// NULs inside the text (strlen would cut it).
const char kNulText[] = "a\0b\0\0c";

const uint32_t kFlagSets[] = {
    0,
    LLMC_ENCODE_FILE_DEFAULTS,
    LLMC_ENCODE_ADD_BOS | LLMC_ENCODE_ADD_EOS | LLMC_ENCODE_NO_SPACE_PREFIX,
    LLMC_ENCODE_PLAIN_SPECIAL,
};

void check_id(const llmc_tokenizer *tokenizer, int32_t id) {
  LLMC_FUZZ_CHECK(id >= 0 && id < llmc_tokenizer_vocab_size(tokenizer));
}

/// Decodes `ids` whole, piece by piece and streamed; all three must agree
/// on the bytes (the streamed form only holds back unfinished characters).
void decode_back(const llmc_tokenizer *tokenizer,
                 const std::vector<int32_t> &ids) {
  size_t len = 0;
  llmc_status measured = llmc_tokenizer_decode_all(
      tokenizer, ids.data(), ids.size(), nullptr, 0, &len);
  if (measured != LLMC_OK && measured != LLMC_ERR_BUFFER_TOO_SMALL)
    return;
  std::string whole(len, '\0');
  size_t written = 0;
  LLMC_FUZZ_CHECK(llmc_tokenizer_decode_all(tokenizer, ids.data(), ids.size(),
                                            whole.data(), whole.size(),
                                            &written) == LLMC_OK);
  LLMC_FUZZ_CHECK(written == len);

  std::string pieces;
  int32_t prev = -1;
  for (int32_t id : ids) {
    const char *piece = nullptr;
    size_t n = 0;
    LLMC_FUZZ_CHECK(llmc_tokenizer_decode(tokenizer, prev, id, &piece, &n) ==
                    LLMC_OK);
    pieces.append(piece, n);
    prev = id;
  }
  LLMC_FUZZ_CHECK(pieces == whole);

  llmc_detokenizer *stream = nullptr;
  LLMC_FUZZ_CHECK(llmc_detokenizer_create(tokenizer, &stream) == LLMC_OK);
  std::string streamed;
  for (int32_t id : ids) {
    const char *text = nullptr;
    size_t n = 0;
    LLMC_FUZZ_CHECK(llmc_detokenizer_push(stream, id, &text, &n) == LLMC_OK);
    streamed.append(text, n);
  }
  const char *rest = nullptr;
  size_t n_rest = 0;
  LLMC_FUZZ_CHECK(llmc_detokenizer_flush(stream, &rest, &n_rest) == LLMC_OK);
  streamed.append(rest, n_rest);
  llmc_detokenizer_destroy(stream);
  LLMC_FUZZ_CHECK(streamed == whole);
}

} // namespace

void encode_and_decode(const llmc_tokenizer *tokenizer, const char *text,
                       size_t len, uint32_t flags) {
  size_t needed = 0;
  llmc_status measured =
      llmc_tokenizer_encode(tokenizer, text, len, flags, nullptr, 0, &needed);
  if (measured != LLMC_OK && measured != LLMC_ERR_BUFFER_TOO_SMALL)
    return; // invalid UTF-8, or a file whose special tokens are missing
  std::vector<int32_t> ids(needed);
  size_t n = 0;
  LLMC_FUZZ_CHECK(llmc_tokenizer_encode(tokenizer, text, len, flags, ids.data(),
                                        ids.size(), &n) == LLMC_OK);
  LLMC_FUZZ_CHECK(n == needed);
  for (int32_t id : ids)
    check_id(tokenizer, id);
  decode_back(tokenizer, ids);
}

void walk_tokenizer(const llmc_tokenizer *tokenizer) {
  int32_t vocab = llmc_tokenizer_vocab_size(tokenizer);
  LLMC_FUZZ_CHECK(vocab > 0);
  for (int32_t special : {llmc_tokenizer_bos_id(tokenizer),
                          llmc_tokenizer_eos_id(tokenizer)})
    LLMC_FUZZ_CHECK(special == -1 || (special >= 0 && special < vocab));
  llmc_tokenizer_adds_bos(tokenizer);
  llmc_tokenizer_adds_eos(tokenizer);
  int32_t eog[LLMC_MAX_EOS_IDS];
  size_t n_eog = llmc_tokenizer_end_of_generation(tokenizer, eog, LLMC_MAX_EOS_IDS);
  for (size_t i = 0; i < std::min<size_t>(n_eog, LLMC_MAX_EOS_IDS); ++i)
    check_id(tokenizer, eog[i]);

  std::vector<int32_t> first_ids;
  for (int32_t id = 0; id < std::min(vocab, kMaxWalkedIds); ++id) {
    llmc_token_kind kind;
    LLMC_FUZZ_CHECK(llmc_tokenizer_token_kind(tokenizer, id, &kind) == LLMC_OK);
    const char *text = nullptr;
    size_t len = 0;
    LLMC_FUZZ_CHECK(llmc_tokenizer_token_text(tokenizer, id, &text, &len) ==
                    LLMC_OK);
    int32_t found = llmc_tokenizer_find_token(tokenizer, text, len);
    LLMC_FUZZ_CHECK(found >= -1 && found < vocab);
    first_ids.push_back(id);
  }
  llmc_token_kind kind;
  LLMC_FUZZ_CHECK(llmc_tokenizer_token_kind(tokenizer, vocab, &kind) != LLMC_OK);
  LLMC_FUZZ_CHECK(llmc_tokenizer_token_kind(tokenizer, -1, &kind) != LLMC_OK);
  decode_back(tokenizer, first_ids);

  // Each text under one flag set, in turn (all pairs would quadruple the
  // time of an execution for little more coverage).
  constexpr size_t kFlagSetCount = sizeof(kFlagSets) / sizeof(kFlagSets[0]);
  size_t turn = 0;
  for (const char *text : kTexts)
    encode_and_decode(tokenizer, text, std::strlen(text),
                      kFlagSets[turn++ % kFlagSetCount]);
  for (uint32_t flags : kFlagSets)
    encode_and_decode(tokenizer, kNulText, sizeof(kNulText) - 1, flags);
}

} // namespace llmc::fuzz
