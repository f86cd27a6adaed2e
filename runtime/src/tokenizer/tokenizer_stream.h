// Streaming decode state: holds back the bytes of a UTF-8 character that a token left unfinished.
#ifndef LLMC_RUNTIME_TOKENIZER_STREAM_H
#define LLMC_RUNTIME_TOKENIZER_STREAM_H

#include "tokenizer.h"

#include <string>
#include <string_view>

namespace llmc::rt {

/// Byte-level and byte-fallback tokens can end in the middle of a
/// character; a terminal that receives half a character shows garbage (or
/// nothing), so the stream releases only whole characters.
class DetokenizerStream {
public:
  explicit DetokenizerStream(const Tokenizer &tok) : tok_(tok) {}
  /// The bytes that are complete after `token`; valid until the next call.
  std::string_view push(int32_t token);
  /// Everything held back; resets the stream.
  std::string_view flush();

private:
  const Tokenizer &tok_;
  int32_t prev_ = -1;
  std::string pending_; // held-back tail from earlier pushes
  std::string ready_;   // what the last call returned
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_TOKENIZER_STREAM_H
