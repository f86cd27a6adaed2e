// The KV cache's device layout (contiguous or paged), shared by the kernels that write it (kv_append,
// rope_append) and read it (attention).
#ifndef LLMC_CODEGEN_CUDA_KVCACHEKERNELS_H
#define LLMC_CODEGEN_CUDA_KVCACHEKERNELS_H

#include "codegen/common/ConvertedLayer.h"
#include "codegen/cuda/DeviceBuilder.h"
#include "dialect/LLMOps.h"
#include "dialect/LLMTypes.h"

#include "mlir/IR/OpDefinition.h"

#include <string>
#include <utility>

namespace llmc::cuda {

/// Index of the keys (0) and values (1) in the cache's leading dimension.
enum CacheHalf : int64_t { kKeys = 0, kValues = 1 };

/// One layer's keys or values over the cache bytes, starting at byte
/// (plane · layers + layer) · batch · capacity · kv_heads · head-row bytes,
/// where plane is 0 for the keys and getValuesPlane() for the values (1, or
/// 0 when the values are the keys: their view is the keys'),
/// in the physical order: memref<(batch, capacity, kv_heads, head_dim)> for
/// a contiguous cache, the page pool memref<(pages, page_size, kv_heads,
/// head_dim)> for a paged one (pages · page_size = batch · capacity: the
/// same bytes, so collapseHeads gives both the same rows type). A quantized
/// cache's last dimension is its head row as bytes (i8): head_dim codes,
/// then the scale's four bytes.
mlir::Value viewCacheLayer(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::llm::KVCacheType cacheType,
                           mlir::Value cacheBytes, mlir::OpFoldResult layer,
                           CacheHalf half);

/// (a, b, c, d) → (a·b, c·d): tokens × heads·head_dim rows, or a layer view
/// as (batch·capacity) cache rows.
mlir::Value collapseHeads(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value buffer);

/// Whether a view of `cacheType` is not a buffer in its logical f32 order:
/// a paged cache (pages in table order) or a quantized one (codes and
/// scales).
bool isStoredView(mlir::llm::KVCacheType cacheType);

/// True when `attention` reads such a `view` (isStoredView) as its keys
/// and values (and nothing else of it): the one use of these views that
/// the CUDA lowering takes (see verifyStoredKVViews).
bool isAttentionOnStoredView(mlir::llm::KVViewOp view,
                             mlir::llm::AttentionOp attention);

/// "_pg<page_size>" for a paged cache, "" for a contiguous one: the tag of
/// the kernels that address the cache through its page table.
std::string getPageTag(mlir::llm::KVCacheType cacheType);

/// A paged cache's page table inside a kernel (the kernel argument,
/// memref<batch x (capacity / page_size) x i32>) with the static page size
/// and pool size; null for a contiguous cache.
struct PageTable {
  mlir::Value table;
  int64_t pageSize = 0;
  /// Pages of the pool: batch · capacity / page_size.
  int64_t pageCount = 0;

  /// The table of `cacheType` (`table` is ignored for a contiguous cache).
  static PageTable get(mlir::llm::KVCacheType cacheType, mlir::Value table);
  explicit operator bool() const { return static_cast<bool>(table); }
};

/// Inside a kernel: the page id table[batch, position / page_size] (i32
/// sign-extended to index, not checked) and the slot position % page_size
/// of logical position `position` (< capacity) of sequence `batch`.
std::pair<mlir::Value, mlir::Value> lookupPage(DeviceBuilder &d,
                                               const PageTable &pages,
                                               mlir::Value batch,
                                               mlir::Value position);

/// Inside a kernel: the first two indices of logical position `position`
/// (< capacity) of sequence `batch` in a layer view (viewCacheLayer):
/// (batch, position) for a contiguous cache (no op emitted), (page, slot)
/// for a paged one with the page id clamped into [0, pages − 1]
/// (arith.minui, so a negative id is clamped too): a bad table reads a
/// wrong page, never outside the cache.
std::pair<mlir::Value, mlir::Value> getCacheReadIndex(DeviceBuilder &d,
                                                      const PageTable &pages,
                                                      mlir::Value batch,
                                                      mlir::Value position);

/// Inside a kernel: the cache row of `token` (tokens laid out (batch, seq)
/// row-major) in a layer view collapsed to rows (collapseHeads): batch ·
/// capacity + positions[token], or for a paged cache page · page_size +
/// slot of that position; and whether it is written: the position lies
/// inside the capacity and (paged) the page id in [0, pages) (unsigned
/// compares). Other tokens are skipped (the runtime checks positions and
/// the table before a call).
std::pair<mlir::Value, mlir::Value>
emitCacheRow(DeviceBuilder &d, int64_t batch, int64_t capacity,
             mlir::Value positions, mlir::Value token,
             const PageTable &pages = {});

/// One element of a KV head row held by a lane of a warp: its f32 value,
/// its column in the head row (< head_dim) and whether the lane holds one
/// (else `value` is ignored: a lane past the row).
struct RowElement {
  mlir::Value value;
  mlir::Value column;
  mlir::Value valid;
};

/// Inside a kernel, for one whole warp (uniform control flow: it
/// shuffles): quantizes the head row `head` whose elements the warp's lanes
/// hold (each element once over the warp) into the quantized cache rows
/// `cacheRows` (rows × kv_heads · (head_dim + 4) i8) at row `row`: max |x|
/// by a warp reduction, the codes and scale by codegen/common/
/// KVQuantization (the CPU lowering's formulas), each code stored by its
/// lane, the scale's four bytes by lanes 0..3 after the codes.
void storeQuantizedHeadRow(DeviceBuilder &d, mlir::llm::KVCacheType cacheType,
                           llvm::ArrayRef<RowElement> elements,
                           mlir::Value cacheRows, mlir::Value row,
                           mlir::Value head);

} // namespace llmc::cuda

#endif // LLMC_CODEGEN_CUDA_KVCACHEKERNELS_H
