// BPE encode (priority-queue merge, llama2.c tie rule) and decode for the Tokenizer.
#include "tokenizer.h"

#include "error.h"

#include <queue>

namespace llmc::rt {

namespace {

/// Length of the UTF-8 sequence starting at s[i], or 1 when it is not a
/// valid sequence (each invalid byte then falls back to a byte token).
size_t utf8_length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3
                                           : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size())
    return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
      return 1;
  return n;
}

/// Raw bytes for byte tokens, so decode can return a view for every token.
struct ByteTable {
  char bytes[256];
  ByteTable() {
    for (int i = 0; i < 256; ++i)
      bytes[i] = static_cast<char>(i);
  }
};
const ByteTable kByteTable;

/// One symbol of the working sequence: a substring of the input that is
/// currently one token. Symbols form a doubly linked list; a merge grows
/// the left symbol and kills the right one.
struct Symbol {
  uint32_t start, len;
  int32_t id;
  int32_t prev, next;
  bool mergeable; // false for byte-fallback symbols
  bool alive;
};

/// A candidate merge. Stale candidates (a side has changed since) are
/// detected through the recorded lengths and skipped when popped.
struct Candidate {
  float score;
  uint32_t start; // input offset of the left symbol: leftmost wins ties
  int32_t left, right;
  uint32_t left_len, right_len;
  int32_t id;
};
struct CandidateOrder {
  bool operator()(const Candidate &a, const Candidate &b) const {
    if (a.score != b.score)
      return a.score < b.score;
    return a.start > b.start;
  }
};

} // namespace

bool parse_byte_piece(std::string_view piece, uint8_t *byte) {
  if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>')
    return false;
  unsigned v = 0;
  for (int i = 3; i < 5; ++i) {
    char c = piece[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= c - '0';
    else if (c >= 'A' && c <= 'F')
      v |= c - 'A' + 10;
    else if (c >= 'a' && c <= 'f')
      v |= c - 'a' + 10;
    else
      return false;
  }
  *byte = static_cast<uint8_t>(v);
  return true;
}

void Tokenizer::set_vocab(std::vector<VocabEntry> vocab, int32_t bos,
                          int32_t eos, int32_t unk, bool add_space_prefix) {
  int32_t n = static_cast<int32_t>(vocab.size());
  auto check = [&](int32_t id, const char *what) {
    if (id < -1 || id >= n)
      fail(LLMC_ERR_FORMAT, "tokenizer: ", what, " id ", id,
           " out of range (vocab size ", n, ")");
  };
  check(bos, "BOS");
  check(eos, "EOS");
  check(unk, "unknown-token");
  vocab_ = std::move(vocab);
  bos_ = bos;
  eos_ = eos;
  unk_ = unk;
  add_space_prefix_ = add_space_prefix;
  for (int32_t &id : byte_to_id_)
    id = -1;
  piece_to_id_.clear();
  piece_to_id_.reserve(vocab_.size());
  for (int32_t id = 0; id < n; ++id) {
    const VocabEntry &e = vocab_[id];
    if (e.kind == TokenKind::Byte) {
      if (byte_to_id_[e.byte] < 0)
        byte_to_id_[e.byte] = id;
    } else if (e.kind == TokenKind::Normal || e.kind == TokenKind::UserDefined) {
      piece_to_id_.emplace(e.piece, id); // first id wins for duplicates
    }
  }
}

void Tokenizer::emit_bytes(std::string_view bytes, std::vector<int32_t> &out) const {
  for (char c : bytes) {
    uint8_t b = static_cast<uint8_t>(c);
    int32_t id = byte_to_id_[b] >= 0 ? byte_to_id_[b] : unk_;
    if (id < 0)
      fail(LLMC_ERR_UNSUPPORTED, "tokenizer: cannot encode byte 0x", std::hex,
           int(b), ": the vocabulary has no byte token for it and no unknown token");
    out.push_back(id);
  }
}

void Tokenizer::encode(std::string_view raw, bool add_bos, bool space_prefix,
                       std::vector<int32_t> &out) const {
  out.clear();
  if (add_bos && bos_ >= 0)
    out.push_back(bos_);
  if (raw.empty())
    return;
  // SentencePiece's "dummy prefix": words are pieces that start with a
  // space, so the first word needs one too.
  std::string text;
  if (space_prefix)
    text.push_back(' ');
  text.append(raw);

  std::vector<Symbol> syms;
  syms.reserve(text.size());
  std::vector<int32_t> fallback;
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8_length(text, i);
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
  int32_t count = static_cast<int32_t>(syms.size());
  for (int32_t k = 0; k < count; ++k) {
    syms[k].prev = k - 1;
    syms[k].next = k + 1 < count ? k + 1 : -1;
  }

  std::priority_queue<Candidate, std::vector<Candidate>, CandidateOrder> queue;
  auto consider = [&](int32_t left) {
    if (left < 0)
      return;
    int32_t right = syms[left].next;
    if (right < 0 || !syms[left].mergeable || !syms[right].mergeable)
      return;
    const Symbol &a = syms[left], &b = syms[right];
    auto it = piece_to_id_.find(text.substr(a.start, a.len + b.len));
    if (it == piece_to_id_.end())
      return;
    queue.push({vocab_[it->second].score, a.start, left, right, a.len, b.len,
                it->second});
  };
  for (int32_t k = 0; k + 1 < count; ++k)
    consider(k);

  while (!queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    Symbol &a = syms[c.left];
    Symbol &b = syms[c.right];
    if (!a.alive || !b.alive || a.next != c.right || a.len != c.left_len ||
        b.len != c.right_len)
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

  for (int32_t k = count > 0 ? 0 : -1; k >= 0; k = syms[k].next)
    out.push_back(syms[k].id);
}

std::string_view Tokenizer::decode(int32_t prev, int32_t token) const {
  if (token < 0 || token >= vocab_size())
    fail(LLMC_ERR_OUT_OF_RANGE, "tokenizer: token id ", token,
         " out of range (vocab size ", vocab_size(), ")");
  const VocabEntry &e = vocab_[token];
  switch (e.kind) {
  case TokenKind::Control:
    return {};
  case TokenKind::Byte:
    return std::string_view(&kByteTable.bytes[e.byte], 1);
  default:
    break;
  }
  std::string_view piece = e.piece;
  // The first piece after BOS carries the dummy-prefix space; drop it.
  if (prev >= 0 && prev == bos_ && !piece.empty() && piece[0] == ' ')
    piece.remove_prefix(1);
  return piece;
}

} // namespace llmc::rt
