// SentencePiece-style BPE tokenizer with scores: vocabulary, encode and decode.
#ifndef LLMC_RUNTIME_TOKENIZER_H
#define LLMC_RUNTIME_TOKENIZER_H

#include "weight_set.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llmc::rt {

/// GGUF's tokenizer.ggml.token_type numbering.
enum class TokenKind : uint8_t {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
};

struct VocabEntry {
  std::string piece; // spaces as ' ' (GGUF's U+2581 is translated at load)
  float score = 0;
  TokenKind kind = TokenKind::Normal;
  uint8_t byte = 0; // the byte of a Byte token
};

/// The llama/llama2.c tokenizer: text is split into UTF-8 code points
/// (unknown ones become byte tokens <0xXX>), then the adjacent pair whose
/// concatenation is the highest-scoring vocabulary piece is merged
/// repeatedly (ties: leftmost pair), exactly the rule of llama2.c's encode.
/// Immutable after set_vocab(), hence thread-safe to share.
class Tokenizer {
public:
  /// Installs a vocabulary and builds the lookup tables; validates ids.
  void set_vocab(std::vector<VocabEntry> vocab, int32_t bos, int32_t eos,
                 int32_t unk, bool add_space_prefix);

  int32_t vocab_size() const { return static_cast<int32_t>(vocab_.size()); }
  int32_t bos() const { return bos_; }
  int32_t eos() const { return eos_; }

  void encode(std::string_view text, bool add_bos, bool space_prefix,
              std::vector<int32_t> &out) const;
  bool default_space_prefix() const { return add_space_prefix_; }

  /// Bytes of `token` after `prev` (see llmc_tokenizer_decode). Throws
  /// LLMC_ERR_OUT_OF_RANGE for a bad id.
  std::string_view decode(int32_t prev, int32_t token) const;

private:
  void emit_bytes(std::string_view bytes, std::vector<int32_t> &out) const;

  std::vector<VocabEntry> vocab_;
  /// Pieces that take part in merges: normal and user-defined tokens only.
  /// Control, byte and unknown pieces never come out of a merge, as in
  /// SentencePiece (otherwise the text "<s>" could encode to BOS).
  std::unordered_map<std::string, int32_t> piece_to_id_;
  int32_t byte_to_id_[256];
  int32_t bos_ = -1, eos_ = -1, unk_ = -1;
  bool add_space_prefix_ = true;
};

/// Parses "<0xXX>" (two hex digits); false for anything else.
bool parse_byte_piece(std::string_view piece, uint8_t *byte);

/// Loads a llama2.c tokenizer file (see llmc_tokenizer_load_llama2c).
void load_tokenizer_llama2c(const std::string &path, int32_t vocab_size,
                            Tokenizer &tok);
/// Builds a tokenizer from tokenizer.ggml.* metadata.
void load_tokenizer_gguf(const WeightSet &weights, Tokenizer &tok);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_TOKENIZER_H
