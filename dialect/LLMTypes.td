// Types of the `llm` dialect: the runtime-owned KV cache, block-quantized and interleaved float weight elements.
#ifndef LLMC_DIALECT_LLMTYPES_TD
#define LLMC_DIALECT_LLMTYPES_TD

include "dialect/LLMAttrs.td"

def LLM_KVCacheLayoutParameter : EnumParameter<LLM_KVCacheLayout> {
  let defaultValue = "::mlir::llm::KVCacheLayout::contiguous";
}

def LLM_KVCacheValuesParameter : EnumParameter<LLM_KVCacheValues> {
  let defaultValue = "::mlir::llm::KVCacheValues::separate";
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

    The element type is a float type (f32, f16, bf16: keys and values are
    stored rounded to it) or a quantized code: i8 or f8E4M3FN. A quantized
    cache stores each position's row of one KV head as head_dim codes
    followed by one f32 scale (little endian), scale = max |x| over the row
    divided by the largest code (127 for i8, 448 for f8E4M3FN), code =
    x / scale rounded to nearest even (clamped to ±127 for i8); the row's
    value is code · scale. Scales thus live beside their rows in the same
    buffer, in either layout (a page holds whole rows). `llm.kv_append` takes
    f32 keys and values and quantizes them; `llm.kv_view` yields them
    dequantized (f32), and `llm.attention` over such a view reads the codes
    and scales a key tile at a time.

    `values = keys` (the default is `values = separate`) declares a cache
    whose values are its keys, stored once: there is one plane of
    (layers, batch, capacity, kv_heads, head_dim) instead of two, half the
    bytes. `llm.kv_append` on it takes keys only, `llm.kv_view` yields the
    keys as both results, and `llm.attention` over that view reads its
    values from the key storage. DeepSeek's multi-head latent attention
    caches one head [c; k_pe] per token that serves as both (its absorbed
    queries read the latent c as the value). It combines with either
    layout and every element type (a quantized row's scale serves both).

    Example:
    ```mlir
    !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
    !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 8192, element_type = bf16, layout = paged>
    !llm.kv_cache<layers = 30, batch = 1, kv_heads = 3, head_dim = 64, capacity = 2048, element_type = i8>
    !llm.kv_cache<layers = 27, batch = 1, kv_heads = 1, head_dim = 576, capacity = 4096, element_type = bf16, values = keys>
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
    DefaultValuedParameter<"int64_t", "::mlir::llm::kDefaultKVPageSize">:$page_size,
    LLM_KVCacheValuesParameter:$values
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The tensor type of one layer's keys (or values) as `llm.kv_view`
    /// returns it: (batch, capacity, kv_heads, head_dim) of getValueType().
    ::mlir::RankedTensorType getLayerViewType() const;
    /// Whether the elements are quantized codes (i8, f8E4M3FN) with a scale
    /// per (position, KV head).
    bool isQuantized() const;
    /// The type keys and values have outside the cache: f32 for a quantized
    /// cache, else the element type.
    ::mlir::Type getValueType() const;
    /// The largest code of a quantized cache: 127 (i8) or 448 (f8E4M3FN).
    double getMaxCode() const;
    /// Bytes of the f32 scale after each head row: 4 if quantized, else 0.
    int64_t getScaleBytes() const;
    /// Bytes of one position's keys (or values) of one KV head: head_dim
    /// elements and the scale.
    int64_t getHeadRowBytes() const;
    /// Whether the values are the keys (`values = keys`): stored once.
    bool valuesAreKeys() const {
      return getValues() == ::mlir::llm::KVCacheValues::keys;
    }
    /// Planes of (layers, batch, capacity, kv_heads, head row) stored: 2
    /// (keys, then values), or 1 when the values are the keys.
    int64_t getPlaneCount() const { return valuesAreKeys() ? 1 : 2; }
    /// The plane the values are read from: 1, or 0 (the keys') when the
    /// values are the keys.
    int64_t getValuesPlane() const { return valuesAreKeys() ? 0 : 1; }
    /// Bytes of the keys and values: planes · layers · batch · capacity ·
    /// kv_heads · head-row bytes (for either layout).
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


def LLM_BlockFormatParameter : EnumParameter<LLM_BlockFormat>;

def LLM_BlockQuantType : TypeDef<LLM_Dialect, "BlockQuant"> {
  let mnemonic = "block";
  let summary = "one element of a block-quantized weight matrix";
  let description = [{
    The element type of a weight stored in one of GGUF's block formats: a
    `tensor<N x K x !llm.block<q4_0>>` is the logical (N, K) matrix whose
    rows are each K / block_elements consecutive blocks of the format, exactly
    as a GGUF file stores them (row-major, no padding). Ops that take weights
    compute on the blocks (dequantizing in registers); the lowering maps the
    tensor to its bytes, `tensor<N x (K / block_elements · block_bytes) x i8>`,
    which is what the entry points take. K must be a multiple of the
    format's block size (32, or 256 for the K-quants).

    | format | elements/block | bytes/block | element value |
    |--------|----------------|-------------|---------------|
    | q8_0   | 32  | 34  | d · q (q int8) |
    | q4_0   | 32  | 18  | d · (q - 8) (q 4-bit) |
    | q4_1   | 32  | 20  | d · q + m |
    | q5_0   | 32  | 22  | d · (q - 16) (q 5-bit) |
    | q5_1   | 32  | 24  | d · q + m |
    | q4_k   | 256 | 144 | d · sc_j · q - dmin · m_j (6-bit sc_j, m_j per 32) |
    | q5_k   | 256 | 176 | as q4_k with 5-bit q |
    | q6_k   | 256 | 210 | d · sc_j · (q - 32) (int8 sc_j per 16, 6-bit q) |

    `interleave = R` (R = 8; the 32-element formats) stores each group of R
    consecutive rows together, block by block, so that one vector load
    reaches the same block of all R rows: group g's block b is R block
    headers (each row's scale bytes: q8_0 and q4_0 2, q4_1 4, q5_0 6, q5_1
    8), then the R rows' codes in runs of 4 bytes (row 0's bytes 0-3, row
    1's bytes 0-3, ..., row R-1's, then every row's bytes 4-7, ...). The
    logical matrix is the same; N must be a multiple of R, and only
    projections (`llm.linear`, `llm.logits`) take such weights. The CPU
    target chooses it (`llm-cpu-interleave-weights`) where a kernel keeps R
    rows in the lanes of one vector; the runtime repacks the file's rows into
    it at load.

    `planar` stores the whole matrix as planes instead of rows: the block's
    bytes are cut into segments (a field or run of fields: the codes, the
    5-bit formats' high bits, the scales), and plane p holds segment p of
    every block, blocks in row-major order (row r's block b is block
    r · K / block_elements + b). A segment is made of pieces as wide as its
    alignment (the largest power of two, at most 16, dividing its bytes),
    and its plane holds them piece-major: piece 0 of every block, then
    piece 1 of every block, ... (Q8_0's 32 code bytes: every block's first
    16, then every block's last 16). Planes follow each other widest
    alignment first (ties in the block's order), so every piece is aligned
    to its width, and consecutive blocks' same pieces are adjacent:

    | format | segments (bytes of the block), in plane order |
    |--------|-----------------------------------------------|
    | q8_0   | codes [2, 34), d [0, 2) |
    | q4_0   | codes [2, 18), d [0, 2) |
    | q4_1   | codes [4, 20), d and m [0, 4) |
    | q5_0   | codes [6, 22), high bits [2, 6), d [0, 2) |
    | q5_1   | codes [8, 24), d and m [0, 4), high bits [4, 8) |
    | q4_k   | scales [0, 16), codes [16, 144) |
    | q5_k   | scales [0, 16), high bits [16, 48), codes [48, 176) |
    | q6_k   | low bits [0, 128), high bits [128, 192), scales [192, 208), d [208, 210) |

    The storage keeps the rows' shape and byte count. The CUDA target chooses
    it (`llm-cuda-planar-weights`): a warp's lanes, on consecutive blocks,
    then read each 16 bytes of their codes with one aligned 128-bit load,
    which together are 512 consecutive bytes; the runtime repacks the file's
    rows into it at load. A weight is either interleaved or planar.

    Example:
    ```mlir
    %y = llm.linear %x, %w : tensor<1x1x576xf32>, tensor<1536x576x!llm.block<q4_k>> -> tensor<1x1x1536xf32>
    %z = llm.linear %x, %v : tensor<1x1x576xf32>, tensor<1536x576x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x1536xf32>
    %p = llm.linear %x, %u : tensor<1x1x576xf32>, tensor<1536x576x!llm.block<q4_0, planar>> -> tensor<1x1x1536xf32>
    ```
  }];
  let parameters = (ins LLM_BlockFormatParameter:$format,
                        DefaultValuedParameter<"int64_t", "1">:$interleave,
                        DefaultValuedParameter<"bool", "false">:$planar);
  // `<` format (`,` `interleave` `=` R | `,` `planar`)? `>`.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilder<(ins "::mlir::llm::BlockFormat":$format), [{
      return $_get($_ctxt, format, 1, false);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Rows stored together when a weight is interleaved (`interleave`).
    static constexpr int64_t kInterleavedRows = 8;
    bool isInterleaved() const { return getInterleave() > 1; }
    /// Bytes at the start of each block that are not codes (its scales,
    /// and the high-bit word of the 5-bit formats); the rest are codes.
    int64_t getHeaderBytes() const;
    /// The same format, `rows` rows interleaved (1: plain rows).
    BlockQuantType withInterleave(int64_t rows) const {
      return get(getContext(), getFormat(), rows, false);
    }
    /// The same format, stored as planes (`planar`).
    BlockQuantType withPlanar() const {
      return get(getContext(), getFormat(), 1, true);
    }
    /// One segment of a block in the `planar` layout: bytes [start, start +
    /// bytes) of each block, stored in a plane that begins `planeOffset` ·
    /// (the matrix's block count) bytes into the storage, as pieces of
    /// getAlignment() bytes, piece-major.
    struct PlanarSegment {
      int64_t start, bytes;
      /// Whether it holds the 5-bit and 6-bit formats' high bits.
      bool highBits = false;
      int64_t planeOffset = 0;
      /// The largest power of two, at most 16, dividing `bytes`: the width
      /// of the segment's pieces, and their alignment.
      int64_t getAlignment() const;
    };
    /// The `planar` layout's segments, in the block's byte order.
    ::llvm::SmallVector<PlanarSegment> getPlanarSegments() const;
    /// The segment holding bytes [byte, byte + count) of a block; they must
    /// lie in one (every read of a block decoder does).
    PlanarSegment getPlanarSegment(int64_t byte, int64_t count) const;
    /// Logical elements per block: 32, or 256 for the K-quants.
    int64_t getBlockElements() const;
    /// Bytes of one block.
    int64_t getBlockBytes() const;
    /// Bytes of one row of `elements` elements (a multiple of the block).
    int64_t getRowBytes(int64_t elements) const {
      return elements / getBlockElements() * getBlockBytes();
    }
  }];
}

def LLM_InterleavedFloatType : TypeDef<LLM_Dialect, "InterleavedFloat"> {
  let mnemonic = "interleaved";
  let summary = "one element of a float weight matrix stored in groups of rows";
  let description = [{
    The element type of a float weight whose rows are stored in interleaved
    groups: a `tensor<N x K x !llm.interleaved<f16, rows = 16>>` is the
    logical (N, K) matrix of f16 elements, stored as N / 16 groups, each
    group K columns of its 16 rows, a column's 16 elements together: group
    g's element (k, r) is row 16 · g + r, column k. One vector load reaches
    column k of all 16 rows, so a kernel keeps the group's rows in the
    lanes of its vectors and broadcasts x's element k to them: the decode
    GEMV reads each group as one sequential stream and sums it without a
    final reduction, and the prefill GEMM reads its panels as they are
    stored, without packing them. The lowering maps the tensor to its
    storage, `tensor<N / 16 x 16 · K x f16>`, a row per group, which is
    what the entry points take.

    With `columns = 2` (bf16 only), each row's elements stand in pairs of
    columns: group g holds K / 2 runs, run p being rows 16 · g + r's
    elements 2p and 2p + 1 side by side for r = 0..15 (element (p, r, j) is
    row 16 · g + r, column 2p + j). A run is one 512-bit operand of AVX-512
    BF16's VDPBF16PS, which the prefill multiplies by x's pair p; the decode
    GEMV widens a run's even and odd columns to two f32 vectors with a shift
    and a mask. K must then be even.

    The element type is f32, f16 or bf16; N must be a static multiple of the
    group, K static, and only projections (`llm.linear`, `llm.logits`) take
    such weights. The CPU target chooses it (`llm-cpu-interleave-weights`);
    the runtime repacks the file's rows into it at load.

    Example:
    ```mlir
    %y = llm.linear %x, %w : tensor<1x1x576xf32>, tensor<1536x576x!llm.interleaved<f16, rows = 16>> -> tensor<1x1x1536xf32>
    %z = llm.linear %x, %v : tensor<1x1x576xf32>, tensor<1536x576x!llm.interleaved<bf16, rows = 16, columns = 2>> -> tensor<1x1x1536xf32>
    ```
  }];
  let parameters = (ins "::mlir::Type":$element_type, "int64_t":$rows,
                        DefaultValuedParameter<"int64_t", "1">:$columns);
  let assemblyFormat =
      "`<` $element_type `,` `rows` `=` $rows (`,` `columns` `=` $columns^)? `>`";
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$element_type,
                                        "int64_t":$rows,
                                        CArg<"int64_t", "1">:$columns), [{
      return $_get(element_type.getContext(), element_type, rows, columns);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Rows per group: the lanes of one AVX-512 vector of f32 sums.
    static constexpr int64_t kGroupRows = 16;
    /// Columns of a row side by side in a bf16 group (VDPBF16PS's pairs).
    static constexpr int64_t kBF16PairColumns = 2;
  }];
}

#endif // LLMC_DIALECT_LLMTYPES_TD
