// extern "C" llmc_tokenizer_* entry points over Tokenizer.
#include "api_guard.h"
#include "handles.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_stream.h"

#include <cstring>
#include <memory>

using namespace llmc::rt;

struct llmc_detokenizer {
  explicit llmc_detokenizer(const Tokenizer &tok) : stream(tok) {}
  DetokenizerStream stream;
};

extern "C" {

llmc_status llmc_tokenizer_load_llama2c(const char *path, int32_t vocab_size,
                                        llmc_tokenizer **out) {
  return guarded([&] {
    require(path, "llmc_tokenizer_load_llama2c", "path");
    require(out, "llmc_tokenizer_load_llama2c", "out");
    auto t = std::make_unique<llmc_tokenizer>();
    load_tokenizer_llama2c(path, vocab_size, t->tok);
    *out = t.release();
  });
}

llmc_status llmc_tokenizer_load(const char *path, llmc_tokenizer **out) {
  return guarded([&] {
    require(path, "llmc_tokenizer_load", "path");
    require(out, "llmc_tokenizer_load", "out");
    auto t = std::make_unique<llmc_tokenizer>();
    load_tokenizer_path(path, t->tok);
    *out = t.release();
  });
}

llmc_status llmc_tokenizer_from_weights(const llmc_weights *weights,
                                        llmc_tokenizer **out) {
  return guarded([&] {
    require(weights, "llmc_tokenizer_from_weights", "weights");
    require(out, "llmc_tokenizer_from_weights", "out");
    auto t = std::make_unique<llmc_tokenizer>();
    load_tokenizer_gguf(weights->set, t->tok);
    *out = t.release();
  });
}

void llmc_tokenizer_destroy(llmc_tokenizer *tokenizer) { delete tokenizer; }

int32_t llmc_tokenizer_vocab_size(const llmc_tokenizer *tokenizer) {
  return tokenizer ? tokenizer->tok.vocab_size() : 0;
}
int32_t llmc_tokenizer_bos_id(const llmc_tokenizer *tokenizer) {
  return tokenizer ? tokenizer->tok.bos() : -1;
}
int32_t llmc_tokenizer_eos_id(const llmc_tokenizer *tokenizer) {
  return tokenizer ? tokenizer->tok.eos() : -1;
}

int llmc_tokenizer_adds_bos(const llmc_tokenizer *tokenizer) {
  return tokenizer ? tokenizer->tok.default_add_bos() : 0;
}
int llmc_tokenizer_adds_eos(const llmc_tokenizer *tokenizer) {
  return tokenizer ? tokenizer->tok.default_add_eos() : 0;
}

size_t llmc_tokenizer_end_of_generation(const llmc_tokenizer *tokenizer,
                                        int32_t *ids, size_t capacity) {
  if (!tokenizer)
    return 0;
  const std::vector<int32_t> &eog = tokenizer->tok.end_of_generation();
  for (size_t i = 0; i < eog.size() && i < capacity && ids; ++i)
    ids[i] = eog[i];
  return eog.size();
}

llmc_status llmc_tokenizer_token_kind(const llmc_tokenizer *tokenizer,
                                      int32_t token, llmc_token_kind *kind) {
  return guarded([&] {
    require(tokenizer, "llmc_tokenizer_token_kind", "tokenizer");
    require(kind, "llmc_tokenizer_token_kind", "kind");
    *kind = static_cast<llmc_token_kind>(tokenizer->tok.entry(token).kind);
  });
}

llmc_status llmc_tokenizer_token_text(const llmc_tokenizer *tokenizer,
                                      int32_t token, const char **text,
                                      size_t *len) {
  return guarded([&] {
    require(tokenizer, "llmc_tokenizer_token_text", "tokenizer");
    require(text, "llmc_tokenizer_token_text", "text");
    require(len, "llmc_tokenizer_token_text", "len");
    const std::string &t = tokenizer->tok.entry(token).text;
    *text = t.data();
    *len = t.size();
  });
}

int32_t llmc_tokenizer_find_token(const llmc_tokenizer *tokenizer,
                                  const char *text, size_t len) {
  if (!tokenizer || (!text && len))
    return -1;
  return tokenizer->tok.find(std::string_view(text ? text : "", len));
}

llmc_status llmc_tokenizer_encode(const llmc_tokenizer *tokenizer,
                                  const char *text, size_t len, uint32_t flags,
                                  int32_t *tokens, size_t capacity,
                                  size_t *n_tokens) {
  return guarded([&] {
    require(tokenizer, "llmc_tokenizer_encode", "tokenizer");
    require(n_tokens, "llmc_tokenizer_encode", "n_tokens");
    if (len > 0)
      require(text, "llmc_tokenizer_encode", "text");
    const Tokenizer &t = tokenizer->tok;
    EncodeOptions opt;
    opt.space_prefix = t.default_space_prefix() && !(flags & LLMC_ENCODE_NO_SPACE_PREFIX);
    opt.parse_special = !(flags & LLMC_ENCODE_PLAIN_SPECIAL);
    bool defaults = flags & LLMC_ENCODE_FILE_DEFAULTS;
    opt.add_bos = (flags & LLMC_ENCODE_ADD_BOS) || (defaults && t.default_add_bos());
    opt.add_eos = (flags & LLMC_ENCODE_ADD_EOS) || (defaults && t.default_add_eos());
    std::vector<int32_t> ids;
    t.encode(std::string_view(text ? text : "", len), opt, ids);
    *n_tokens = ids.size();
    if (capacity < ids.size())
      fail(LLMC_ERR_BUFFER_TOO_SMALL, "llmc_tokenizer_encode: ", ids.size(),
           " tokens do not fit in a buffer of ", capacity);
    if (!ids.empty()) {
      require(tokens, "llmc_tokenizer_encode", "tokens");
      std::memcpy(tokens, ids.data(), ids.size() * sizeof(int32_t));
    }
  });
}

llmc_status llmc_tokenizer_decode(const llmc_tokenizer *tokenizer,
                                  int32_t prev_token, int32_t token,
                                  const char **piece, size_t *len) {
  return guarded([&] {
    require(tokenizer, "llmc_tokenizer_decode", "tokenizer");
    require(piece, "llmc_tokenizer_decode", "piece");
    require(len, "llmc_tokenizer_decode", "len");
    std::string_view p = tokenizer->tok.decode(prev_token, token);
    *piece = p.data();
    *len = p.size();
  });
}

llmc_status llmc_tokenizer_decode_all(const llmc_tokenizer *tokenizer,
                                      const int32_t *tokens, size_t n_tokens,
                                      char *buf, size_t capacity, size_t *len) {
  return guarded([&] {
    require(tokenizer, "llmc_tokenizer_decode_all", "tokenizer");
    require(len, "llmc_tokenizer_decode_all", "len");
    if (n_tokens > 0)
      require(tokens, "llmc_tokenizer_decode_all", "tokens");
    size_t total = 0;
    for (size_t i = 0; i < n_tokens; ++i)
      total += tokenizer->tok.decode(i ? tokens[i - 1] : -1, tokens[i]).size();
    *len = total;
    if (capacity < total)
      fail(LLMC_ERR_BUFFER_TOO_SMALL, "llmc_tokenizer_decode_all: ", total,
           " bytes do not fit in a buffer of ", capacity);
    if (total > 0)
      require(buf, "llmc_tokenizer_decode_all", "buf");
    size_t at = 0;
    for (size_t i = 0; i < n_tokens; ++i) {
      std::string_view p = tokenizer->tok.decode(i ? tokens[i - 1] : -1, tokens[i]);
      if (!p.empty())
        std::memcpy(buf + at, p.data(), p.size());
      at += p.size();
    }
  });
}

llmc_status llmc_detokenizer_create(const llmc_tokenizer *tokenizer,
                                    llmc_detokenizer **out) {
  return guarded([&] {
    require(tokenizer, "llmc_detokenizer_create", "tokenizer");
    require(out, "llmc_detokenizer_create", "out");
    *out = new llmc_detokenizer(tokenizer->tok);
  });
}

void llmc_detokenizer_destroy(llmc_detokenizer *detokenizer) { delete detokenizer; }

llmc_status llmc_detokenizer_push(llmc_detokenizer *detokenizer, int32_t token,
                                  const char **text, size_t *len) {
  return guarded([&] {
    require(detokenizer, "llmc_detokenizer_push", "detokenizer");
    require(text, "llmc_detokenizer_push", "text");
    require(len, "llmc_detokenizer_push", "len");
    std::string_view s = detokenizer->stream.push(token);
    *text = s.data();
    *len = s.size();
  });
}

llmc_status llmc_detokenizer_flush(llmc_detokenizer *detokenizer,
                                   const char **text, size_t *len) {
  return guarded([&] {
    require(detokenizer, "llmc_detokenizer_flush", "detokenizer");
    require(text, "llmc_detokenizer_flush", "text");
    require(len, "llmc_detokenizer_flush", "len");
    std::string_view s = detokenizer->stream.flush();
    *text = s.data();
    *len = s.size();
  });
}

} // extern "C"
