// llmc-run's error reporting and small parsers, shared by its commands (generation, chat, tokenize).
#ifndef LLMC_RUN_CLI_H
#define LLMC_RUN_CLI_H

#include "llmc/runtime.h"

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

/// The whole file at `path`; dies naming `flag` and the path.
std::string read_file(const std::string &flag, const char *path);

/// Token ids separated by spaces, commas, tabs or newlines; dies naming
/// `flag` and quoting the start of what is not an id.
std::vector<int32_t> parse_token_list(const std::string &flag, const std::string &text);

} // namespace llmc_run

#endif // LLMC_RUN_CLI_H
