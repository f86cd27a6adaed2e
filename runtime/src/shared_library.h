// A dlopen'ed shared library (the compiled model) with symbol lookup and clear errors.
#ifndef LLMC_RUNTIME_SHARED_LIBRARY_H
#define LLMC_RUNTIME_SHARED_LIBRARY_H

#include <memory>
#include <string>

namespace llmc::rt {

/// Owns one dlopen handle; closing it on destruction unloads the compiled
/// code, so whatever calls into it must hold the library alive (the Model
/// does, and sessions hold the Model).
class SharedLibrary {
public:
  /// Loads `path` with every symbol resolved now (RTLD_NOW), so a library
  /// with an unresolved dependency fails here with dlerror()'s message rather
  /// than in the middle of a decode. Throws LLMC_ERR_IO / LLMC_ERR_FORMAT.
  explicit SharedLibrary(const std::string &path);
  /// The running program and the libraries it links (dlopen(NULL)): where a
  /// program that links lib<name>.a statically has its artifact's symbols,
  /// when it exports them (-rdynamic). Throws LLMC_ERR_INTERNAL.
  static std::unique_ptr<SharedLibrary> main_program();
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary &) = delete;
  SharedLibrary &operator=(const SharedLibrary &) = delete;

  /// Address of an exported symbol; throws LLMC_ERR_NOT_FOUND naming the
  /// symbol, the library and what it is used for.
  void *symbol(const std::string &name, const char *role) const;
  /// Address of any exported symbol (code or data); throws
  /// LLMC_ERR_NOT_FOUND "<library>: <what> '<name>' not found: ...".
  void *lookup(const std::string &name, const std::string &what) const;
  /// Address of an exported symbol of the library or its dependencies, or
  /// nullptr when there is none (optional features).
  void *find(const std::string &name) const;
  const std::string &path() const { return path_; }

private:
  SharedLibrary() = default;
  std::string path_;
  void *handle_ = nullptr;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_SHARED_LIBRARY_H
