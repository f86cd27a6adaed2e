// The page table the runtime writes at the head of a paged KV cache.
#include "kv_page_table.h"

namespace llmc::rt {

std::vector<int32_t> make_page_table(const Manifest &m) {
  if (m.kv_page_size == 0)
    return {};
  int32_t pages = m.context_length / m.kv_page_size;
  std::vector<int32_t> table(static_cast<size_t>(m.batch) * pages);
  for (int32_t b = 0; b < m.batch; ++b)
    for (int32_t i = 0; i < pages; ++i)
      table[static_cast<size_t>(b) * pages + i] = b * pages + pages - 1 - i;
  return table;
}

} // namespace llmc::rt
