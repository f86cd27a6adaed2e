// llmc-run's error reporting and small parsers, shared by its commands (generation, chat, tokenize).
#ifndef LLMC_RUN_CLI_H
#define LLMC_RUN_CLI_H

#include "llmc/runtime.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llmc_run {

/// Prints one `llmc-run: error: ...` line on stderr and exits 1: every
/// failure of the tool ends this way.
[[noreturn]] void die(const std::string &message);

/// Dies with the runtime's message (which already names the file or
/// tensor), prefixed by `step` when given.
void check(llmc_status status, const char *step = nullptr);

/// Runs a runtime call that writes into a caller's buffer under the C API's
/// LLMC_ERR_BUFFER_TOO_SMALL convention (on that status the call reports the
/// size it needs), starting from `guess` elements and growing until the
/// result fits: one call when the guess is right, instead of a measuring
/// call plus a second full run. `call(data, capacity, &size)`; dies naming
/// `step` on any other failure. Container: std::string or std::vector.
template <typename Container, typename Call>
Container fill_buffer(size_t guess, const char *step, Call call) {
  // A result can change between calls only through the clock (a chat
  // template's strftime_now), so a few rounds always settle.
  constexpr int kMaxRounds = 4;
  Container buffer(guess, typename Container::value_type{});
  for (int round = 1;; ++round) {
    size_t size = 0;
    llmc_status status = call(buffer.data(), buffer.size(), &size);
    if (status == LLMC_OK) {
      buffer.resize(size);
      return buffer;
    }
    if (status != LLMC_ERR_BUFFER_TOO_SMALL || round == kMaxRounds)
      check(status, step);
    buffer.resize(size);
  }
}

/// Wall-clock seconds since `start` (the rates llmc-run prints).
double seconds_since(std::chrono::steady_clock::time_point start);

/// The whole file at `path`; dies naming `flag` and the path.
std::string read_file(const std::string &flag, const char *path);

/// Token ids separated by spaces, commas, tabs or newlines; dies naming
/// `flag` and quoting the start of what is not an id.
std::vector<int32_t> parse_token_list(const std::string &flag, const std::string &text);

} // namespace llmc_run

#endif // LLMC_RUN_CLI_H
