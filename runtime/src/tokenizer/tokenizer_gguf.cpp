// Tokenizers from GGUF tokenizer.ggml.* metadata: SentencePiece ("llama") and byte-level BPE ("gpt2").
#include "tokenizer.h"

#include "byte_level.h"
#include "error.h"
#include "tokenizer_merges.h"

namespace llmc::rt {

namespace {

/// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
constexpr std::string_view kSpMetaSpace = "\xe2\x96\x81";
/// llama.cpp's converter writes an absent special token id as uint32 -1.
constexpr int64_t kNoTokenU32 = 0xFFFFFFFFll;
constexpr const char *kCtx = "GGUF tokenizer";

std::string from_sentencepiece(std::string_view piece) {
  std::string out;
  out.reserve(piece.size());
  for (size_t i = 0; i < piece.size();) {
    if (piece.substr(i, kSpMetaSpace.size()) == kSpMetaSpace) {
      out.push_back(' ');
      i += kSpMetaSpace.size();
    } else {
      out.push_back(piece[i++]);
    }
  }
  return out;
}

const MetaValue *string_array(const WeightSet &w, const char *key, uint64_t n) {
  const MetaValue *v = w.find_meta(key);
  if (v && (v->type != LLMC_META_ARRAY || v->elem_type != LLMC_META_STRING ||
            (n && v->count != n)))
    fail(LLMC_ERR_FORMAT, kCtx, ": ", key, " must be an array of ",
         n ? std::to_string(n) + " " : std::string(), "strings");
  return v;
}

bool flag(const WeightSet &w, const char *key, bool fallback) {
  const MetaValue *v = w.find_meta(key);
  return v ? meta_as_int(*v, key) != 0 : fallback;
}

} // namespace

void load_tokenizer_gguf(const WeightSet &w, Tokenizer &tok) {
  TokenizerSpec spec;
  spec.origin = kCtx;
  std::string_view model = "llama"; // files before the key existed were llama
  if (const MetaValue *m = w.find_meta("tokenizer.ggml.model"))
    model = meta_as_string(*m, "tokenizer.ggml.model");
  if (model == "gpt2")
    spec.model = TokenizerModel::ByteLevel;
  else if (model != "llama")
    fail(LLMC_ERR_UNSUPPORTED, kCtx, ": tokenizer model '", model,
         "' (tokenizer.ggml.model) is not supported (supported: 'llama' "
         "SentencePiece, 'gpt2' byte-level BPE)");
  bool byte_level = spec.model == TokenizerModel::ByteLevel;

  const MetaValue *tokens = w.find_meta("tokenizer.ggml.tokens");
  if (!tokens)
    fail(LLMC_ERR_NOT_FOUND, kCtx,
         ": the weights have no tokenizer.ggml.tokens (load a tokenizer file "
         "instead)");
  if (tokens->type != LLMC_META_ARRAY || tokens->elem_type != LLMC_META_STRING)
    fail(LLMC_ERR_FORMAT, kCtx, ": tokenizer.ggml.tokens is not a string array");
  uint64_t n = tokens->count;
  if (n == 0 || n > static_cast<uint64_t>(INT32_MAX))
    fail(LLMC_ERR_FORMAT, kCtx, ": vocabulary size ", n, " is not usable");

  const MetaValue *scores = w.find_meta("tokenizer.ggml.scores");
  if (!byte_level && !scores)
    fail(LLMC_ERR_FORMAT, kCtx, ": missing tokenizer.ggml.scores (BPE merges need them)");
  if (scores && (scores->type != LLMC_META_ARRAY || scores->count != n))
    fail(LLMC_ERR_FORMAT, kCtx, ": tokenizer.ggml.scores must be an array of ", n,
         " numbers");
  const MetaValue *types = w.find_meta("tokenizer.ggml.token_type");
  if (types && (types->type != LLMC_META_ARRAY || types->count != n))
    fail(LLMC_ERR_FORMAT, kCtx, ": tokenizer.ggml.token_type must be an array of ",
         n, " integers");

  auto id_key = [&](const char *key) -> int32_t {
    const MetaValue *v = w.find_meta(key);
    if (!v)
      return -1;
    int64_t id = meta_as_int(*v, key);
    if (id == kNoTokenU32 || id == -1)
      return -1;
    if (id < 0 || id >= static_cast<int64_t>(n))
      fail(LLMC_ERR_FORMAT, kCtx, ": ", key, " = ", id,
           " out of range (vocab size ", n, ")");
    return static_cast<int32_t>(id);
  };
  spec.bos = id_key("tokenizer.ggml.bos_token_id");
  spec.eos = id_key("tokenizer.ggml.eos_token_id");
  spec.unk = id_key("tokenizer.ggml.unknown_token_id");
  for (const char *key : {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"})
    if (int32_t id = id_key(key); id >= 0)
      spec.end_of_generation.push_back(id);
  spec.add_space_prefix = flag(w, "tokenizer.ggml.add_space_prefix", !byte_level);

  PreTokenizerPreset preset;
  if (byte_level) {
    const MetaValue *pre = w.find_meta("tokenizer.ggml.pre");
    if (!pre)
      fail(LLMC_ERR_FORMAT, kCtx, ": byte-level BPE without tokenizer.ggml.pre "
           "(the pre-tokenizer decides how text splits; llmc does not guess it)");
    preset = pre_tokenizer_for_gguf(meta_as_string(*pre, "tokenizer.ggml.pre"));
    spec.pre = std::move(preset.pre);
    spec.ignore_merges = preset.ignore_merges;
  }
  // llama.cpp's defaults: SentencePiece adds BOS; byte-level as the
  // pre-tokenizer's family does (Llama 3, tekken); the file's key wins.
  spec.add_bos = flag(w, "tokenizer.ggml.add_bos_token", byte_level ? preset.add_bos : true);
  spec.add_eos = flag(w, "tokenizer.ggml.add_eos_token", false);
  if (spec.add_bos && spec.bos < 0 && !w.find_meta("tokenizer.ggml.add_bos_token"))
    spec.add_bos = false; // a default, not a request: nothing to add

  std::vector<VocabEntry> &vocab = spec.vocab;
  vocab.resize(n);
  for (uint64_t id = 0; id < n; ++id) {
    VocabEntry &e = vocab[id];
    e.text = std::string(tokens->strings[id]);
    if (scores)
      e.score = static_cast<float>(
          meta_as_float(meta_array_element(*scores, id, "tokenizer.ggml.scores"),
                        "tokenizer.ggml.scores"));
    int32_t sid = static_cast<int32_t>(id);
    if (types) {
      int64_t t = meta_as_int(meta_array_element(*types, id, "tokenizer.ggml.token_type"),
                              "tokenizer.ggml.token_type");
      if (t < static_cast<int64_t>(TokenKind::Normal) ||
          t > static_cast<int64_t>(TokenKind::Byte))
        fail(LLMC_ERR_FORMAT, kCtx, ": token ", id, " has unknown token type ", t);
      e.kind = static_cast<TokenKind>(t);
    } else if (!byte_level && parse_byte_piece(e.text, &e.byte)) {
      e.kind = TokenKind::Byte;
    } else if (sid == spec.bos || sid == spec.eos) {
      e.kind = TokenKind::Control;
    } else if (sid == spec.unk) {
      e.kind = TokenKind::Unknown;
    }
    if (byte_level) {
      if (e.kind == TokenKind::Normal) {
        if (!byte_level_decode(e.text, e.piece))
          fail(LLMC_ERR_FORMAT, kCtx, ": token ", id, " '", e.text,
               "' is a normal token but not spelled in the byte-level alphabet");
      } else {
        e.piece = e.text; // added tokens are stored as written
      }
    } else {
      e.piece = from_sentencepiece(e.text);
      if (e.kind == TokenKind::Byte && !parse_byte_piece(e.piece, &e.byte))
        fail(LLMC_ERR_FORMAT, kCtx, ": byte token ", id, " is '", e.piece,
             "', not <0xXX>");
    }
  }

  if (byte_level) {
    const MetaValue *merges = string_array(w, "tokenizer.ggml.merges", 0);
    if (!merges)
      fail(LLMC_ERR_FORMAT, kCtx, ": byte-level BPE without tokenizer.ggml.merges");
    MergeResolver resolve(vocab, cat(kCtx, ": tokenizer.ggml.merges"));
    spec.merges.reserve(merges->count);
    for (uint64_t i = 0; i < merges->count; ++i)
      spec.merges.push_back(resolve.from_string(merges->strings[i], i));
  }
  tok.init(std::move(spec));
}

} // namespace llmc::rt
