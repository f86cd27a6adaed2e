// Python's str case mapping and case tests per code point: ASCII inline, everything else from ICU's case data.
#include "chat_case.h"

#include "../icu_library.h"
#include "../utf8.h"
#include "chat_text.h"
#include "chat_value.h"

#include <cstdint>
#include <mutex>
#include <vector>

namespace llmc::rt::chat {

namespace {

// ICU's C ABI for case mapping and properties (ucasemap.h, uchar.h).
using UChar32 = int32_t;
struct UCaseMap;
using CaseMapOpenFn = UCaseMap *(*)(const char *, uint32_t, IcuErrorCode *);
using CaseMapCloseFn = void (*)(UCaseMap *);
using CaseMapUtf8Fn = int32_t (*)(const UCaseMap *, char *, int32_t, const char *, int32_t,
                                  IcuErrorCode *);
/// ucasemap_utf8ToTitle takes a non-const map: it keeps its break iterator
/// there, so one map must not title-case in two threads at once.
using CaseMapUtf8TitleFn = int32_t (*)(UCaseMap *, char *, int32_t, const char *, int32_t,
                                       IcuErrorCode *);
/// UBool is one byte whichever way ICU was built (int8_t or bool).
using HasBinaryPropertyFn = int8_t (*)(UChar32, int);
using CharTypeFn = int8_t (*)(UChar32);

// UProperty values (uchar.h), stable across ICU versions.
constexpr int kUcharLowercase = 22;
constexpr int kUcharUppercase = 30;
constexpr int kUcharCased = 49;
constexpr int kUcharCaseIgnorable = 50;
/// UCharCategory U_TITLECASE_LETTER: Python's istitle() per code point is
/// General_Category Lt.
constexpr int8_t kTitlecaseLetter = 3;
/// Options that make ucasemap_utf8ToTitle title-case exactly the code point
/// it is given: U_TITLECASE_WHOLE_STRING (one "word", no break data needed)
/// | U_TITLECASE_NO_BREAK_ADJUSTMENT (do not skip to the first letter; Python
/// title-cases a combining ypogegrammeni too). ICU 60 and later.
constexpr uint32_t kTitleOneCodePoint = 0x20 | 0x200;
/// The root locale: Python's mappings are language-neutral (no Turkish or
/// Lithuanian rules).
constexpr const char *kRootLocale = "";
/// GREEK CAPITAL LETTER SIGMA, the one code point whose lowercase depends on
/// its neighbours (Unicode's Final_Sigma condition, which Python applies).
constexpr uint32_t kCapitalSigma = 0x3A3;
constexpr uint32_t kSmallSigma = 0x3C3;
constexpr uint32_t kSmallFinalSigma = 0x3C2;
/// Room for one code point's full mapping: at most three code points of at
/// most four UTF-8 bytes (SpecialCasing.txt), with slack.
constexpr int32_t kMappingBytes = 32;

struct CaseIcu {
  std::string path;
  CaseMapOpenFn open = nullptr;
  CaseMapCloseFn close = nullptr;
  CaseMapUtf8Fn to_upper = nullptr;
  CaseMapUtf8Fn to_lower = nullptr;
  CaseMapUtf8TitleFn to_title = nullptr;
  HasBinaryPropertyFn has_property = nullptr;
  CharTypeFn char_type = nullptr;
  const IcuLibrary *lib = nullptr;
};

struct CaseIcuResult {
  CaseIcu icu;
  std::string error; // empty when usable
};

CaseIcuResult load_case_icu() {
  CaseIcuResult r;
  try {
    r.icu.lib = &IcuLibrary::get();
  } catch (const Error &e) {
    r.error = e.what();
    return r;
  }
  CaseIcu &icu = r.icu;
  icu.path = icu.lib->path();
  IcuEntryPoints entry(*icu.lib);
  entry.resolve(icu.open, "ucasemap_open");
  entry.resolve(icu.close, "ucasemap_close");
  entry.resolve(icu.to_upper, "ucasemap_utf8ToUpper");
  entry.resolve(icu.to_lower, "ucasemap_utf8ToLower");
  entry.resolve(icu.to_title, "ucasemap_utf8ToTitle");
  entry.resolve(icu.has_property, "u_hasBinaryProperty");
  entry.resolve(icu.char_type, "u_charType");
  r.error = entry.missing_error();
  return r;
}

/// The case-mapping entry points, resolved once per process; `operation`
/// prefixes the error when ICU is unusable.
const CaseIcu &case_icu(const char *operation) {
  static std::once_flag once;
  static CaseIcuResult result;
  std::call_once(once, [] { result = load_case_icu(); });
  if (!result.error.empty())
    render_fail(LLMC_ERR_UNSUPPORTED, operation,
                " needs Unicode case mapping from ICU for non-ASCII text: ", result.error);
  return result.icu;
}

enum class Mapping { Upper, Lower, Title };

/// One template operation's view of ICU: loaded at the first non-ASCII code
/// point (ASCII text never needs the library), with its own UCaseMap so
/// that concurrent renders never share one.
class CaseMapper {
public:
  explicit CaseMapper(const char *operation) : operation_(operation) {}
  ~CaseMapper() {
    if (map_)
      icu_->close(map_);
  }
  CaseMapper(const CaseMapper &) = delete;
  CaseMapper &operator=(const CaseMapper &) = delete;

