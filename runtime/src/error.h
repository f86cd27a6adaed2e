// Internal error type: thrown inside the runtime, turned into an llmc_status at the C API boundary.
#ifndef LLMC_RUNTIME_ERROR_H
#define LLMC_RUNTIME_ERROR_H

#include "llmc/runtime.h"

#include <exception>
#include <sstream>
#include <string>
#include <utility>

namespace llmc::rt {

/// Every failure inside the runtime is an Error carrying the status the C API
/// will return, so that parsers deep in a call stack can stop with one clear
/// message without threading status codes through every helper.
class Error : public std::exception {
public:
  Error(llmc_status status, std::string message)
      : status_(status), message_(std::move(message)) {}
  llmc_status status() const noexcept { return status_; }
  const char *what() const noexcept override { return message_.c_str(); }

private:
  llmc_status status_;
  std::string message_;
};

/// Concatenates anything streamable; keeps error sites one line long.
template <typename... Args> std::string cat(Args &&...args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

template <typename... Args>
[[noreturn]] void fail(llmc_status status, Args &&...args) {
  throw Error(status, cat(std::forward<Args>(args)...));
}

/// Records `message` as the calling thread's last error (see llmc_last_error).
void set_last_error(const std::string &message) noexcept;

} // namespace llmc::rt

#endif // LLMC_RUNTIME_ERROR_H
