// Normalizes UTF-8 through UTF-16 with ICU's unorm2 C API, resolved from the process's libicuuc on first use.
#include "unicode_normalize.h"

#include "error.h"
#include "icu_library.h"

#include <climits>
#include <cstdint>
#include <mutex>

namespace llmc::rt {

namespace {

using UChar = IcuUChar;
using UErrorCode = IcuErrorCode;
constexpr UErrorCode kUZeroError = kIcuZeroError;
constexpr UErrorCode kUBufferOverflowError = kIcuBufferOverflowError;
struct UNormalizer2;

using GetInstanceFn = const UNormalizer2 *(*)(UErrorCode *);
using NormalizeFn = int32_t (*)(const UNormalizer2 *, const UChar *, int32_t, UChar *, int32_t,
                                UErrorCode *);
using FromUtf8Fn = UChar *(*)(UChar *, int32_t, int32_t *, const char *, int32_t, UErrorCode *);
using ToUtf8Fn = char *(*)(char *, int32_t, int32_t *, const UChar *, int32_t, UErrorCode *);
using ErrorNameFn = const char *(*)(UErrorCode);

/// The entry points normalization needs, from IcuLibrary.
struct Icu {
  std::string path; // the library as loaded, for messages
  GetInstanceFn get_instance[4] = {};
  NormalizeFn normalize = nullptr;
  FromUtf8Fn from_utf8 = nullptr;
  ToUtf8Fn to_utf8 = nullptr;
  ErrorNameFn error_name = nullptr;
};

struct LoadResult {
  Icu icu;
  std::string error; // empty when usable
};

LoadResult load() {
  LoadResult r;
  const IcuLibrary *lib = nullptr;
  try {
    lib = &IcuLibrary::get();
  } catch (const Error &e) {
    r.error = e.what();
    return r;
  }
  Icu &icu = r.icu;
  icu.path = lib->path();
  IcuEntryPoints entry(*lib);
  entry.resolve(icu.get_instance[static_cast<int>(NormalizationForm::NFC)], "unorm2_getNFCInstance");
  entry.resolve(icu.get_instance[static_cast<int>(NormalizationForm::NFD)], "unorm2_getNFDInstance");
  entry.resolve(icu.get_instance[static_cast<int>(NormalizationForm::NFKC)],
                "unorm2_getNFKCInstance");
  entry.resolve(icu.get_instance[static_cast<int>(NormalizationForm::NFKD)],
                "unorm2_getNFKDInstance");
  entry.resolve(icu.normalize, "unorm2_normalize");
  entry.resolve(icu.from_utf8, "u_strFromUTF8");
  entry.resolve(icu.to_utf8, "u_strToUTF8");
  entry.resolve(icu.error_name, "u_errorName");
  r.error = entry.missing_error();
  return r;
}

const Icu &icu_library() {
  // Resolved once per process, like the library itself.
  static std::once_flag once;
  static LoadResult result;
  std::call_once(once, [] { result = load(); });
  if (!result.error.empty())
    throw Error(LLMC_ERR_UNSUPPORTED, result.error);
  return result.icu;
}

std::string icu_error(const Icu &icu, UErrorCode code) {
  const char *name = icu.error_name ? icu.error_name(code) : nullptr;
  return name ? cat(name, " (", code, ")") : cat("ICU error ", code);
}

bool is_ascii(std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80)
      return false;
  return true;
}

[[noreturn]] void normalize_failed(const Icu &icu, const char *what, size_t bytes,
                                   UErrorCode code) {
  fail(LLMC_ERR_INTERNAL, "tokenizer: Unicode normalization of a ", bytes, "-byte text failed in ",
       icu.path, ": ", what, ": ", icu_error(icu, code));
}

[[noreturn]] void too_long(size_t bytes) {
  fail(LLMC_ERR_INVALID_ARGUMENT, "tokenizer: a text of ", bytes,
       " bytes is too long for Unicode normalization (ICU takes at most 2^31-1 UTF-16 units)");
}

} // namespace

const char *normalization_form_name(NormalizationForm form) {
  switch (form) {
  case NormalizationForm::NFC: return "NFC";
  case NormalizationForm::NFD: return "NFD";
  case NormalizationForm::NFKC: return "NFKC";
  case NormalizationForm::NFKD: return "NFKD";
  }
  return "?";
}

void UnicodeNormalizer::add(NormalizationForm form, const std::string &context) {
  const char *name = normalization_form_name(form);
  const Icu *icu = nullptr;
  try {
    icu = &icu_library();
  } catch (const Error &e) {
    fail(e.status(), context, ": normalizer '", name, "' needs Unicode normalization from ICU: ",
         e.what());
  }
  UErrorCode code = kUZeroError;
  const UNormalizer2 *n = icu->get_instance[static_cast<int>(form)](&code);
  if (code > kUZeroError || !n)
    fail(LLMC_ERR_UNSUPPORTED, context, ": normalizer '", name, "': ", icu->path, ": unorm2_get",
         name, "Instance failed: ", icu_error(*icu, code),
         " (ICU's data library libicudata may be missing or of another version)");
  instances_.push_back(n);
  forms_.push_back(form);
}

bool UnicodeNormalizer::apply(std::string_view text, std::string &out) const {
  if (forms_.empty() || is_ascii(text))
    return false;
  const Icu &icu = icu_library(); // loaded by add()
  // ICU lengths are int32_t; UTF-16 never has more units than UTF-8 bytes.
  if (text.size() > static_cast<size_t>(INT32_MAX))
    too_long(text.size());
  std::u16string units(text.size(), u'\0'), next;
  int32_t length = 0;
  UErrorCode code = kUZeroError;
  icu.from_utf8(units.data(), static_cast<int32_t>(units.size()), &length, text.data(),
                static_cast<int32_t>(text.size()), &code);
  if (code > kUZeroError)
    normalize_failed(icu, "u_strFromUTF8", text.size(), code);
  units.resize(length);
  for (const void *instance : instances_) {
    const auto *n = static_cast<const UNormalizer2 *>(instance);
    // Normalization may grow the text (decompositions): on overflow ICU
    // reports the size it needs, and the call is repeated with that room.
    next.resize(units.size() + units.size() / 2 + 16);
    for (;;) {
      code = kUZeroError;
      int32_t got = icu.normalize(n, units.data(), static_cast<int32_t>(units.size()), next.data(),
                                  static_cast<int32_t>(next.size()), &code);
      if (code == kUBufferOverflowError && got > static_cast<int32_t>(next.size())) {
        next.resize(got);
        continue;
      }
      if (code > kUZeroError)
        normalize_failed(icu, "unorm2_normalize", text.size(), code);
      next.resize(got);
      break;
    }
    units.swap(next);
  }
  // UTF-8 needs at most three bytes per UTF-16 unit (four per surrogate pair).
  if (units.size() > static_cast<size_t>(INT32_MAX) / 3)
    too_long(text.size());
  out.resize(units.size() * 3);
  code = kUZeroError;
  icu.to_utf8(out.data(), static_cast<int32_t>(out.size()), &length, units.data(),
              static_cast<int32_t>(units.size()), &code);
  if (code > kUZeroError)
    normalize_failed(icu, "u_strToUTF8", text.size(), code);
  out.resize(length);
  return true;
}

} // namespace llmc::rt
