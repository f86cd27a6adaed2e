// TokenPrinter: tokens to stdout through the runtime's streaming detokenizer.
#include "token_printer.h"

#include "cli.h"

#include <cstdio>

namespace llmc_run {

TokenPrinter::TokenPrinter(const llmc_tokenizer *tokenizer, bool print_ids) {
  if (tokenizer && !print_ids)
    check(llmc_detokenizer_create(tokenizer, &stream_), "decoding");
}

TokenPrinter::~TokenPrinter() { llmc_detokenizer_destroy(stream_); }

void TokenPrinter::write(const char *text, size_t len) {
  if (!len) // a control token decodes to nothing (and maybe a NULL pointer)
    return;
  std::fwrite(text, 1, len, stdout);
  text_.append(text, len);
}

void TokenPrinter::emit(int32_t token) {
  if (!stream_) {
    std::string id = (first_ ? "" : " ") + std::to_string(token);
    write(id.data(), id.size());
  } else {
    const char *text = nullptr;
    size_t len = 0;
    check(llmc_detokenizer_push(stream_, token, &text, &len), "decoding");
    write(text, len);
  }
  std::fflush(stdout);
  first_ = false;
}

void TokenPrinter::finish() {
  if (!stream_)
    return;
  const char *text = nullptr;
  size_t len = 0;
  check(llmc_detokenizer_flush(stream_, &text, &len), "decoding");
  write(text, len);
  std::fflush(stdout);
}

std::string TokenPrinter::take_text() {
  std::string out;
  out.swap(text_);
  return out;
}

} // namespace llmc_run
