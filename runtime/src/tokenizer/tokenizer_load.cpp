// Tokenizer sources: llama2.c tok*.bin files, and the dispatch of a path to the GGUF or tokenizer.json loader.
#include "tokenizer.h"

#include "byte_reader.h"
#include "error.h"
#include "mapped_file.h"
#include "weights_open.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace llmc::rt {

namespace {

/// llama2.c hardcodes these ids (run.c: BOS = 1, EOS = 2) and writes token 0
/// as "<unk>".
constexpr int32_t kLlama2cUnk = 0;
constexpr int32_t kLlama2cBos = 1;
constexpr int32_t kLlama2cEos = 2;
/// Smallest token record in a llama2.c tokenizer file: f32 score + i32 length.
constexpr uint64_t kLlama2cMinRecord = 8;
/// GGUF files start with these four bytes.
constexpr std::string_view kGgufMagic = "GGUF";

bool ends_with(const std::string &s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
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

  TokenizerSpec spec;
  std::vector<VocabEntry> &vocab = spec.vocab;
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
    e.text = e.piece;
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
  spec.unk = n > kLlama2cUnk && vocab[kLlama2cUnk].kind == TokenKind::Unknown
                 ? kLlama2cUnk : -1;
  spec.bos = n > kLlama2cBos ? kLlama2cBos : -1;
  spec.eos = n > kLlama2cEos ? kLlama2cEos : -1;
  spec.add_bos = spec.bos >= 0; // llama2.c's run.c always starts with BOS
  spec.add_space_prefix = true;
  // llama2.c marks no token as special: its text never spells one.
  spec.match_special = false;
  spec.origin = ctx;
  tok.init(std::move(spec));
}

void load_tokenizer_path(const std::string &path, Tokenizer &tok) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail(LLMC_ERR_IO, path, ": cannot open: ", std::strerror(errno));
  if (S_ISDIR(st.st_mode) || ends_with(path, ".json")) {
    load_tokenizer_hf(path, tok);
    return;
  }
  std::shared_ptr<MappedFile> file = MappedFile::open(path);
  std::string_view head(reinterpret_cast<const char *>(file->data()),
                        std::min<size_t>(file->size(), kGgufMagic.size()));
  if (head != kGgufMagic)
    fail(LLMC_ERR_FORMAT, path,
         ": not a tokenizer source (expected a GGUF file, a tokenizer.json or a "
         "model directory; llama2.c tok*.bin files load with "
         "llmc_tokenizer_load_llama2c)");
  WeightSet weights;
  open_weights(path, LLMC_WEIGHTS_GGUF, weights);
  load_tokenizer_gguf(weights, tok);
}

} // namespace llmc::rt
