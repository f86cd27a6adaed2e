// DetokenizerStream: token pieces in, whole UTF-8 characters out.
#include "tokenizer_stream.h"

#include "utf8.h"

namespace llmc::rt {

std::string_view DetokenizerStream::push(int32_t token) {
  std::string_view piece = tok_.decode(prev_, token);
  prev_ = token;
  ready_.swap(pending_);
  pending_.clear();
  ready_.append(piece);
  size_t tail = utf8_incomplete_tail(ready_);
  pending_.assign(ready_, ready_.size() - tail, tail);
  ready_.resize(ready_.size() - tail);
  return ready_;
}

std::string_view DetokenizerStream::flush() {
  ready_.swap(pending_);
  pending_.clear();
  prev_ = -1;
  return ready_;
}

} // namespace llmc::rt
