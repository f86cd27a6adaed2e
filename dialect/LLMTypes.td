// Types of the `llm` dialect: the runtime-owned KV cache.
#ifndef LLMC_DIALECT_LLMTYPES_TD
#define LLMC_DIALECT_LLMTYPES_TD

include "dialect/LLMAttrs.td"

def LLM_KVCacheLayoutParameter : EnumParameter<LLM_KVCacheLayout> {
  let defaultValue = "::mlir::llm::KVCacheLayout::contiguous";
}


def LLM_KVCacheType : TypeDef<LLM_Dialect, "KVCache"> {
  let mnemonic = "kv_cache";
  let summary = "keys and values of every layer, owned by the runtime";
  let description = [{
    The KV cache of a whole decoder: for each of `layers` layers and each of
    `batch` sequences, `capacity` positions of `kv_heads` key and value heads
    of `head_dim` elements. Logically a pair of tensors
    `(layers, batch, capacity, kv_heads, head_dim)`. The `contiguous` layout
    stores them densely; the `paged` layout stores `page_size` positions per
    page: for each layer, the keys (and the values) are a pool of
    batch · capacity / page_size pages of (page_size, kv_heads, head_dim),
    and position p of sequence b lives in slot p mod page_size of page
    `table[b, p / page_size]`, where the page table is an i32 tensor
    (batch, capacity / page_size) that the ops on a paged cache take as an
    operand. The runtime owns the table (it lies at the head of the cache
    buffer the entry points take), so pages may be handed out in any order
    and shared. A value of this type is passed into the compiled functions
    and updated in place after bufferization; in the IR `llm.kv_append`
    yields the updated cache.

    Example:
    ```mlir
    !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
    !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 8192, element_type = bf16, layout = paged>
    ```
  }];
  let parameters = (ins
    "int64_t":$layers,
    "int64_t":$batch,
    "int64_t":$kv_heads,
    "int64_t":$head_dim,
    "int64_t":$capacity,
    "::mlir::Type":$element_type,
    LLM_KVCacheLayoutParameter:$layout,
    DefaultValuedParameter<"int64_t", "::mlir::llm::kDefaultKVPageSize">:$page_size
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The tensor type of one layer's keys (or values) as `llm.kv_view`
    /// returns it: (batch, capacity, kv_heads, head_dim).
    ::mlir::RankedTensorType getLayerViewType() const;
    /// Bytes of the keys and values: 2 · layers · batch · capacity ·
    /// kv_heads · head_dim · element size (for either layout).
    int64_t getSizeInBytes() const;
    /// Pages of one sequence (capacity / page_size) and of the pool
    /// (batch of them); 0 for a contiguous cache.
    int64_t getPagesPerSequence() const;
    int64_t getPageCount() const;
    /// The page table operand's type, (batch, capacity / page_size) i32;
    /// null for a contiguous cache.
    ::mlir::RankedTensorType getPageTableType() const;
    bool isPaged() const { return getLayout() == ::mlir::llm::KVCacheLayout::paged; }
  }];
}

#endif // LLMC_DIALECT_LLMTYPES_TD
