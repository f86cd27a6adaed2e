// Tokenizer vocabularies from llama2.c tok*.bin files and from GGUF tokenizer.ggml.* metadata.
#include "tokenizer.h"

#include "byte_reader.h"
#include "error.h"
#include "mapped_file.h"

namespace llmc::rt {

namespace {

/// llama2.c hardcodes these ids (run.c: BOS = 1, EOS = 2) and writes token 0
/// as "<unk>".
constexpr int32_t kLlama2cUnk = 0;
constexpr int32_t kLlama2cBos = 1;
constexpr int32_t kLlama2cEos = 2;
/// Smallest token record in a llama2.c tokenizer file: f32 score + i32 length.
constexpr uint64_t kLlama2cMinRecord = 8;
/// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
constexpr std::string_view kSpMetaSpace = "\xe2\x96\x81";
/// llama.cpp's converter writes an absent special token id as uint32 -1.
constexpr int64_t kNoTokenU32 = 0xFFFFFFFFll;

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

} // namespace

void load_tokenizer_llama2c(const std::string &path, int32_t vocab_size,
                            Tokenizer &tok) {
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  std::string ctx = path + ": llama2.c tokenizer";
  ByteReader r(file->data(), file->size(), ctx);
  if (vocab_size < 0)
    fail(LLMC_ERR_INVALID_ARGUMENT, ctx, ": negative vocab_size ", vocab_size);
  int32_t max_len = r.read<int32_t>("max_token_length");
  if (max_len < 0)
    fail(LLMC_ERR_FORMAT, ctx, ": negative max_token_length ", max_len);

  std::vector<VocabEntry> vocab;
  if (vocab_size > 0) {
    if (static_cast<uint64_t>(vocab_size) > r.remaining() / kLlama2cMinRecord)
      fail(LLMC_ERR_FORMAT, ctx, ": file of ", file->size(),
           " bytes is too short for ", vocab_size, " tokens");
    vocab.reserve(vocab_size);
  }
  while (vocab_size > 0 ? vocab.size() < static_cast<size_t>(vocab_size)
                        : r.remaining() > 0) {
    VocabEntry e;
    e.score = r.read<float>("token score");
    int32_t len = r.read<int32_t>("token length");
    if (len < 0)
      fail(LLMC_ERR_FORMAT, ctx, ": token ", vocab.size(), " has negative length ",
           len);
    e.piece = std::string(r.read_bytes(static_cast<uint64_t>(len), "token bytes"));
    vocab.push_back(std::move(e));
  }
  if (r.remaining() > 0)
    fail(LLMC_ERR_FORMAT, ctx, ": ", r.remaining(), " bytes left after ",
         vocab_size, " tokens (tokenizer does not match the model's vocab size?)");
  if (vocab.empty())
    fail(LLMC_ERR_FORMAT, ctx, ": no tokens");

  int32_t n = static_cast<int32_t>(vocab.size());
  for (int32_t id = 0; id < n; ++id) {
    VocabEntry &e = vocab[id];
    if (parse_byte_piece(e.piece, &e.byte))
      e.kind = TokenKind::Byte;
    else if (id == kLlama2cBos || id == kLlama2cEos)
      e.kind = TokenKind::Control;
    else if (id == kLlama2cUnk && e.piece == "<unk>")
      e.kind = TokenKind::Unknown;
  }
  int32_t unk = n > kLlama2cUnk && vocab[kLlama2cUnk].kind == TokenKind::Unknown
                    ? kLlama2cUnk : -1;
  tok.set_vocab(std::move(vocab), n > kLlama2cBos ? kLlama2cBos : -1,
                n > kLlama2cEos ? kLlama2cEos : -1, unk, true);
}

void load_tokenizer_gguf(const WeightSet &w, Tokenizer &tok) {
  const char *ctx = "GGUF tokenizer";
  if (const MetaValue *model = w.find_meta("tokenizer.ggml.model")) {
    std::string_view m = meta_as_string(*model, "tokenizer.ggml.model");
    if (m != "llama")
      fail(LLMC_ERR_UNSUPPORTED, ctx, ": tokenizer model '", m,
           "' is not supported (only SentencePiece 'llama')");
  }
  const MetaValue *tokens = w.find_meta("tokenizer.ggml.tokens");
  if (!tokens)
    fail(LLMC_ERR_NOT_FOUND, ctx,
         ": the weights have no tokenizer.ggml.tokens (load a tokenizer file "
         "instead)");
  if (tokens->type != LLMC_META_ARRAY || tokens->elem_type != LLMC_META_STRING)
    fail(LLMC_ERR_FORMAT, ctx, ": tokenizer.ggml.tokens is not a string array");
  uint64_t n = tokens->count;
  if (n == 0 || n > static_cast<uint64_t>(INT32_MAX))
    fail(LLMC_ERR_FORMAT, ctx, ": vocabulary size ", n, " is not usable");

  const MetaValue *scores = w.find_meta("tokenizer.ggml.scores");
  if (!scores)
    fail(LLMC_ERR_FORMAT, ctx, ": missing tokenizer.ggml.scores (BPE merges need them)");
  if (scores->type != LLMC_META_ARRAY || scores->count != n)
    fail(LLMC_ERR_FORMAT, ctx, ": tokenizer.ggml.scores must be an array of ", n,
         " numbers");
  const MetaValue *types = w.find_meta("tokenizer.ggml.token_type");
  if (types && (types->type != LLMC_META_ARRAY || types->count != n))
    fail(LLMC_ERR_FORMAT, ctx, ": tokenizer.ggml.token_type must be an array of ",
         n, " integers");

  auto id_key = [&](const char *key) -> int32_t {
    const MetaValue *v = w.find_meta(key);
    if (!v)
      return -1;
    int64_t id = meta_as_int(*v, key);
    // llama.cpp writes 0xFFFFFFFF (as uint32) for "no such token".
    if (id == kNoTokenU32 || id == -1)
      return -1;
    if (id < 0 || id >= static_cast<int64_t>(n))
      fail(LLMC_ERR_FORMAT, ctx, ": ", key, " = ", id,
           " out of range (vocab size ", n, ")");
    return static_cast<int32_t>(id);
  };
  int32_t bos = id_key("tokenizer.ggml.bos_token_id");
  int32_t eos = id_key("tokenizer.ggml.eos_token_id");
  int32_t unk = id_key("tokenizer.ggml.unknown_token_id");
  bool space_prefix = true;
  if (const MetaValue *v = w.find_meta("tokenizer.ggml.add_space_prefix"))
    space_prefix = meta_as_int(*v, "tokenizer.ggml.add_space_prefix") != 0;

  std::vector<VocabEntry> vocab(n);
  for (uint64_t id = 0; id < n; ++id) {
    VocabEntry &e = vocab[id];
    e.piece = from_sentencepiece(tokens->strings[id]);
    e.score = static_cast<float>(
        meta_as_float(meta_array_element(*scores, id, "tokenizer.ggml.scores"),
                      "tokenizer.ggml.scores"));
    if (types) {
      int64_t t = meta_as_int(meta_array_element(*types, id, "tokenizer.ggml.token_type"),
                              "tokenizer.ggml.token_type");
      if (t < static_cast<int64_t>(TokenKind::Normal) ||
          t > static_cast<int64_t>(TokenKind::Byte))
        fail(LLMC_ERR_FORMAT, ctx, ": token ", id, " has unknown token type ", t);
      e.kind = static_cast<TokenKind>(t);
      if (e.kind == TokenKind::Byte && !parse_byte_piece(e.piece, &e.byte))
        fail(LLMC_ERR_FORMAT, ctx, ": byte token ", id, " is '", e.piece,
             "', not <0xXX>");
    } else if (parse_byte_piece(e.piece, &e.byte)) {
      e.kind = TokenKind::Byte;
    } else if (static_cast<int32_t>(id) == bos || static_cast<int32_t>(id) == eos) {
      e.kind = TokenKind::Control;
    } else if (static_cast<int32_t>(id) == unk) {
      e.kind = TokenKind::Unknown;
    }
  }
  tok.set_vocab(std::move(vocab), bos, eos, unk, space_prefix);
}

} // namespace llmc::rt
