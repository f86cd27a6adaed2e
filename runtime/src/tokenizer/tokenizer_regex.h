// A compiled PCRE2 regex (UTF + Unicode properties, JIT) shared by the pre-tokenizers.
#ifndef LLMC_RUNTIME_TOKENIZER_REGEX_H
#define LLMC_RUNTIME_TOKENIZER_REGEX_H

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmc::rt {

/// One pattern, compiled once at load. PCRE2 is used (not <regex>, not
/// hand-written tables) because the pre-tokenizer patterns need Unicode
/// general categories (\p{L}, \p{N}, \p{Lu}...), lookahead and (?i:), with
/// the semantics of the Oniguruma engine that Hugging Face tokenizers uses;
/// the JIT keeps a 10 kB prompt in the millisecond range. A compiled code
/// object is immutable and shareable; every match() call makes its own
/// match data, so one Regex serves many threads.
class Regex {
public:
  /// `literal` matches `pattern` as plain text (tokenizer.json's
  /// {"String": ...} patterns). `origin` names the pattern in errors.
  Regex(const std::string &pattern, bool literal, const std::string &origin);
  ~Regex();
  Regex(const Regex &) = delete;
  Regex &operator=(const Regex &) = delete;

  /// Byte ranges [begin, end) of the successive non-overlapping, non-empty
  /// matches in `text` (which must be valid UTF-8).
  void find_all(std::string_view text,
                std::vector<std::pair<size_t, size_t>> &matches) const;

private:
  void *code_ = nullptr; // pcre2_code_8
  std::string origin_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_TOKENIZER_REGEX_H
