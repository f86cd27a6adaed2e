// dlopen / dlsym / dlclose behind SharedLibrary.
#include "shared_library.h"

#include "error.h"
#include "mapped_file.h"

#include <dlfcn.h>

namespace llmc::rt {

namespace {
std::string dl_message() {
  const char *e = ::dlerror();
  return e ? e : "unknown dlerror";
}
} // namespace

SharedLibrary::SharedLibrary(const std::string &path) : path_(path) {
  // dlopen's message for a missing file is long and names the search rules;
  // a plain "not found" is clearer for the common case.
  if (!path_exists(path))
    fail(LLMC_ERR_IO, path, ": compiled model library not found");
  // RTLD_LOCAL: two artifacts may export the same symbol names (two builds of
  // one model) without one resolving to the other's code.
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_)
    fail(LLMC_ERR_FORMAT, path, ": cannot load the compiled model: ",
         dl_message());
}

SharedLibrary::~SharedLibrary() {
  if (handle_)
    ::dlclose(handle_);
}

std::unique_ptr<SharedLibrary> SharedLibrary::main_program() {
  std::unique_ptr<SharedLibrary> lib(new SharedLibrary());
  lib->path_ = "the running program";
  lib->handle_ = ::dlopen(nullptr, RTLD_NOW);
  if (!lib->handle_)
    fail(LLMC_ERR_INTERNAL, "dlopen of the running program failed: ",
         dl_message());
  return lib;
}

void *SharedLibrary::symbol(const std::string &name, const char *role) const {
  return lookup(name, cat(role, " entry point"));
}

void *SharedLibrary::lookup(const std::string &name, const std::string &what) const {
  ::dlerror(); // clear a stale message
  void *p = ::dlsym(handle_, name.c_str());
  if (!p)
    fail(LLMC_ERR_NOT_FOUND, path_, ": ", what, " '", name, "' not found: ",
         dl_message());
  return p;
}

void *SharedLibrary::find(const std::string &name) const {
  return ::dlsym(handle_, name.c_str());
}

} // namespace llmc::rt
