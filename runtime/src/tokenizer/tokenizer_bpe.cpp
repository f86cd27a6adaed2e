// BPE merging: SentencePiece by piece score (llama2.c's rule) and by merge rank (HF BPE), both with a priority queue.
#include "tokenizer.h"

#include "error.h"
#include "hex_digit.h"
#include "utf8.h"

#include <optional>
#include <queue>

namespace llmc::rt {

namespace {

/// One symbol of the working sequence. Symbols form a doubly linked list; a
/// merge grows the left symbol and kills the right one.
struct Symbol {
  uint32_t start, len;
  int32_t id;
  int32_t prev, next;
  bool mergeable; // false for byte-fallback symbols
  bool alive;
};

/// A candidate merge. Stale candidates (a side has changed since) are
/// detected through the recorded lengths/ids and skipped when popped.
struct ScoreCandidate {
  float score;
  uint32_t start; // input offset of the left symbol: leftmost wins ties
  int32_t left, right;
  uint32_t left_len, right_len;
  int32_t id;
};
struct ScoreOrder {
  bool operator()(const ScoreCandidate &a, const ScoreCandidate &b) const {
    if (a.score != b.score)
      return a.score < b.score;
    return a.start > b.start;
  }
};

struct RankCandidate {
  int32_t rank;
  int32_t left, right; // symbol indices; left index order = text order
  int32_t left_id, right_id, id;
};
struct RankOrder {
  bool operator()(const RankCandidate &a, const RankCandidate &b) const {
    if (a.rank != b.rank)
      return a.rank > b.rank; // lowest rank first
    return a.left > b.left;   // then leftmost
  }
};

/// Runs BPE over the linked symbols `syms` (prev/next already set): every
/// adjacent mergeable pair is offered to `propose(left, right)`, which
/// returns the candidate or nothing; the best candidate by `Order` merges
/// into its left symbol (taking its id and length), and the pairs that the
/// merge changed are offered again. `is_current` rejects candidates whose
/// symbols changed since they were queued. Score and rank BPE differ only in
/// what a candidate records and how two compare.
template <typename Candidate, typename Order, typename Propose, typename IsCurrent>
void merge_symbols(std::vector<Symbol> &syms, Propose propose, IsCurrent is_current) {
  std::priority_queue<Candidate, std::vector<Candidate>, Order> queue;
  auto consider = [&](int32_t left) {
    if (left < 0)
      return;
    int32_t right = syms[left].next;
    if (right < 0 || !syms[left].mergeable || !syms[right].mergeable)
      return;
    if (std::optional<Candidate> c = propose(left, right))
      queue.push(*c);
  };
  for (int32_t k = 0; k + 1 < static_cast<int32_t>(syms.size()); ++k)
    consider(k);
  while (!queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    Symbol &a = syms[c.left];
    Symbol &b = syms[c.right];
    if (!a.alive || !b.alive || a.next != c.right || !is_current(c, a, b))
      continue; // stale
    a.len += b.len;
    a.id = c.id;
    a.next = b.next;
    if (b.next >= 0)
      syms[b.next].prev = c.left;
    b.alive = false;
    consider(a.prev);
    consider(c.left);
  }
}

/// Links `syms` in index order (index order is text order).
void link_symbols(std::vector<Symbol> &syms) {
  int32_t count = static_cast<int32_t>(syms.size());
  for (int32_t k = 0; k < count; ++k) {
    syms[k].prev = k - 1;
    syms[k].next = k + 1 < count ? k + 1 : -1;
  }
}

/// The ids of the surviving symbols, in text order, appended to `out`.
void append_symbol_ids(const std::vector<Symbol> &syms, std::vector<int32_t> &out) {
  for (int32_t k = syms.empty() ? -1 : 0; k >= 0; k = syms[k].next)
    out.push_back(syms[k].id);
}

} // namespace

bool parse_byte_piece(std::string_view piece, uint8_t *byte) {
  if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>')
    return false;
  unsigned v = 0;
  for (int i = 3; i < 5; ++i) {
    int digit = hex_digit_value(piece[i]);
    if (digit < 0)
      return false;
    v = (v << 4) | static_cast<unsigned>(digit);
  }
  *byte = static_cast<uint8_t>(v);
  return true;
}

void Tokenizer::emit_bytes(std::string_view bytes, std::vector<int32_t> &out) const {
  for (char c : bytes) {
    uint8_t b = static_cast<uint8_t>(c);
    int32_t id = byte_to_id_[b] >= 0 ? byte_to_id_[b] : unk_;
    if (id < 0)
      fail(LLMC_ERR_UNSUPPORTED, origin_, ": cannot encode byte 0x", std::hex, int(b),
           ": the vocabulary has no token for it and no unknown token");
    out.push_back(id);
  }
}

void Tokenizer::encode_scores(const std::string &text, std::vector<int32_t> &out) const {
  if (text.empty())
    return;
  std::vector<Symbol> syms;
  syms.reserve(text.size());
  std::vector<int32_t> fallback;
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8_sequence_length(text, i);
    if (n == 0)
      n = 1; // unreachable after require_utf8; keeps the loop total
    auto it = piece_to_id_.find(text.substr(i, n));
    if (it != piece_to_id_.end()) {
      syms.push_back({uint32_t(i), uint32_t(n), it->second, 0, 0, true, true});
    } else {
      fallback.clear();
      emit_bytes(std::string_view(text).substr(i, n), fallback);
      for (size_t k = 0; k < fallback.size(); ++k)
        syms.push_back({uint32_t(i + k), 1, fallback[k], 0, 0, false, true});
    }
    i += n;
  }
  link_symbols(syms);
  merge_symbols<ScoreCandidate, ScoreOrder>(
      syms,
      [&](int32_t left, int32_t right) -> std::optional<ScoreCandidate> {
        const Symbol &a = syms[left], &b = syms[right];
        auto it = piece_to_id_.find(text.substr(a.start, a.len + b.len));
        if (it == piece_to_id_.end())
          return std::nullopt;
        return ScoreCandidate{vocab_[it->second].score, a.start, left, right, a.len, b.len,
                              it->second};
      },
      [](const ScoreCandidate &c, const Symbol &a, const Symbol &b) {
        return a.len == c.left_len && b.len == c.right_len;
      });
  append_symbol_ids(syms, out);
}

