// Load-time loops split into chunks on the machine's hardware threads: the random weights' fills, the interleaved repacks.
#ifndef LLMC_RUNTIME_PARALLEL_CHUNKS_H
#define LLMC_RUNTIME_PARALLEL_CHUNKS_H

#include <cstddef>
#include <functional>

namespace llmc::rt {

/// Calls body(begin, end) once for each chunk [begin, end) of [0, count),
/// `grain` items long (the last one shorter), on up to
/// std::thread::hardware_concurrency() threads, the caller's included: each
/// thread takes the next chunk until none is left, and the call returns when
/// every chunk is done. A thread that cannot be started leaves its chunks to
/// the others. The chunks must not depend on one another; body must not
/// throw.
void parallel_chunks(size_t count, size_t grain,
                     const std::function<void(size_t begin, size_t end)> &body);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_PARALLEL_CHUNKS_H
