// Unicode normalization (NFC, NFD, NFKC, NFKD) for tokenizer normalizers, done by ICU loaded with dlopen on first use.
#ifndef LLMC_RUNTIME_UNICODE_NORMALIZE_H
#define LLMC_RUNTIME_UNICODE_NORMALIZE_H

#include <string>
#include <string_view>
#include <vector>

namespace llmc::rt {

/// The four forms of Unicode Standard Annex #15, which are also the four
/// tokenizer.json normalizer types of the same names.
enum class NormalizationForm { NFC, NFD, NFKC, NFKD };

const char *normalization_form_name(NormalizationForm form);

/// A chain of normalization forms applied in order (a tokenizer.json
/// Sequence of them). Immutable once built, hence safe to share between
/// threads (ICU's normalizer instances are).
///
/// ICU is opened with dlopen rather than linked so that a binary copied to
/// another machine (whose libicuuc has another soname version) still starts,
/// and only tokenizers that ask for normalization need ICU at all.
class UnicodeNormalizer {
public:
  /// Appends `form`, loading ICU on the first call in the process. Throws
  /// LLMC_ERR_UNSUPPORTED "<context>: normalizer '<form>' needs ICU ..."
  /// naming what was tried and the Debian package when ICU is unusable.
  void add(NormalizationForm form, const std::string &context);
  bool empty() const { return forms_.empty(); }

  /// Normalizes valid UTF-8 `text` into `out` and returns true, or returns
  /// false (leaving `out` alone) when `text` is all ASCII, which every form
  /// leaves unchanged: most prompts never reach ICU.
  bool apply(std::string_view text, std::string &out) const;

private:
  /// ICU's UNormalizer2 instances (owned by ICU), one per form, in order.
  std::vector<const void *> instances_;
  std::vector<NormalizationForm> forms_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_UNICODE_NORMALIZE_H
