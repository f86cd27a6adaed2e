// The page table the runtime writes at the head of a paged KV cache.
#ifndef LLMC_RUNTIME_KV_PAGE_TABLE_H
#define LLMC_RUNTIME_KV_PAGE_TABLE_H

#include "artifact_manifest.h"

#include <cstdint>
#include <vector>

namespace llmc::rt {

/// The table of a paged cache (empty for a contiguous one), row-major
/// (batch, context_length / page_size): sequence b's pages come from its
/// own run of the pool, b·P .. b·P + P − 1, handed out from the top, so
/// logical page i is pool page b·P + P − 1 − i. Every paged run thus reads
/// and writes through a table that is not the identity.
std::vector<int32_t> make_page_table(const Manifest &m);

} // namespace llmc::rt

#endif // LLMC_RUNTIME_KV_PAGE_TABLE_H
