// Finds and dlopens ICU's libicuuc, resolves its version-suffixed C entry points, and normalizes UTF-8 through UTF-16.
#include "unicode_normalize.h"

#include "error.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <link.h>
#include <mutex>

namespace llmc::rt {

namespace {

// ICU's C ABI, declared here so that building the runtime needs no ICU
// headers (only running a normalizing tokenizer needs the library).
using UChar = char16_t;
/// UErrorCode: 0 is success, negative values are warnings, positive ones
/// failures (U_FAILURE).
using UErrorCode = int;
constexpr UErrorCode kUZeroError = 0;
constexpr UErrorCode kUBufferOverflowError = 15; // U_BUFFER_OVERFLOW_ERROR
struct UNormalizer2;

using GetInstanceFn = const UNormalizer2 *(*)(UErrorCode *);
using NormalizeFn = int32_t (*)(const UNormalizer2 *, const UChar *, int32_t, UChar *, int32_t,
                                UErrorCode *);
using FromUtf8Fn = UChar *(*)(UChar *, int32_t, int32_t *, const char *, int32_t, UErrorCode *);
using ToUtf8Fn = char *(*)(char *, int32_t, int32_t *, const UChar *, int32_t, UErrorCode *);
using ErrorNameFn = const char *(*)(UErrorCode);

constexpr const char *kIcuEnv = "LLMC_ICU_LIBRARY";
constexpr const char *kIcuBaseName = "libicuuc.so";
/// The runtime package of Debian 12 (bookworm); any libicuNN works.
constexpr const char *kIcuDebianPackage = "libicu72";
/// ICU major versions whose sonames (libicuuc.so.NN) are tried, newest
/// first: 50 (2012) is older than any distribution still supported, 99
/// leaves room for decades of releases (one or two a year).
constexpr int kOldestIcuMajor = 50;
constexpr int kNewestIcuMajor = 99;
/// Symbol probed to find the suffix ICU renamed its C API with
/// (U_DISABLE_RENAMING=0, Debian's default: u_strFromUTF8_72).
constexpr const char *kProbeSymbol = "u_strFromUTF8";

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

std::string install_advice() {
  return cat("; install Debian's ", kIcuDebianPackage,
             " (any libicuNN will do; libicu-dev pulls one in) or set $", kIcuEnv,
             " to the path of libicuuc.so.NN");
}

/// The file dlopen actually mapped (after the search path and symlinks).
std::string loaded_file(void *lib, const std::string &fallback) {
  link_map *map = nullptr;
  if (::dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name || !*map->l_name)
    return fallback;
  char *real = ::realpath(map->l_name, nullptr);
  if (!real)
    return map->l_name;
  std::string out = real;
  std::free(real);
  return out;
}

/// The NN of ".../libicuuc.so.NN[.x]", or -1.
int soname_major(const std::string &file) {
  size_t at = file.rfind(std::string(kIcuBaseName) + ".");
  if (at == std::string::npos)
    return -1;
  int major = 0;
  size_t i = at + std::string(kIcuBaseName).size() + 1, digits = 0;
  for (; i < file.size() && file[i] >= '0' && file[i] <= '9' && digits < 4; ++i, ++digits)
    major = major * 10 + (file[i] - '0');
  return digits ? major : -1;
}

/// The suffix ICU's C API carries in `lib`: "" (a build without renaming),
/// "_NN" from the soname, or else the first _NN of the whole range that
/// resolves. False when none does (not ICU at all).
bool find_suffix(void *lib, const std::string &file, std::string &suffix) {
  auto has = [&](const std::string &s) {
    return ::dlsym(lib, (std::string(kProbeSymbol) + s).c_str()) != nullptr;
  };
  std::vector<std::string> candidates = {""};
  if (int major = soname_major(file); major >= 0)
    candidates.push_back(cat("_", major));
  for (int v = kNewestIcuMajor; v >= kOldestIcuMajor; --v)
    candidates.push_back(cat("_", v));
  for (const std::string &s : candidates)
    if (has(s)) {
      suffix = s;
      return true;
    }
  return false;
}

template <typename Fn>
void resolve(void *lib, const std::string &suffix, Fn &slot, const char *name,
             std::string &missing) {
  slot = reinterpret_cast<Fn>(::dlsym(lib, (name + suffix).c_str()));
  if (!slot)
    missing += cat(missing.empty() ? "" : ", ", name, suffix);
}

LoadResult load() {
  LoadResult r;
  const char *override_path = std::getenv(kIcuEnv);
  void *lib = nullptr;
  std::string tried;
  if (override_path && *override_path) {
    // RTLD_LOCAL: ICU's symbols stay out of the global namespace, where a
    // compiled model or the host program might bring its own ICU.
    lib = ::dlopen(override_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *e = ::dlerror();
      r.error = cat("ICU could not be loaded from $", kIcuEnv, "=", override_path, " (",
                    e ? e : "unknown dlerror", ")", install_advice());
      return r;
    }
    r.icu.path = override_path;
  } else {
    std::vector<std::string> names;
    for (int v = kNewestIcuMajor; v >= kOldestIcuMajor; --v)
      names.push_back(cat(kIcuBaseName, ".", v));
    names.push_back(kIcuBaseName); // libicu-dev's link, whatever its version
    for (const std::string &n : names) {
      lib = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib) {
        r.icu.path = n;
        break;
      }
    }
    if (!lib) {
      r.error = cat("ICU could not be loaded (tried ", kIcuBaseName, ".", kNewestIcuMajor,
                    " down to ", kIcuBaseName, ".", kOldestIcuMajor, ", then ", kIcuBaseName,
                    ", on the library search path)", install_advice());
      return r;
    }
  }
  // Never closed: the normalizer instances live inside the library for the
  // rest of the process, as they would if the program linked ICU.
  std::string file = loaded_file(lib, r.icu.path);
  if (file != r.icu.path)
    r.icu.path += " (" + file + ")";
  std::string suffix;
  if (!find_suffix(lib, file, suffix)) {
    r.error = cat(r.icu.path, " is not ICU's libicuuc: it has no ", kProbeSymbol,
                  " (plain or with a version suffix _", kOldestIcuMajor, " to _", kNewestIcuMajor,
                  ")", install_advice());
    return r;
  }
  std::string missing;
  Icu &icu = r.icu;
  resolve(lib, suffix, icu.get_instance[static_cast<int>(NormalizationForm::NFC)],
          "unorm2_getNFCInstance", missing);
  resolve(lib, suffix, icu.get_instance[static_cast<int>(NormalizationForm::NFD)],
          "unorm2_getNFDInstance", missing);
  resolve(lib, suffix, icu.get_instance[static_cast<int>(NormalizationForm::NFKC)],
          "unorm2_getNFKCInstance", missing);
  resolve(lib, suffix, icu.get_instance[static_cast<int>(NormalizationForm::NFKD)],
          "unorm2_getNFKDInstance", missing);
  resolve(lib, suffix, icu.normalize, "unorm2_normalize", missing);
  resolve(lib, suffix, icu.from_utf8, "u_strFromUTF8", missing);
  resolve(lib, suffix, icu.to_utf8, "u_strToUTF8", missing);
  resolve(lib, suffix, icu.error_name, "u_errorName", missing);
  if (!missing.empty())
    r.error = cat(r.icu.path, " lacks ICU entry points (", missing,
                  "); this ICU is too old or not a full libicuuc", install_advice());
  return r;
}

const Icu &icu_library() {
  // Loaded once per process: the search is not repeated, and a machine
  // without ICU fails with the same message every time.
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
