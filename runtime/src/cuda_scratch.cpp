// ScratchArena: a cursor over never-freed chunks, reset per entry-point call.
#include "cuda_scratch.h"

#include "error.h"

#include <algorithm>
#include <limits>

namespace llmc::rt {

ScratchArena::ScratchArena(AllocateFn allocate, ReleaseFn release)
    : allocate_(std::move(allocate)), release_(std::move(release)) {}

ScratchArena::~ScratchArena() {
  for (const Chunk &c : chunks_)
    release_(c.base);
}

void ScratchArena::reset() {
  chunk_ = 0;
  offset_ = 0;
}

uint64_t ScratchArena::alloc(uint64_t bytes, std::string *error) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max() / 4;
  if (bytes > kMax) {
    *error = cat("a scratch request of ", bytes, " bytes is too large");
    return 0;
  }
  uint64_t size = (std::max<uint64_t>(bytes, 1) + kAlignment - 1) / kAlignment *
                  kAlignment;
  const size_t start_chunk = chunk_;
  const uint64_t start_offset = offset_;
  while (chunk_ < chunks_.size()) {
    const Chunk &c = chunks_[chunk_];
    if (c.bytes - offset_ >= size) {
      uint64_t address = c.base + offset_;
      offset_ += size;
      return address;
    }
    ++chunk_;
    offset_ = 0;
  }
  uint64_t chunk_bytes = std::max(2 * size, kMinChunkBytes);
  uint64_t base = allocate_(chunk_bytes, error);
  if (base != 0 && base % kAlignment != 0) {
    release_(base);
    *error = cat("the allocator returned an address not aligned to ",
                 kAlignment, " bytes");
    base = 0;
  }
  if (base == 0) {
    // A failed request leaves the cursor where it was.
    chunk_ = start_chunk;
    offset_ = start_offset;
    return 0;
  }
  chunks_.push_back({base, chunk_bytes});
  chunk_ = chunks_.size() - 1;
  offset_ = size;
  return base;
}

} // namespace llmc::rt
