// LLMC_FUZZ_CHECK: an invariant of the API under fuzzing; a violation aborts, so libFuzzer keeps the input.
#ifndef LLMC_FUZZ_CHECK_H
#define LLMC_FUZZ_CHECK_H

#include <cstdio>
#include <cstdlib>

/// Sanitizers find memory and UB errors; this finds answers that are wrong
/// without being undefined (an id outside the vocabulary, a size that the
/// measuring call and the filling call disagree on).
#define LLMC_FUZZ_CHECK(cond)                                                  \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__,     \
                   __LINE__, #cond);                                           \
      std::abort();                                                            \
    }                                                                          \
  } while (0)

#endif // LLMC_FUZZ_CHECK_H
