// The Tokenizer: vocabulary, special tokens, encode (SentencePiece scores or ranked BPE merges) and decode.
#ifndef LLMC_RUNTIME_TOKENIZER_H
#define LLMC_RUNTIME_TOKENIZER_H

#include "tokenizer_pretokenize.h"
#include "unicode_normalize.h"
#include "weight_set.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llmc::rt {

/// GGUF's tokenizer.ggml.token_type numbering (also llmc_token_kind).
enum class TokenKind : uint8_t {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
};

/// How text becomes tokens once special tokens are cut out.
enum class TokenizerModel {
  /// llama / llama2.c: code points (bytes as <0xXX> fallback), then the
  /// adjacent pair whose concatenation scores highest merges first.
  SentencePieceScores,
  /// SentencePiece-style BPE from a tokenizer.json: the same initial
  /// symbols, but merged by merge rank (HF BPE with byte_fallback).
  SentencePieceRanks,
  /// GPT-2 style: regex pre-tokenizer, one symbol per byte, ranked merges.
  ByteLevel,
};

struct VocabEntry {
  /// The bytes the token stands for: SentencePiece pieces with ' ' for
  /// U+2581, byte-level pieces decoded to raw bytes, added tokens as written.
  std::string piece;
  /// The token's spelling in the file (what llmc_tokenizer_token_text gives).
  std::string text;
  float score = 0;
  TokenKind kind = TokenKind::Normal;
  uint8_t byte = 0; // the byte of a Byte token
};

/// Everything a loader decides; Tokenizer::init validates and indexes it.
struct TokenizerSpec {
  TokenizerModel model = TokenizerModel::SentencePieceScores;
  std::vector<VocabEntry> vocab;
  int32_t bos = -1, eos = -1, unk = -1;
  /// SentencePiece's dummy prefix (a space before the text and after each
  /// special token).
  bool add_space_prefix = true;
  /// HF Metaspace prepend_scheme "first": only the fragment at the start of
  /// the text gets the prefix, not those after a special token.
  bool prefix_first_only = false;
  /// HF Metaspace: no prefix for text that already starts with a space.
  bool prefix_unless_space = false;
  /// SentencePieceRanks (HF BPE): a code point missing from the vocabulary
  /// becomes its <0xXX> tokens when byte_fallback has them all, else one
  /// unknown token, and with fuse_unk a run of unknowns is one token.
  bool byte_fallback = true, fuse_unk = false;
  /// The file's defaults for LLMC_ENCODE_FILE_DEFAULTS.
  bool add_bos = false, add_eos = false;
  /// Ids that end a generation besides eos (eot, eom, ...).
  std::vector<int32_t> end_of_generation;
  /// Whether text spelling a control/user-defined token encodes to it.
  /// False only for llama2.c files, which mark no token as special.
  bool match_special = true;
  /// tokenizer.json's Unicode normalizers, applied to each fragment between
  /// special tokens before pre-tokenization (as HF does for added tokens
  /// that are not "normalized").
  UnicodeNormalizer normalizer;
  /// ByteLevel: the pre-tokenizer and whether a word that is a vocabulary
  /// entry skips merging.
  PreTokenizer pre;
  bool ignore_merges = false;
  /// Ranked models: merges as (left id, right id), best first.
  std::vector<std::pair<int32_t, int32_t>> merges;
  /// Context for error messages ("GGUF tokenizer", a file name).
  std::string origin;
};

/// Encode options (the LLMC_ENCODE_* flags, resolved).
struct EncodeOptions {
  bool add_bos = false, add_eos = false;
  bool space_prefix = true;
  bool parse_special = true;
};

/// Immutable after init(), hence thread-safe to share.
class Tokenizer {
public:
  void init(TokenizerSpec spec);

  int32_t vocab_size() const { return static_cast<int32_t>(vocab_.size()); }
  int32_t bos() const { return bos_; }
  int32_t eos() const { return eos_; }
  TokenizerModel model() const { return model_; }
  bool default_space_prefix() const { return add_space_prefix_; }
  bool default_add_bos() const { return add_bos_; }
  bool default_add_eos() const { return add_eos_; }
  const std::vector<int32_t> &end_of_generation() const { return eog_; }

  /// Throws LLMC_ERR_INVALID_ARGUMENT for text that is not valid UTF-8.
  void encode(std::string_view text, const EncodeOptions &opt,
              std::vector<int32_t> &out) const;

  /// Bytes of `token` after `prev` (see llmc_tokenizer_decode). Throws
  /// LLMC_ERR_OUT_OF_RANGE for a bad id.
  std::string_view decode(int32_t prev, int32_t token) const;

  const VocabEntry &entry(int32_t token) const; // range-checked
  /// Id whose file spelling is `text`, or -1.
  int32_t find(std::string_view text) const;

private:
  void encode_fragment(std::string_view text, bool space_prefix,
                       std::vector<int32_t> &out) const;
  void encode_scores(const std::string &text, std::vector<int32_t> &out) const;
  void initial_symbols(std::string_view text, std::vector<int32_t> &ids,
                       std::vector<bool> &mergeable) const;
  void merge_by_rank(std::vector<int32_t> &ids, const std::vector<bool> &mergeable) const;
  void emit_bytes(std::string_view bytes, std::vector<int32_t> &out) const;
  bool has_byte_tokens(std::string_view bytes) const;
  void emit_byte_level_word(const std::string &word, std::vector<int32_t> &out) const;

  TokenizerModel model_ = TokenizerModel::SentencePieceScores;
  std::vector<VocabEntry> vocab_;
  /// Pieces that take part in merges: normal and user-defined tokens only.
  /// Control, byte and unknown pieces never come out of a merge, as in
  /// SentencePiece (otherwise the text "<s>" could encode to BOS).
  std::unordered_map<std::string, int32_t> piece_to_id_;
  std::unordered_map<std::string, int32_t> text_to_id_;
  /// (left << 32 | right) -> (rank, merged id).
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges_;
  /// Special tokens that text can spell, longest first.
  std::vector<std::pair<std::string, int32_t>> special_;
  /// First bytes of special_ spellings: most positions are rejected at once.
  bool special_first_[256];
  int32_t byte_to_id_[256];
  int32_t bos_ = -1, eos_ = -1, unk_ = -1;
  bool add_space_prefix_ = true, add_bos_ = false, add_eos_ = false;
  bool prefix_first_only_ = false, prefix_unless_space_ = false;
  bool byte_fallback_ = true, fuse_unk_ = false;
  bool ignore_merges_ = false;
  std::vector<int32_t> eog_;
  PreTokenizer pre_;
  UnicodeNormalizer normalizer_;
  std::string origin_;
};

/// Parses "<0xXX>" (two hex digits); false for anything else.
bool parse_byte_piece(std::string_view piece, uint8_t *byte);

/// Loads a llama2.c tokenizer file (see llmc_tokenizer_load_llama2c).
void load_tokenizer_llama2c(const std::string &path, int32_t vocab_size,
                            Tokenizer &tok);
/// Builds a tokenizer from tokenizer.ggml.* metadata.
void load_tokenizer_gguf(const WeightSet &weights, Tokenizer &tok);
/// A tokenizer.json file, or a model directory holding tokenizer.json and
/// (optionally) tokenizer_config.json.
void load_tokenizer_hf(const std::string &path, Tokenizer &tok);
/// A GGUF file, a tokenizer.json file or a model directory.
void load_tokenizer_path(const std::string &path, Tokenizer &tok);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_TOKENIZER_H
