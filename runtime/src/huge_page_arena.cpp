// HugePageArena: long-lived buffers packed into 2 MiB-aligned mappings that the kernel may back with huge pages.
#include "huge_page_arena.h"

#include "aligned_buffer.h"
#include "error.h"

#include <algorithm>
#include <cstdint>
#include <sys/mman.h>

namespace llmc::rt {

namespace {
size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
} // namespace

HugePageArena::~HugePageArena() {
  for (const Chunk &chunk : chunks_)
    ::munmap(chunk.mapping, chunk.mapped);
}

void *HugePageArena::allocate(size_t bytes, const char *what) {
  size_t rounded = round_up(bytes ? bytes : 1, kBufferAlignment);
  auto take = [&](Chunk &chunk) -> void * {
    void *result = chunk.begin + chunk.used;
    chunk.used += rounded;
    return result;
  };
  if (!chunks_.empty() && chunks_.back().size - chunks_.back().used >= rounded)
    return take(chunks_.back());
  Chunk chunk;
  chunk.size = std::max(kMinChunkBytes, round_up(rounded, kHugePage));
  // One huge page more than the chunk, so that it can start on a 2 MiB
  // boundary: huge pages back aligned ranges only.
  chunk.mapped = chunk.size + kHugePage;
  chunk.mapping = ::mmap(nullptr, chunk.mapped, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (chunk.mapping == MAP_FAILED)
    fail(LLMC_ERR_OUT_OF_MEMORY, "cannot allocate ", bytes, " bytes for ",
         what);
  chunk.begin = reinterpret_cast<char *>(
      round_up(reinterpret_cast<uintptr_t>(chunk.mapping), kHugePage));
#ifdef MADV_HUGEPAGE
  (void)::madvise(chunk.begin, chunk.size, MADV_HUGEPAGE); // a hint
#endif
  // A request bigger than a chunk fills one of its own, kept before the
  // chunk that the smaller ones go on filling.
  auto at = rounded > kMinChunkBytes && !chunks_.empty() ? chunks_.end() - 1
                                                         : chunks_.end();
  return take(*chunks_.insert(at, chunk));
}

} // namespace llmc::rt
