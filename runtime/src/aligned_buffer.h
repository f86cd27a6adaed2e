// Zeroed, 64-byte-aligned heap buffers (KV cache, logits, reordered weights), huge pages when big.
#ifndef LLMC_RUNTIME_ALIGNED_BUFFER_H
#define LLMC_RUNTIME_ALIGNED_BUFFER_H

#include <cstddef>
#include <cstdint>

namespace llmc::rt {

/// 64 bytes: one cache line and one AVX-512 register, so compiled kernels can
/// use aligned vector loads from the start of every buffer.
constexpr size_t kBufferAlignment = 64;

/// Move-only owner of zero-filled memory. Buffers of at least
/// kHugePageThreshold bytes come from mmap with MADV_HUGEPAGE: a KV cache or
/// a reordered weight is streamed on every token, and 2 MiB pages cut TLB
/// misses; smaller ones come from aligned_alloc, where a whole mapping would
/// waste memory.
class AlignedBuffer {
public:
  static constexpr size_t kHugePageThreshold = size_t{2} << 20;

  AlignedBuffer() = default;
  /// Throws Error(LLMC_ERR_OUT_OF_MEMORY) naming `what`.
  AlignedBuffer(size_t bytes, const char *what);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer &&other) noexcept;
  AlignedBuffer &operator=(AlignedBuffer &&other) noexcept;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;

  void *data() const { return data_; }
  float *f32() const { return static_cast<float *>(data_); }
  size_t size() const { return bytes_; }
  /// Zero-fills the whole buffer again.
  void clear();

private:
  void release();
  void *data_ = nullptr;
  size_t bytes_ = 0;
  bool mapped_ = false;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_ALIGNED_BUFFER_H
