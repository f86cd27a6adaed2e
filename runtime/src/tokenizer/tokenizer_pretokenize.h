// Pre-tokenizers: the regex splits (and prefix space) that cut text into words before BPE.
#ifndef LLMC_RUNTIME_TOKENIZER_PRETOKENIZE_H
#define LLMC_RUNTIME_TOKENIZER_PRETOKENIZE_H

#include "tokenizer_regex.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmc::rt {

/// What a split does with the text its pattern matches (the delimiter);
/// the names and meanings are Hugging Face tokenizers' SplitDelimiterBehavior.
enum class SplitBehavior {
  Removed,            // delimiters are dropped
  Isolated,           // each delimiter is a piece of its own
  MergedWithPrevious, // a delimiter joins the piece before it
  MergedWithNext,     // a delimiter joins the piece after it
  Contiguous,         // adjacent delimiters form one piece
};

/// An ordered list of steps; each step re-splits every current piece, as
/// llama.cpp's unicode_regex_split does for a list of regexes and as HF's
/// pre_tokenizers.Sequence does. Immutable after construction.
class PreTokenizer {
public:
  /// Splits every piece at the matches of `pattern`.
  void add_split(const std::string &pattern, bool literal, SplitBehavior behavior,
                 bool invert, const std::string &origin);
  /// Prepends ' ' to each piece that does not start with one (HF ByteLevel
  /// with add_prefix_space).
  void add_prefix_space();

  /// Appends the pieces of `text` (valid UTF-8) to `out`.
  void run(std::string_view text, std::vector<std::string> &out) const;

private:
  struct Step {
    std::shared_ptr<const Regex> regex; // null: prefix-space step
    SplitBehavior behavior = SplitBehavior::Isolated;
    bool invert = false;
  };
  void split(const Step &step, const std::string &piece,
             std::vector<std::string> &out) const;
  std::vector<Step> steps_;
};

/// The pattern of GPT-2's byte-level pre-tokenizer (HF ByteLevel with
/// use_regex = true).
extern const char *const kGpt2SplitPattern;
/// HF tokenizers' Digits pre-tokenizer is a split on char::is_numeric, i.e.
/// the Unicode categories Nd, Nl and No: \p{N}.
extern const char *const kDigitPattern;

/// Settings that a GGUF tokenizer.ggml.pre name implies besides the splits.
struct PreTokenizerPreset {
  PreTokenizer pre;
  /// A word that is itself a vocabulary entry is emitted without merging
  /// (llama.cpp's ignore_merges; HF BPE's ignore_merges in the originals).
  bool ignore_merges = false;
  /// Default for add_bos when the file has no tokenizer.ggml.add_bos_token.
  bool add_bos = false;
};

/// Builds the pre-tokenizer that tokenizer.ggml.pre = `name` stands for;
/// LLMC_ERR_UNSUPPORTED naming it for anything else (there is no silent
/// fallback: a wrong split tokenizes plausibly and wrongly).
PreTokenizerPreset pre_tokenizer_for_gguf(std::string_view name);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_TOKENIZER_PRETOKENIZE_H
