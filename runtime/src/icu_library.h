// ICU's libicuuc opened with dlopen once per process, and its version-suffixed C entry points resolved by name.
#ifndef LLMC_RUNTIME_ICU_LIBRARY_H
#define LLMC_RUNTIME_ICU_LIBRARY_H

#include <string>

namespace llmc::rt {

// ICU's C ABI types, declared here so that building the runtime needs no ICU
// headers (only the features that use ICU need the library, at run time).
using IcuUChar = char16_t;
/// UErrorCode: 0 is success, negative values are warnings, positive ones
/// failures (U_FAILURE).
using IcuErrorCode = int;
constexpr IcuErrorCode kIcuZeroError = 0;
constexpr IcuErrorCode kIcuBufferOverflowError = 15; // U_BUFFER_OVERFLOW_ERROR

/// The process's libicuuc. It is opened with dlopen rather than linked so
/// that a binary copied to another machine (whose libicuuc has another
/// soname version) still starts, and only features that need Unicode data
/// (tokenizer normalizers, chat-template case mapping) need ICU at all.
/// $LLMC_ICU_LIBRARY names the file to open instead of searching.
class IcuLibrary {
public:
  /// Loads ICU on the first call in the process (later calls repeat the
  /// outcome, never the search). Throws LLMC_ERR_UNSUPPORTED "ICU could not
  /// be loaded ..." / "... is not ICU's libicuuc ..." ending in install
  /// advice; callers prefix what needed ICU.
  static const IcuLibrary &get();

  /// The library as opened, and the file it resolved to, for messages.
  const std::string &path() const { return path_; }
  /// The C function `name` under this ICU's symbol suffix (u_foo_72), or
  /// nullptr when the library lacks it.
  void *symbol(const char *name) const;
  /// The symbol suffix itself ("" or "_NN"), for messages.
  const std::string &suffix() const { return suffix_; }
  /// u_errorName's text and the number, e.g. "U_FILE_ACCESS_ERROR (4)".
  std::string error_text(IcuErrorCode code) const;

private:
  IcuLibrary() = default;
  friend struct IcuLoader;
  void *handle_ = nullptr;
  std::string path_;
  std::string suffix_;
  const char *(*error_name_)(IcuErrorCode) = nullptr;
};

/// What to do when ICU is missing or unusable, appended to every such message.
std::string icu_install_advice();

/// The entry points one feature needs, resolved together so that a too-old
/// or partial ICU is reported once with every missing name.
class IcuEntryPoints {
public:
  explicit IcuEntryPoints(const IcuLibrary &icu) : icu_(icu) {}
  template <typename Fn> void resolve(Fn &slot, const char *name) {
    slot = reinterpret_cast<Fn>(icu_.symbol(name));
    if (!slot)
      note_missing(name);
  }
  /// "" when all resolved, else "<path> lacks ICU entry points (a_NN, b_NN);
  /// this ICU is too old or not a full libicuuc; install ...".
  std::string missing_error() const;

private:
  void note_missing(const char *name);
  const IcuLibrary &icu_;
  std::string missing_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_ICU_LIBRARY_H