  /// Appends the full `how` mapping of `cp`.
  void append(std::string &out, uint32_t cp, Mapping how) {
    if (cp < 0x80) {
      char c = static_cast<char>(cp);
      if (how == Mapping::Lower ? (c >= 'A' && c <= 'Z') : (c >= 'a' && c <= 'z'))
        c = static_cast<char>(c ^ 0x20); // ASCII case differs in bit 5 only
      out += c;
      return;
    }
    UCaseMap *map = case_map();
    std::string in;
    utf8_append(in, cp);
    char buf[kMappingBytes];
    IcuErrorCode code = kIcuZeroError;
    int32_t n = 0;
    const char *fn = how == Mapping::Upper   ? "ucasemap_utf8ToUpper"
                     : how == Mapping::Lower ? "ucasemap_utf8ToLower"
                                             : "ucasemap_utf8ToTitle";
    if (how == Mapping::Upper)
      n = icu_->to_upper(map, buf, kMappingBytes, in.data(), static_cast<int32_t>(in.size()), &code);
    else if (how == Mapping::Lower)
      n = icu_->to_lower(map, buf, kMappingBytes, in.data(), static_cast<int32_t>(in.size()), &code);
    else
      n = icu_->to_title(map, buf, kMappingBytes, in.data(), static_cast<int32_t>(in.size()), &code);
    if (code > kIcuZeroError || n < 0 || n > kMappingBytes)
      render_fail(LLMC_ERR_INTERNAL, operation_, ": ", icu_->path, ": ", fn, " of U+",
                  hex(cp), " failed: ", icu_->lib->error_text(code));
    out.append(buf, static_cast<size_t>(n));
  }

  /// Python's lower() of cps[i], which for Σ looks at the whole text.
  void append_lower_at(std::string &out, const std::vector<uint32_t> &cps, size_t i) {
    if (cps[i] != kCapitalSigma)
      return append(out, cps[i], Mapping::Lower);
    utf8_append(out, final_sigma(cps, i) ? kSmallFinalSigma : kSmallSigma);
  }

  bool cased(uint32_t cp) { return cp < 0x80 ? is_ascii_letter(cp) : property(cp, kUcharCased); }
  bool lowercase(uint32_t cp) {
    return cp < 0x80 ? (cp >= 'a' && cp <= 'z') : property(cp, kUcharLowercase);
  }
  bool uppercase(uint32_t cp) {
    return cp < 0x80 ? (cp >= 'A' && cp <= 'Z') : property(cp, kUcharUppercase);
  }
  bool titlecase(uint32_t cp) {
    return cp >= 0x80 && icu().char_type(static_cast<UChar32>(cp)) == kTitlecaseLetter;
  }

private:
  static bool is_ascii_letter(uint32_t cp) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  }
  static std::string hex(uint32_t cp) {
    static const char digits[] = "0123456789ABCDEF";
    std::string out;
    for (int shift = cp > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4)
      out += digits[(cp >> shift) & 0xF];
    return out;
  }

