// The scratch allocator behind llmc_cuda_host_api.alloc/release: blocks reused by liveness, deterministic addresses.
#ifndef LLMC_RUNTIME_CUDA_SCRATCH_H
#define LLMC_RUNTIME_CUDA_SCRATCH_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace llmc::rt {

/// Intermediate tensors of one entry-point call. The host code allocates a
/// block per tensor and releases it after its last use
/// (llm-cuda-free-scratch), so a block's bytes serve later tensors of the
/// same call: a prefill holds about its largest live set, not the sum of
/// all its tensors.
///
/// Placement is a pure function of the call's sequence of requests and of
/// the chunks at its start: a released block becomes a hole (merged with
/// its neighbours); a request takes the smallest hole that fits (the lowest
/// address among equals), else the unused tail of the first chunk that has
/// room, else a new chunk of max(request, kMinChunkBytes). Every call
/// starts with all chunks free, so a call that repeats an earlier one's
/// requests gets the same addresses, which is what lets the runtime replay
/// a decode step as a CUDA graph.
///
/// Chunks are never freed during a call. After a call that left more than
/// one chunk (it grew), `compact()` replaces them with one chunk as large as
/// that call's sequence needs when placed in a single chunk (its high-water
/// mark); the same sequence then fits it exactly, and so does any sequence
/// whose high-water mark is no larger. Compaction moves every address: the
/// caller drops whatever recorded the old ones (a captured graph).
///
/// Addresses are plain integers (device pointers); memory comes from the
/// two functions given, so the allocator needs no driver (and is tested on
/// made-up addresses).
class ScratchArena {
public:
  /// 256 bytes: what cudaMalloc guarantees, and what the host API promises.
  static constexpr uint64_t kAlignment = 256;
  /// 64 MiB: a whole decode step of a 70B model's activations fits in one
  /// chunk, so steady state is one chunk and no allocation after warm-up.
  static constexpr uint64_t kMinChunkBytes = uint64_t{64} << 20;

  /// `allocate` returns 0 and sets its message on failure; `release` frees.
  using AllocateFn = std::function<uint64_t(uint64_t bytes, std::string *error)>;
  using ReleaseFn = std::function<void(uint64_t address)>;

  ScratchArena(AllocateFn allocate, ReleaseFn release);
  ~ScratchArena();
  ScratchArena(const ScratchArena &) = delete;
  ScratchArena &operator=(const ScratchArena &) = delete;

  /// The start of an entry-point call: every chunk free, nothing live.
  void reset();
  /// A kAlignment-aligned block of at least `bytes` bytes (0 counts as 1);
  /// 0 with *error set (and nothing changed) when a new chunk cannot be
  /// allocated or the size overflows.
  uint64_t alloc(uint64_t bytes, std::string *error);
  /// Ends the life of the block at `address` (an alloc result of this
  /// call); false with *error set when it is not a live block.
  bool release(uint64_t address, std::string *error);
  /// After a call (nothing in flight uses the chunks): one chunk instead of
  /// several, sized for the last call's requests. True when the chunks
  /// changed; false, with the chunks as they were, when there was at most
  /// one. A failed allocation leaves no chunk: the next call allocates.
  bool compact();

  size_t chunk_count() const { return chunks_.size(); }
  uint64_t chunk_bytes(size_t i) const { return chunks_[i].bytes; }
  uint64_t chunk_base(size_t i) const { return chunks_[i].base; }
  /// Sum of the chunks' sizes: the device memory the arena holds.
  uint64_t total_bytes() const;
  /// Bytes of the blocks live now (rounded up to kAlignment).
  uint64_t live_bytes() const { return live_bytes_; }

  /// The size of the one chunk that `requests` (alloc sizes and, as ~index,
  /// the release of the index-th alloc) need from an empty arena.
  static uint64_t high_water_mark(const std::vector<int64_t> &requests);

private:
  struct Chunk {
    uint64_t base;
    uint64_t bytes;
    uint64_t top = 0;                       // start of the unused tail
    std::map<uint64_t, uint64_t> holes;     // offset -> size, below top
  };
  /// The placement rule on `chunks` (offsets); chunk index or -1 for none.
  static int place(std::vector<Chunk> &chunks, uint64_t size, uint64_t *offset);
  static void free_block(Chunk &chunk, uint64_t offset, uint64_t size);
  /// A new chunk of `bytes` from the allocator, or 0 with *error (also when
  /// the allocator returns an address that is not kAlignment-aligned, which
  /// is handed back).
  uint64_t allocate_chunk(uint64_t bytes, std::string *error);
  static uint64_t rounded(uint64_t bytes);

  AllocateFn allocate_;
  ReleaseFn release_;
  std::vector<Chunk> chunks_;
  struct LiveBlock {
    uint64_t size;  // rounded
    int64_t index;  // which alloc of the call
  };
  std::map<uint64_t, LiveBlock> live_; // by address
  uint64_t live_bytes_ = 0;
  // This call's requests (see high_water_mark) and its alloc count.
  std::vector<int64_t> requests_;
  int64_t allocs_ = 0;
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_SCRATCH_H
