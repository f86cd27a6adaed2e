// The C API boundary: runs C++ code, turns any exception into an llmc_status + message.
#ifndef LLMC_RUNTIME_API_GUARD_H
#define LLMC_RUNTIME_API_GUARD_H

#include "error.h"

#include <new>

namespace llmc::rt {

/// Every extern "C" entry point runs its body through guarded() so that no
/// exception can cross the C boundary (undefined behaviour for C callers).
template <typename Fn> llmc_status guarded(Fn &&fn) noexcept {
  try {
    fn();
    return LLMC_OK;
  } catch (const Error &e) {
    set_last_error(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    set_last_error("out of memory");
    return LLMC_ERR_OUT_OF_MEMORY;
  } catch (const std::exception &e) {
    set_last_error(cat("internal error: ", e.what()));
    return LLMC_ERR_INTERNAL;
  } catch (...) {
    set_last_error("internal error: unknown exception");
    return LLMC_ERR_INTERNAL;
  }
}

/// NULL checks with the function and parameter named in the message.
inline void require(const void *p, const char *function, const char *param) {
  if (!p)
    fail(LLMC_ERR_INVALID_ARGUMENT, function, ": '", param, "' is NULL");
}

} // namespace llmc::rt

#endif // LLMC_RUNTIME_API_GUARD_H
