// llmc-run's die/check and its file and token-list readers.
#include "cli.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace llmc_run {

namespace {
/// Characters of a bad token list quoted back: enough to spot the typo,
/// short enough that a whole pasted file does not flood the terminal.
constexpr size_t kQuotedInputMax = 32;
} // namespace

void die(const std::string &message) {
  std::fprintf(stderr, "llmc-run: error: %s\n", message.c_str());
  std::exit(1);
}

void check(llmc_status status, const char *step) {
  if (status == LLMC_OK)
    return;
  die(step ? std::string(step) + ": " + llmc_last_error() : llmc_last_error());
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string read_file(const std::string &flag, const char *path) {
  FILE *f = std::fopen(path, "rb");
  if (!f)
    die(flag + ": " + path + ": " + std::strerror(errno));
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    text.append(buf, n);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed)
    die(flag + ": " + path + ": read error");
  return text;
}

std::vector<int32_t> parse_token_list(const std::string &flag, const std::string &text) {
  std::vector<int32_t> ids;
  const char *p = text.c_str();
  while (*p) {
    if (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n' || *p == '\r') {
      ++p;
      continue;
    }
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(p, &end, 10);
    if (end == p || errno || v < INT32_MIN || v > INT32_MAX)
      die(flag + ": '" + std::string(p).substr(0, kQuotedInputMax) +
          "' is not a list of integer token ids");
    ids.push_back(static_cast<int32_t>(v));
    p = end;
  }
  if (ids.empty())
    die(flag + ": no token ids given");
  return ids;
}

} // namespace llmc_run
