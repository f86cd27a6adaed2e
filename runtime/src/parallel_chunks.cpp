// parallel_chunks: chunks of a load-time loop taken in turn by the machine's hardware threads.
#include "parallel_chunks.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace llmc::rt {

void parallel_chunks(size_t count, size_t grain,
                     const std::function<void(size_t begin, size_t end)> &body) {
  grain = std::max<size_t>(grain, 1);
  const size_t chunks = (count + grain - 1) / grain;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;)
      body(c * grain, std::min(count, (c + 1) * grain));
  };
  size_t wanted = std::max<size_t>(1, std::thread::hardware_concurrency());
  wanted = std::min(wanted, chunks);
  std::vector<std::thread> threads;
  for (size_t t = 1; t < wanted; ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error &) {
      break; // fewer threads: the same work, just slower
    }
  }
  worker();
  for (std::thread &t : threads)
    t.join();
}

} // namespace llmc::rt
