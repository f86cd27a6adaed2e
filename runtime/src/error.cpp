// Thread-local last-error slot and status names behind llmc_last_error / llmc_status_name.
#include "error.h"

namespace llmc::rt {

/// Thread-local so that concurrent callers never read each other's messages
/// and no lock is needed; the pointer returned by llmc_last_error stays valid
/// until this thread's next failure.
static thread_local std::string last_error;

void set_last_error(const std::string &message) noexcept {
  try {
    last_error = message;
  } catch (...) {
    // Out of memory while recording an error: keep whatever was there.
  }
}

} // namespace llmc::rt

extern "C" const char *llmc_last_error(void) {
  return llmc::rt::last_error.c_str();
}

extern "C" const char *llmc_status_name(llmc_status status) {
  switch (status) {
  case LLMC_OK:
    return "LLMC_OK";
  case LLMC_ERR_INVALID_ARGUMENT:
    return "LLMC_ERR_INVALID_ARGUMENT";
  case LLMC_ERR_IO:
    return "LLMC_ERR_IO";
  case LLMC_ERR_FORMAT:
    return "LLMC_ERR_FORMAT";
  case LLMC_ERR_UNSUPPORTED:
    return "LLMC_ERR_UNSUPPORTED";
  case LLMC_ERR_NOT_FOUND:
    return "LLMC_ERR_NOT_FOUND";
  case LLMC_ERR_OUT_OF_RANGE:
    return "LLMC_ERR_OUT_OF_RANGE";
  case LLMC_ERR_BUFFER_TOO_SMALL:
    return "LLMC_ERR_BUFFER_TOO_SMALL";
  case LLMC_ERR_OUT_OF_MEMORY:
    return "LLMC_ERR_OUT_OF_MEMORY";
  case LLMC_ERR_INTERNAL:
    return "LLMC_ERR_INTERNAL";
  }
  return "LLMC_ERR_UNKNOWN";
}
