// Tokenizer set-up (validation, lookup tables), special-token matching, encode dispatch and decode.
#include "tokenizer.h"

#include "error.h"
#include "utf8.h"

#include <algorithm>

namespace llmc::rt {

namespace {

/// Raw bytes for byte tokens, so decode can return a view for every token.
struct ByteTable {
  char bytes[256];
  ByteTable() {
    for (int i = 0; i < 256; ++i)
      bytes[i] = static_cast<char>(i);
  }
};
const ByteTable kByteTable;

bool text_can_spell(TokenKind k) {
  return k == TokenKind::Control || k == TokenKind::UserDefined ||
         k == TokenKind::Unknown;
}

} // namespace

void Tokenizer::init(TokenizerSpec spec) {
  int32_t n = static_cast<int32_t>(spec.vocab.size());
  const std::string &ctx = spec.origin;
  auto check = [&](int32_t id, const char *what) {
    if (id < -1 || id >= n)
      fail(LLMC_ERR_FORMAT, ctx, ": ", what, " id ", id,
           " out of range (vocab size ", n, ")");
  };
  check(spec.bos, "BOS");
  check(spec.eos, "EOS");
  check(spec.unk, "unknown-token");
  if (spec.add_bos && spec.bos < 0)
    fail(LLMC_ERR_FORMAT, ctx, ": the file asks for a BOS token (add_bos) but names none");
  if (spec.add_eos && spec.eos < 0)
    fail(LLMC_ERR_FORMAT, ctx, ": the file asks for an EOS token (add_eos) but names none");
  model_ = spec.model;
  vocab_ = std::move(spec.vocab);
  bos_ = spec.bos;
  eos_ = spec.eos;
  unk_ = spec.unk;
  add_space_prefix_ = spec.add_space_prefix && model_ != TokenizerModel::ByteLevel;
  prefix_first_only_ = spec.prefix_first_only;
  prefix_unless_space_ = spec.prefix_unless_space;
  byte_fallback_ = spec.byte_fallback;
  fuse_unk_ = spec.fuse_unk;
  add_bos_ = spec.add_bos;
  add_eos_ = spec.add_eos;
  ignore_merges_ = spec.ignore_merges;
  pre_ = std::move(spec.pre);
  normalizer_ = std::move(spec.normalizer);
  origin_ = ctx;
  eog_.clear();
  if (eos_ >= 0)
    eog_.push_back(eos_);
  for (int32_t id : spec.end_of_generation) {
    check(id, "end-of-generation");
    if (id >= 0 && std::find(eog_.begin(), eog_.end(), id) == eog_.end())
      eog_.push_back(id);
  }

  for (int32_t &id : byte_to_id_)
    id = -1;
  piece_to_id_.clear();
  piece_to_id_.reserve(vocab_.size());
  text_to_id_.clear();
  text_to_id_.reserve(vocab_.size());
  special_.clear();
  for (int32_t id = 0; id < n; ++id) {
    const VocabEntry &e = vocab_[id];
    text_to_id_.emplace(e.text, id); // first id wins for duplicates
    if (spec.match_special && text_can_spell(e.kind) && !e.text.empty())
      special_.emplace_back(e.text, id);
    if (model_ == TokenizerModel::ByteLevel) {
      if (e.kind == TokenKind::Normal || e.kind == TokenKind::UserDefined) {
        piece_to_id_.emplace(e.piece, id);
        if (e.kind == TokenKind::Normal && e.piece.size() == 1 &&
            byte_to_id_[static_cast<uint8_t>(e.piece[0])] < 0)
          byte_to_id_[static_cast<uint8_t>(e.piece[0])] = id;
      }
    } else if (e.kind == TokenKind::Byte) {
      if (byte_to_id_[e.byte] < 0)
        byte_to_id_[e.byte] = id;
    } else if (e.kind == TokenKind::Normal || e.kind == TokenKind::UserDefined) {
      piece_to_id_.emplace(e.piece, id);
    }
  }
  for (bool &b : special_first_)
    b = false;
  for (const auto &sp : special_)
    special_first_[static_cast<uint8_t>(sp.first[0])] = true;
  // Longest first, so that "<|im_start|>" wins over a shorter prefix.
  std::stable_sort(special_.begin(), special_.end(),
                   [](const auto &a, const auto &b) { return a.first.size() > b.first.size(); });

  merges_.clear();
  merges_.reserve(spec.merges.size());
  for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
    auto [l, r] = spec.merges[rank];
    const std::string joined = vocab_[l].piece + vocab_[r].piece;
    auto it = piece_to_id_.find(joined);
    if (it == piece_to_id_.end())
      fail(LLMC_ERR_FORMAT, ctx, ": merge ", rank, " ('", vocab_[l].text, "' + '",
           vocab_[r].text, "') makes '", vocab_[l].text + vocab_[r].text, "', which is not in the vocabulary");
    uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(l)) << 32) | static_cast<uint32_t>(r);
    merges_.emplace(key, std::make_pair(static_cast<int32_t>(rank), it->second));
  }
}

