// mmap-based read-only file mapping with clear errors and paging hints.
#include "mapped_file.h"

#include "error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace llmc::rt {

namespace {
/// Closes the descriptor on every path out of open(); the mapping stays valid
/// after close, so no descriptor is held for the lifetime of the weights.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};
} // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail(LLMC_ERR_IO, path, ": cannot open: ", std::strerror(errno));
  FdCloser closer{fd};

  struct stat st;
  if (::fstat(fd, &st) != 0)
    fail(LLMC_ERR_IO, path, ": cannot stat: ", std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    fail(LLMC_ERR_IO, path, ": is a directory, expected a file");
  if (!S_ISREG(st.st_mode))
    fail(LLMC_ERR_IO, path, ": not a regular file");
  if (st.st_size == 0)
    fail(LLMC_ERR_IO, path, ": file is empty");

  uint64_t size = static_cast<uint64_t>(st.st_size);
  void *addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (addr == MAP_FAILED) {
    int error = errno;
    // ENOMEM: the file is larger than the address space this process may
    // still use (RLIMIT_AS, or the kernel's overcommit policy).
    if (error == ENOMEM)
      fail(LLMC_ERR_OUT_OF_MEMORY, path, ": cannot map its ", size,
           " bytes: ", std::strerror(error),
           " (the weights do not fit the memory this process may use)");
    fail(LLMC_ERR_IO, path, ": mmap failed: ", std::strerror(error));
  }

  // Hints only: failures (e.g. no transparent huge pages for this file
  // system) are harmless, so their results are ignored. Huge pages cut TLB
  // misses when kernels stream weights; WILLNEED starts readahead early.
#ifdef MADV_HUGEPAGE
  (void)::madvise(addr, size, MADV_HUGEPAGE);
#endif
  (void)::madvise(addr, size, MADV_WILLNEED);

  return std::shared_ptr<MappedFile>(
      new MappedFile(path, static_cast<const uint8_t *>(addr), size));
}

MappedFile::~MappedFile() {
  ::munmap(const_cast<uint8_t *>(data_), size_);
}

bool is_directory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string parent_directory(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace llmc::rt
