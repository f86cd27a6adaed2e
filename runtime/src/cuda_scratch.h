// The scratch arena behind llmc_cuda_host_api.alloc: deterministic addresses, chunks never freed mid-session.
#ifndef LLMC_RUNTIME_CUDA_SCRATCH_H
#define LLMC_RUNTIME_CUDA_SCRATCH_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace llmc::rt {

/// Intermediate tensors of one entry-point call. The cursor restarts at the
/// first chunk on every call, so a call that makes the same requests as an
/// earlier one gets the same addresses, and those addresses stay valid for
/// the session's lifetime: chunks are only ever added, never freed or moved
/// (a captured CUDA graph keeps using the addresses of its capture, and host
/// code may hold any pointer until its call returns).
///
/// A request that does not fit the current chunk's remainder moves to the
/// next chunk; past the last one a new chunk of max(2 x request,
/// kMinChunkBytes) is allocated. The unused tail of a skipped chunk is
/// wasted for that call only.
///
/// Addresses are plain integers (device pointers); allocation goes through
/// the two functions given, so the arena itself needs no driver (and is
/// tested with host memory).
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

  /// Back to the start of the first chunk (the start of an entry-point call).
  void reset();
  /// A kAlignment-aligned block of at least `bytes` bytes (0 counts as 1);
  /// 0 with *error set (and the cursor unchanged) when a new chunk cannot be
  /// allocated or the size overflows.
  uint64_t alloc(uint64_t bytes, std::string *error);

  size_t chunk_count() const { return chunks_.size(); }
  uint64_t chunk_bytes(size_t i) const { return chunks_[i].bytes; }
  uint64_t chunk_base(size_t i) const { return chunks_[i].base; }

private:
  struct Chunk {
    uint64_t base;
    uint64_t bytes;
  };
  AllocateFn allocate_;
  ReleaseFn release_;
  std::vector<Chunk> chunks_;
  size_t chunk_ = 0;   // cursor: chunk index
  uint64_t offset_ = 0; // cursor: bytes used in that chunk
};

} // namespace llmc::rt

#endif // LLMC_RUNTIME_CUDA_SCRATCH_H