const VocabEntry &Tokenizer::entry(int32_t token) const {
  if (token < 0 || token >= vocab_size())
    fail(LLMC_ERR_OUT_OF_RANGE, "tokenizer: token id ", token,
         " out of range (vocab size ", vocab_size(), ")");
  return vocab_[token];
}

int32_t Tokenizer::find(std::string_view text) const {
  auto it = text_to_id_.find(std::string(text));
  return it == text_to_id_.end() ? -1 : it->second;
}

void Tokenizer::encode(std::string_view text, const EncodeOptions &opt,
                       std::vector<int32_t> &out) const {
  require_utf8(text, "tokenizer: encode");
  out.clear();
  if (opt.add_bos) {
    if (bos_ < 0)
      fail(LLMC_ERR_INVALID_ARGUMENT, origin_, ": BOS requested but the tokenizer has no BOS token");
    out.push_back(bos_);
  }
  // Cut the text at special-token spellings, leftmost first and longest at
  // each position (HF's added-vocabulary split; llama.cpp's parse_special).
  // With parse_special off, only user-defined (non-special) tokens match,
  // as in both references.
  bool prev_special = true; // the first fragment gets the dummy prefix
  size_t start = 0, i = 0;
  while (i < text.size()) {
    int32_t hit = -1;
    size_t hit_len = 0;
    if (special_first_[static_cast<uint8_t>(text[i])]) {
      for (const auto &[spelling, id] : special_) {
        if (!opt.parse_special && vocab_[id].kind != TokenKind::UserDefined)
          continue;
        if (text.compare(i, spelling.size(), spelling) == 0) {
          hit = id;
          hit_len = spelling.size();
          break; // sorted longest first
        }
      }
    }
    if (hit < 0) {
      ++i;
      continue;
    }
    if (i > start) {
      encode_fragment(text.substr(start, i - start),
                      opt.space_prefix && prev_special && (start == 0 || !prefix_first_only_), out);
      prev_special = false;
    }
    out.push_back(hit);
    prev_special = true;
    i += hit_len;
    start = i;
  }
  if (start < text.size())
    encode_fragment(text.substr(start),
                    opt.space_prefix && prev_special && (start == 0 || !prefix_first_only_), out);
  if (opt.add_eos) {
    if (eos_ < 0)
      fail(LLMC_ERR_INVALID_ARGUMENT, origin_, ": EOS requested but the tokenizer has no EOS token");
    out.push_back(eos_);
  }
}

void Tokenizer::encode_fragment(std::string_view text, bool space_prefix,
                                std::vector<int32_t> &out) const {
  std::string normalized;
  if (normalizer_.apply(text, normalized))
    text = normalized;
  if (model_ == TokenizerModel::ByteLevel) {
    std::vector<std::string> words;
    pre_.run(text, words);
    for (const std::string &w : words)
      emit_byte_level_word(w, out);
    return;
  }
  // SentencePiece's "dummy prefix": words are pieces that start with a
  // space, so the first word needs one too.
  std::string t;
  if (space_prefix && add_space_prefix_ && !(prefix_unless_space_ && text[0] == ' '))
    t.push_back(' ');
  t.append(text);
  if (model_ == TokenizerModel::SentencePieceScores) {
    encode_scores(t, out);
    return;
  }
  std::vector<std::string> words;
  pre_.run(t, words);
  std::vector<int32_t> ids;
  std::vector<bool> mergeable;
  for (const std::string &w : words) {
    initial_symbols(w, ids, mergeable);
    merge_by_rank(ids, mergeable);
    out.insert(out.end(), ids.begin(), ids.end());
  }
}

std::string_view Tokenizer::decode(int32_t prev, int32_t token) const {
  const VocabEntry &e = entry(token);
  switch (e.kind) {
  case TokenKind::Control:
    return {};
  case TokenKind::Byte:
    if (model_ != TokenizerModel::ByteLevel)
      return std::string_view(&kByteTable.bytes[e.byte], 1);
    break;
  default:
    break;
  }
  std::string_view piece = e.piece;
  // The first piece (of the text, or after BOS) carries the dummy-prefix
  // space; drop it, as llama.cpp and HF's Strip decoder do.
  if (add_space_prefix_ && (prev < 0 || prev == bos_) && !piece.empty() && piece[0] == ' ')
    piece.remove_prefix(1);
  return piece;
}

} // namespace llmc::rt
