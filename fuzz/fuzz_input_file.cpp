// A fuzz input written to a file, for the parsers that only take a path.
#include "fuzz_input_file.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

namespace llmc::fuzz {

namespace {

std::string choose_parent() {
  if (const char *tmp = std::getenv("TMPDIR"); tmp && *tmp)
    return tmp;
  if (access("/dev/shm", W_OK) == 0)
    return "/dev/shm";
  return "/tmp";
}

int remove_entry(const char *path, const struct stat *, int, struct FTW *) {
  return std::remove(path);
}

void remove_scratch_directory() {
  nftw(scratch_directory().c_str(), remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

[[noreturn]] void die(const char *what, const std::string &path) {
  std::perror((std::string("llmc fuzz: ") + what + " " + path).c_str());
  std::abort();
}

} // namespace

const std::string &scratch_directory() {
  static const std::string dir = [] {
    std::string tmpl = choose_parent() + "/llmc-fuzz-XXXXXX";
    if (!mkdtemp(tmpl.data()))
      die("cannot create a directory from", tmpl);
    return tmpl;
  }();
  static const bool cleaned_at_exit = std::atexit(remove_scratch_directory) == 0;
  (void)cleaned_at_exit;
  return dir;
}

InputFile::InputFile(const std::string &name)
    : path_(scratch_directory() + "/" + name) {}

const std::string &InputFile::write(const uint8_t *data, size_t size) const {
  int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    die("cannot write", path_);
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n <= 0)
      die("cannot write", path_);
    data += n;
    size -= static_cast<size_t>(n);
  }
  close(fd);
  return path_;
}

} // namespace llmc::fuzz
