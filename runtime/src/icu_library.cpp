// Finds and dlopens ICU's libicuuc once per process and resolves its C entry points under their version suffix.
#include "icu_library.h"

#include "error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <vector>

namespace llmc::rt {

namespace {

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

} // namespace

std::string icu_install_advice() {
  return cat("; install Debian's ", kIcuDebianPackage,
             " (any libicuNN will do; libicu-dev pulls one in) or set $", kIcuEnv,
             " to the path of libicuuc.so.NN");
}

/// Opens the library and finds its suffix; the one place that may construct
/// an IcuLibrary.
struct IcuLoader {
  IcuLibrary icu;
  std::string error; // empty when usable

  void load() {
    const char *override_path = std::getenv(kIcuEnv);
    void *lib = nullptr;
    if (override_path && *override_path) {
      // RTLD_LOCAL: ICU's symbols stay out of the global namespace, where a
      // compiled model or the host program might bring its own ICU.
      lib = ::dlopen(override_path, RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        const char *e = ::dlerror();
        error = cat("ICU could not be loaded from $", kIcuEnv, "=", override_path, " (",
                    e ? e : "unknown dlerror", ")", icu_install_advice());
        return;
      }
      icu.path_ = override_path;
    } else {
      std::vector<std::string> names;
      for (int v = kNewestIcuMajor; v >= kOldestIcuMajor; --v)
        names.push_back(cat(kIcuBaseName, ".", v));
      names.push_back(kIcuBaseName); // libicu-dev's link, whatever its version
      for (const std::string &n : names) {
        lib = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib) {
          icu.path_ = n;
          break;
        }
      }
      if (!lib) {
        error = cat("ICU could not be loaded (tried ", kIcuBaseName, ".", kNewestIcuMajor,
                    " down to ", kIcuBaseName, ".", kOldestIcuMajor, ", then ", kIcuBaseName,
                    ", on the library search path)", icu_install_advice());
        return;
      }
    }
    // Never closed: objects ICU hands out (normalizer instances) live inside
    // the library for the rest of the process, as if the program linked ICU.
    std::string file = loaded_file(lib, icu.path_);
    if (file != icu.path_)
      icu.path_ += " (" + file + ")";
    if (!find_suffix(lib, file, icu.suffix_)) {
      error = cat(icu.path_, " is not ICU's libicuuc: it has no ", kProbeSymbol,
                  " (plain or with a version suffix _", kOldestIcuMajor, " to _", kNewestIcuMajor,
                  ")", icu_install_advice());
      return;
    }
    icu.handle_ = lib;
    icu.error_name_ = reinterpret_cast<const char *(*)(IcuErrorCode)>(icu.symbol("u_errorName"));
  }
};

const IcuLibrary &IcuLibrary::get() {
  // Loaded once per process: the search is not repeated, and a machine
  // without ICU fails with the same message every time.
  static std::once_flag once;
  static IcuLoader loader;
  std::call_once(once, [] { loader.load(); });
  if (!loader.error.empty())
    throw Error(LLMC_ERR_UNSUPPORTED, loader.error);
  return loader.icu;
}

void *IcuLibrary::symbol(const char *name) const {
  return ::dlsym(handle_, (name + suffix_).c_str());
}

std::string IcuLibrary::error_text(IcuErrorCode code) const {
  const char *name = error_name_ ? error_name_(code) : nullptr;
  return name ? cat(name, " (", code, ")") : cat("ICU error ", code);
}

void IcuEntryPoints::note_missing(const char *name) {
  missing_ += cat(missing_.empty() ? "" : ", ", name, icu_.suffix());
}

std::string IcuEntryPoints::missing_error() const {
  if (missing_.empty())
    return "";
  return cat(icu_.path(), " lacks ICU entry points (", missing_,
             "); this ICU is too old or not a full libicuuc", icu_install_advice());
}

} // namespace llmc::rt
