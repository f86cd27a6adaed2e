// Resolution of BPE merge rules ("a b" strings or [a, b] pairs) to token-id pairs, with clear errors.
#ifndef LLMC_RUNTIME_TOKENIZER_MERGES_H
#define LLMC_RUNTIME_TOKENIZER_MERGES_H

#include "tokenizer.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llmc::rt {

/// Maps the token texts of a merge to ids; a text that is not in the
/// vocabulary is an error naming the merge (HF's BPE builder refuses such
/// files too), never a silently dropped rule.
class MergeResolver {
public:
  MergeResolver(const std::vector<VocabEntry> &vocab, std::string origin);
  /// "left right" (exactly one space: byte-level and SentencePiece token
  /// texts never contain a raw space).
  std::pair<int32_t, int32_t> from_string(std::string_view merge, uint64_t index) const;
  std::pair<int32_t, int32_t> from_pair(std::string_view left, std::string_view right,
                                        uint64_t index) const;

private:
  int32_t id_of(std::string_view text, std::string_view merge, uint64_t index) const;
  std::unordered_map<std::string_view, int32_t> ids_;
  std::string origin_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_TOKENIZER_MERGES_H
