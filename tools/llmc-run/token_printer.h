// Streams tokens to stdout as text (never half a UTF-8 character) or as ids.
#ifndef LLMC_RUN_TOKEN_PRINTER_H
#define LLMC_RUN_TOKEN_PRINTER_H

#include "llmc/runtime.h"

#include <cstdint>
#include <string>

namespace llmc_run {

/// Writes each token as it comes: its text through a streaming
/// detokenizer (which holds back the bytes of an unfinished character), or
/// its id with `print_ids` or when there is no tokenizer. Also keeps the
/// text it wrote, for callers that need the reply (a chat's history).
class TokenPrinter {
public:
  TokenPrinter(const llmc_tokenizer *tokenizer, bool print_ids);
  ~TokenPrinter();
  TokenPrinter(const TokenPrinter &) = delete;
  TokenPrinter &operator=(const TokenPrinter &) = delete;

  void emit(int32_t token);
  /// Writes the bytes of a character left unfinished when generation
  /// stopped, and starts a new stream.
  void finish();
  /// Everything written since construction or the last take_text().
  std::string take_text();

private:
  void write(const char *text, size_t len);

  llmc_detokenizer *stream_ = nullptr;
  bool first_ = true;
  std::string text_;
};

} // namespace llmc_run

#endif // LLMC_RUN_TOKEN_PRINTER_H