  const CaseIcu &icu() {
    if (!icu_)
      icu_ = &case_icu(operation_);
    return *icu_;
  }
  bool property(uint32_t cp, int which) {
    return icu().has_property(static_cast<UChar32>(cp), which) != 0;
  }
  UCaseMap *case_map() {
    if (!map_) {
      const CaseIcu &lib = icu();
      IcuErrorCode code = kIcuZeroError;
      map_ = lib.open(kRootLocale, kTitleOneCodePoint, &code);
      if (code > kIcuZeroError || !map_)
        render_fail(LLMC_ERR_UNSUPPORTED, operation_, ": ", lib.path,
                    ": ucasemap_open for the root locale failed: ", lib.lib->error_text(code));
    }
    return map_;
  }
  /// Unicode's Final_Sigma, as Python tests it: after skipping
  /// case-ignorable code points, a cased one precedes and none follows.
  bool final_sigma(const std::vector<uint32_t> &cps, size_t i) {
    size_t j = i;
    while (j > 0 && property(cps[j - 1], kUcharCaseIgnorable))
      --j;
    if (j == 0 || !cased(cps[j - 1]))
      return false;
    size_t k = i + 1;
    while (k < cps.size() && property(cps[k], kUcharCaseIgnorable))
      ++k;
    return k == cps.size() || !cased(cps[k]);
  }

  const char *operation_;
  const CaseIcu *icu_ = nullptr;
  UCaseMap *map_ = nullptr;
};

} // namespace

std::string py_upper(std::string_view s, const char *operation) {
  CaseMapper m(operation);
  std::string out;
  for (uint32_t cp : utf8_code_points(s))
    m.append(out, cp, Mapping::Upper);
  return out;
}

std::string py_lower(std::string_view s, const char *operation) {
  CaseMapper m(operation);
  std::vector<uint32_t> cps = utf8_code_points(s);
  std::string out;
  for (size_t i = 0; i < cps.size(); ++i)
    m.append_lower_at(out, cps, i);
  return out;
}

std::string py_capitalize(std::string_view s, const char *operation) {
  CaseMapper m(operation);
  std::vector<uint32_t> cps = utf8_code_points(s);
  std::string out;
  for (size_t i = 0; i < cps.size(); ++i) {
    if (i == 0)
      m.append(out, cps[i], Mapping::Title);
    else
      m.append_lower_at(out, cps, i);
  }
  return out;
}

std::string py_title(std::string_view s, const char *operation) {
  CaseMapper m(operation);
  std::vector<uint32_t> cps = utf8_code_points(s);
  std::string out;
  bool previous_cased = false;
  for (size_t i = 0; i < cps.size(); ++i) {
    if (previous_cased)
      m.append_lower_at(out, cps, i);
    else
      m.append(out, cps[i], Mapping::Title);
    previous_cased = m.cased(cps[i]);
  }
  return out;
}

namespace {
/// The characters of jinja2's word-splitting pattern ([-\s({\[<]+); \s in a
/// Python str pattern is str.isspace().
bool starts_jinja_word_after(uint32_t cp) {
  return cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || is_py_space(cp);
}
} // namespace

std::string jinja_title(std::string_view s, const char *operation) {
  std::vector<uint32_t> cps = utf8_code_points(s);
  std::string out;
  size_t i = 0;
  while (i < cps.size()) {
    // One item of the split: a run of separators or a run of the rest.
    bool sep = starts_jinja_word_after(cps[i]);
    size_t j = i + 1;
    while (j < cps.size() && starts_jinja_word_after(cps[j]) == sep)
      ++j;
    std::string first, rest;
    utf8_append(first, cps[i]);
    for (size_t k = i + 1; k < j; ++k)
      utf8_append(rest, cps[k]);
    // Python slices the item, so Final_Sigma sees only item[1:].
    out += py_upper(first, operation);
    out += py_lower(rest, operation);
    i = j;
  }
  return out;
}

bool py_islower(std::string_view s, const char *operation) {
  CaseMapper m(operation);
  bool cased = false;
  for (uint32_t cp : utf8_code_points(s)) {
    if (m.uppercase(cp) || m.titlecase(cp))
      return false;
    if (!cased && m.lowercase(cp))
      cased = true;
  }
  return cased;
}

bool py_isupper(std::string_view s, const char *operation) {
  CaseMapper m(operation);
  bool cased = false;
  for (uint32_t cp : utf8_code_points(s)) {
    if (m.lowercase(cp) || m.titlecase(cp))
      return false;
    if (!cased && m.uppercase(cp))
      cased = true;
  }
  return cased;
}

} // namespace llmc::rt::chat
