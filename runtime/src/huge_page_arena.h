// HugePageArena: long-lived buffers packed into 2 MiB-aligned mappings that the kernel may back with huge pages.
#ifndef LLMC_RUNTIME_HUGE_PAGE_ARENA_H
#define LLMC_RUNTIME_HUGE_PAGE_ARENA_H

#include <cstddef>
#include <vector>

namespace llmc::rt {

/// A bump allocator for buffers that live as long as the arena: the weights
/// the CPU kernels read on every token. A matrix of a small model (0.2-1.8 MB
/// for SmolLM2-135M) is too small for a 2 MiB page of its own, and so was
/// read through 4 KiB pages, each a TLB entry and a stop for the hardware
/// prefetchers; packed here one after another they share 2 MiB pages
/// (MADV_HUGEPAGE on 2 MiB-aligned chunks). Memory is zeroed and committed
/// as it is first touched. Not thread-safe: its owner serializes.
class HugePageArena {
public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  /// Chunks are at least this big (a bigger request gets a chunk of its own
  /// size), so that consecutive buffers share pages.
  static constexpr size_t kMinChunkBytes = size_t{64} << 20;

  HugePageArena() = default;
  ~HugePageArena();
  HugePageArena(const HugePageArena &) = delete;
  HugePageArena &operator=(const HugePageArena &) = delete;

  /// `bytes` of zeroed memory aligned to kBufferAlignment, valid until the
  /// arena is destroyed. Throws Error(LLMC_ERR_OUT_OF_MEMORY) naming `what`.
  void *allocate(size_t bytes, const char *what);

private:
  struct Chunk {
    void *mapping = nullptr;
    size_t mapped = 0; // bytes of the mapping, from `mapping`
    char *begin = nullptr;
    size_t size = 0, used = 0;
  };
  std::vector<Chunk> chunks_;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_HUGE_PAGE_ARENA_H
