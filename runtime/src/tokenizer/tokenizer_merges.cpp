// MergeResolver: merge rule texts to token ids.
#include "tokenizer_merges.h"

#include "error.h"

namespace llmc::rt {

MergeResolver::MergeResolver(const std::vector<VocabEntry> &vocab, std::string origin)
    : origin_(std::move(origin)) {
  ids_.reserve(vocab.size());
  for (size_t id = 0; id < vocab.size(); ++id)
    ids_.emplace(vocab[id].text, static_cast<int32_t>(id));
}

int32_t MergeResolver::id_of(std::string_view text, std::string_view merge,
                             uint64_t index) const {
  auto it = ids_.find(text);
  if (it == ids_.end())
    fail(LLMC_ERR_FORMAT, origin_, "[", index, "] '", merge, "': token '", text,
         "' is not in the vocabulary");
  return it->second;
}

std::pair<int32_t, int32_t> MergeResolver::from_string(std::string_view merge,
                                                       uint64_t index) const {
  size_t space = merge.find(' ');
  if (space == std::string_view::npos || space == 0 || space + 1 == merge.size() ||
      merge.find(' ', space + 1) != std::string_view::npos)
    fail(LLMC_ERR_FORMAT, origin_, "[", index, "] '", merge,
         "' is not two tokens separated by one space");
  return {id_of(merge.substr(0, space), merge, index),
          id_of(merge.substr(space + 1), merge, index)};
}

std::pair<int32_t, int32_t> MergeResolver::from_pair(std::string_view left,
                                                     std::string_view right,
                                                     uint64_t index) const {
  std::string merge = std::string(left) + " " + std::string(right);
  return {id_of(left, merge, index), id_of(right, merge, index)};
}

} // namespace llmc::rt