void Tokenizer::initial_symbols(std::string_view text, std::vector<int32_t> &ids,
                                std::vector<bool> &mergeable) const {
  // One symbol per code point when the vocabulary has it, else its bytes
  // (HF BPE byte_fallback: <0xXX> tokens, which never merge).
  ids.clear();
  mergeable.clear();
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8_sequence_length(text, i);
    if (n == 0)
      n = 1;
    auto it = piece_to_id_.find(std::string(text.substr(i, n)));
    if (it != piece_to_id_.end()) {
      ids.push_back(it->second);
      mergeable.push_back(true);
    } else if (byte_fallback_ && has_byte_tokens(text.substr(i, n))) {
      emit_bytes(text.substr(i, n), ids);
      mergeable.resize(ids.size(), false);
    } else if (unk_ >= 0) {
      if (!(fuse_unk_ && !ids.empty() && ids.back() == unk_ && !mergeable.back())) {
        ids.push_back(unk_);
        mergeable.push_back(false);
      }
    } else {
      emit_bytes(text.substr(i, n), ids); // fails, naming the byte
    }
    i += n;
  }
}

bool Tokenizer::has_byte_tokens(std::string_view bytes) const {
  for (char c : bytes)
    if (byte_to_id_[static_cast<uint8_t>(c)] < 0)
      return false;
  return true;
}

void Tokenizer::merge_by_rank(std::vector<int32_t> &ids,
                              const std::vector<bool> &mergeable) const {
  int32_t count = static_cast<int32_t>(ids.size());
  if (count < 2)
    return;
  std::vector<Symbol> syms(count);
  for (int32_t k = 0; k < count; ++k)
    syms[k] = {0, 0, ids[k], 0, 0, bool(mergeable[k]), true};
  link_symbols(syms);
  merge_symbols<RankCandidate, RankOrder>(
      syms,
      [&](int32_t left, int32_t right) -> std::optional<RankCandidate> {
        uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(syms[left].id)) << 32) |
                       static_cast<uint32_t>(syms[right].id);
        auto it = merges_.find(key);
        if (it == merges_.end())
          return std::nullopt;
        return RankCandidate{it->second.first, left, right, syms[left].id, syms[right].id,
                             it->second.second};
      },
      [](const RankCandidate &c, const Symbol &a, const Symbol &b) {
        return a.id == c.left_id && b.id == c.right_id;
      });
  ids.clear();
  append_symbol_ids(syms, ids);
}

void Tokenizer::emit_byte_level_word(const std::string &word,
                                     std::vector<int32_t> &out) const {
  if (ignore_merges_) {
    auto it = piece_to_id_.find(word);
    if (it != piece_to_id_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  std::vector<int32_t> ids;
  ids.reserve(word.size());
  for (char c : word) {
    int32_t id = byte_to_id_[static_cast<uint8_t>(c)];
    if (id < 0)
      fail(LLMC_ERR_UNSUPPORTED, origin_, ": cannot encode byte 0x", std::hex,
           int(static_cast<uint8_t>(c)),
           ": the byte-level vocabulary has no token for it");
    ids.push_back(id);
  }
  std::vector<bool> mergeable(ids.size(), true);
  merge_by_rank(ids, mergeable);
  out.insert(out.end(), ids.begin(), ids.end());
}

} // namespace llmc::rt
