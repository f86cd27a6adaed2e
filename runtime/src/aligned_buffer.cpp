// AlignedBuffer: aligned_alloc for small buffers, anonymous mmap + MADV_HUGEPAGE for big ones.
#include "aligned_buffer.h"

#include "error.h"

#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <utility>

namespace llmc::rt {

AlignedBuffer::AlignedBuffer(size_t bytes, const char *what) : bytes_(bytes) {
  if (bytes == 0)
    return;
  if (bytes >= kHugePageThreshold) {
    // Anonymous mappings are zero-filled and page-aligned (>= 64 bytes).
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      fail(LLMC_ERR_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes for ",
           what);
#ifdef MADV_HUGEPAGE
    (void)::madvise(p, bytes, MADV_HUGEPAGE); // a hint; failure is harmless
#endif
    data_ = p;
    mapped_ = true;
    return;
  }
  // aligned_alloc requires a size that is a multiple of the alignment.
  size_t rounded = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  data_ = std::aligned_alloc(kBufferAlignment, rounded);
  if (!data_)
    fail(LLMC_ERR_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes for ", what);
  std::memset(data_, 0, rounded);
}

AlignedBuffer::~AlignedBuffer() { release(); }

AlignedBuffer::AlignedBuffer(AlignedBuffer &&other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

AlignedBuffer &AlignedBuffer::operator=(AlignedBuffer &&other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

void AlignedBuffer::clear() {
  if (data_)
    std::memset(data_, 0, bytes_);
}

void AlignedBuffer::release() {
  if (!data_)
    return;
  if (mapped_)
    ::munmap(data_, bytes_);
  else
    std::free(data_);
  data_ = nullptr;
}

} // namespace llmc::rt
