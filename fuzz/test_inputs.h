// Fixed objects the targets load once from the tests' data (test/runtime/Inputs) and fuzz what they are fed.
#ifndef LLMC_FUZZ_TEST_INPUTS_H
#define LLMC_FUZZ_TEST_INPUTS_H

#include "llmc/runtime.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace llmc::fuzz {

/// A loaded object, destroyed with the target (at exit), so that
/// LeakSanitizer sees nothing left.
template <typename T>
using Handle = std::unique_ptr<T, void (*)(T *)>;

/// test/runtime/Inputs/<name><suffix> for each of `names`, loaded with
/// `load`. A file that does not load aborts with the runtime's message: the
/// fixed objects are part of the target, not of its input.
template <typename T, size_t N>
std::vector<Handle<T>> load_test_inputs(const char *const (&names)[N],
                                        const char *suffix,
                                        llmc_status (*load)(const char *, T **),
                                        void (*destroy)(T *)) {
  std::vector<Handle<T>> loaded;
  for (const char *name : names) {
    std::string path = std::string(LLMC_FUZZ_SOURCE_DIR "/test/runtime/Inputs/") +
                       name + suffix;
    T *object = nullptr;
    if (load(path.c_str(), &object) != LLMC_OK) {
      std::fprintf(stderr, "llmc fuzz: cannot load %s: %s\n", path.c_str(),
                   llmc_last_error());
      std::abort();
    }
    loaded.emplace_back(object, destroy);
  }
  return loaded;
}

} // namespace llmc::fuzz

#endif // LLMC_FUZZ_TEST_INPUTS_H
