// ScratchArena: best-fit holes, then chunk tails, then a new chunk; reset per entry-point call, compacted after growth.
#include "cuda_scratch.h"

#include "error.h"

#include <algorithm>
#include <limits>

namespace llmc::rt {

namespace {
/// Requests above this are refused before any arithmetic can overflow.
constexpr uint64_t kMaxRequest = std::numeric_limits<uint64_t>::max() / 4;
} // namespace

ScratchArena::ScratchArena(AllocateFn allocate, ReleaseFn release)
    : allocate_(std::move(allocate)), release_(std::move(release)) {}

ScratchArena::~ScratchArena() {
  for (const Chunk &c : chunks_)
    release_(c.base);
}

uint64_t ScratchArena::rounded(uint64_t bytes) {
  return (std::max<uint64_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
}

uint64_t ScratchArena::total_bytes() const {
  uint64_t total = 0;
  for (const Chunk &c : chunks_)
    total += c.bytes;
  return total;
}

void ScratchArena::reset() {
  for (Chunk &c : chunks_) {
    c.top = 0;
    c.holes.clear();
  }
  live_.clear();
  live_bytes_ = 0;
  requests_.clear();
  allocs_ = 0;
}

int ScratchArena::place(std::vector<Chunk> &chunks, uint64_t size,
                        uint64_t *offset) {
  // The smallest hole that fits; the first (lowest chunk, lowest offset)
  // among equals.
  int best = -1;
  uint64_t best_size = 0, best_offset = 0;
  for (size_t i = 0; i < chunks.size(); ++i)
    for (const auto &[start, length] : chunks[i].holes)
      if (length >= size && (best < 0 || length < best_size)) {
        best = static_cast<int>(i);
        best_size = length;
        best_offset = start;
      }
  if (best >= 0) {
    Chunk &c = chunks[best];
    c.holes.erase(best_offset);
    if (best_size > size)
      c.holes[best_offset + size] = best_size - size;
    *offset = best_offset;
    return best;
  }
  for (size_t i = 0; i < chunks.size(); ++i)
    if (chunks[i].bytes - chunks[i].top >= size) {
      *offset = chunks[i].top;
      chunks[i].top += size;
      return static_cast<int>(i);
    }
  return -1;
}

void ScratchArena::free_block(Chunk &chunk, uint64_t offset, uint64_t size) {
  // Merge with the hole after it, then with the one before it; a hole that
  // reaches the tail goes back to the tail.
  auto next = chunk.holes.find(offset + size);
  if (next != chunk.holes.end()) {
    size += next->second;
    chunk.holes.erase(next);
  }
  auto after = chunk.holes.lower_bound(offset);
  if (after != chunk.holes.begin()) {
    auto before = std::prev(after);
    if (before->first + before->second == offset) {
      offset = before->first;
      size += before->second;
      chunk.holes.erase(before);
    }
  }
  if (offset + size == chunk.top)
    chunk.top = offset;
  else
    chunk.holes[offset] = size;
}

uint64_t ScratchArena::allocate_chunk(uint64_t bytes, std::string *error) {
  uint64_t base = allocate_(bytes, error);
  if (base != 0 && base % kAlignment != 0) {
    release_(base);
    *error = cat("the allocator returned an address not aligned to ",
                 kAlignment, " bytes");
    return 0;
  }
  return base;
}

uint64_t ScratchArena::alloc(uint64_t bytes, std::string *error) {
  if (bytes > kMaxRequest) {
    *error = cat("a scratch request of ", bytes, " bytes is too large");
    return 0;
  }
  uint64_t size = rounded(bytes);
  uint64_t offset = 0;
  int chunk = place(chunks_, size, &offset);
  if (chunk < 0) {
    uint64_t chunk_bytes = std::max(size, kMinChunkBytes);
    uint64_t base = allocate_chunk(chunk_bytes, error);
    if (base == 0)
      return 0;
    chunks_.push_back({base, chunk_bytes});
    chunk = static_cast<int>(chunks_.size() - 1);
    chunks_[chunk].top = size;
    offset = 0;
  }
  uint64_t address = chunks_[chunk].base + offset;
  live_[address] = {size, allocs_++};
  live_bytes_ += size;
  requests_.push_back(static_cast<int64_t>(bytes));
  return address;
}

bool ScratchArena::release(uint64_t address, std::string *error) {
  auto it = live_.find(address);
  if (it == live_.end()) {
    *error = cat("releasing scratch address 0x", std::hex, address, std::dec,
                 ", which is not a live block of this call");
    return false;
  }
  for (Chunk &c : chunks_)
    if (address >= c.base && address - c.base < c.bytes) {
      free_block(c, address - c.base, it->second.size);
      break;
    }
  live_bytes_ -= it->second.size;
  requests_.push_back(~it->second.index);
  live_.erase(it);
  return true;
}

uint64_t ScratchArena::high_water_mark(const std::vector<int64_t> &requests) {
  // The placement rule in one chunk too large to fill: the tail's highest
  // point is the size that holds the sequence.
  std::vector<Chunk> one = {{0, kMaxRequest}};
  std::vector<std::pair<uint64_t, uint64_t>> blocks; // offset, size per alloc
  uint64_t high = 0;
  for (int64_t r : requests) {
    if (r >= 0) {
      uint64_t size = rounded(static_cast<uint64_t>(r));
      uint64_t offset = 0;
      place(one, size, &offset);
      blocks.push_back({offset, size});
      high = std::max(high, one[0].top);
    } else {
      const auto &[offset, size] = blocks[static_cast<size_t>(~r)];
      free_block(one[0], offset, size);
    }
  }
  return high;
}

bool ScratchArena::compact() {
  if (chunks_.size() <= 1)
    return false;
  uint64_t bytes = std::max(high_water_mark(requests_), kMinChunkBytes);
  for (const Chunk &c : chunks_)
    release_(c.base);
  chunks_.clear();
  std::string ignored; // a failure shows at the next call's allocation
  if (uint64_t base = allocate_chunk(bytes, &ignored))
    chunks_.push_back({base, bytes});
  reset();
  return true;
}

} // namespace llmc::rt
