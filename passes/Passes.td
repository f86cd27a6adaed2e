// llmc's passes: fusion and lowering of the `llm` dialect.
#ifndef LLMC_PASSES_PASSES_TD
#define LLMC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Fusion (the `fused` phase): target-independent rewrites of `llm` ops into
// fused `llm` ops, in this order.
//===----------------------------------------------------------------------===//

def LLMFuseResidualAdd : Pass<"llm-fuse-residual-add"> {
  let summary = "Fold a residual llm.add into the projection that produces its other operand";
  let description = [{
    `llm.add %r, llm.linear(%x, %w)` becomes `llm.linear %x, %w residual %r`
    when the projection has no other use, so that the projection's kernel
    adds the residual as it stores its result (one launch and one pass over
    the hidden state fewer per residual connection).

    Before:
    ```mlir
    %p = llm.linear %a, %wo : tensor<1x1x64xf32>, tensor<64x64xf32> -> tensor<1x1x64xf32>
    %h1 = llm.add %h0, %p : tensor<1x1x64xf32>
    ```
    After:
    ```mlir
    %h1 = llm.linear %a, %wo residual %h0 : tensor<1x1x64xf32>, tensor<64x64xf32> residual tensor<1x1x64xf32> -> tensor<1x1x64xf32>
    ```
  }];
}

def LLMFuseSiblingLinears : Pass<"llm-fuse-sibling-linears"> {
  let summary = "Merge projections of one input into llm.glu_linear and llm.multi_linear";
  let description = [{
    Two rewrites of projections that read the same input:
    - `llm.glu act (llm.linear %x, %wg), (llm.linear %x, %wu)` (both
      projections without bias, residual or other use) becomes
      `llm.glu_linear act %x, %wg, %wu`;
    - the remaining projections of one value in one block (no residual;
      with a bias each or none) become one `llm.multi_linear` at the first
      of them, when every operand of the others is already defined there.

    Before:
    ```mlir
    %q = llm.linear %n, %wq : tensor<1x1x64xf32>, tensor<64x64xf32> -> tensor<1x1x64xf32>
    %k = llm.linear %n, %wk : tensor<1x1x64xf32>, tensor<32x64xf32> -> tensor<1x1x32xf32>
    ```
    After:
    ```mlir
    %q, %k = llm.multi_linear %n weights(%wq, %wk : tensor<64x64xf32>, tensor<32x64xf32>) : tensor<1x1x64xf32> -> tensor<1x1x64xf32>, tensor<1x1x32xf32>
    ```
  }];
  let dependentDialects = ["::mlir::llm::LLMDialect"];
}

def LLMFuseNormIntoProjections : Pass<"llm-fuse-norm-into-projections"> {
  let summary = "Move an llm.rms_norm into the fused projections that are its only users";
  let description = [{
    An `llm.rms_norm` whose every user is an `llm.multi_linear` or
    `llm.glu_linear` reading it as the input (without a norm of its own)
    becomes the `norm` of each of them: the projection kernel computes the
    row's inverse RMS from the input it reads anyway, and the normalized
    row is never written to memory. A norm with a `weight_offset` (Gemma's
    `(1 + w)` from Hugging Face checkpoints) stays as it is: the fused ops
    carry no offset, which keeps the fused GEMV kernels of both backends one
    form (Gemma GGUF files bake the 1 into the weight and fuse).

    Before:
    ```mlir
    %n = llm.rms_norm %h, %g {eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<64xf32> -> tensor<1x1x64xf32>
    %a = llm.glu_linear silu %n, %wg, %wu : tensor<1x1x64xf32>, tensor<172x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
    ```
    After:
    ```mlir
    %a = llm.glu_linear silu %h norm(%g : tensor<64xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<172x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
    ```
  }];
}

def LLMFuseRopeAppend : Pass<"llm-fuse-rope-append"> {
  let summary = "Merge the queries' and keys' RoPE and the keys' cache append into llm.rope_append";
  let description = [{
    `llm.kv_append %c[l], (llm.rope %k), %v, %pos` (the rotated keys used
    only there) and the `llm.rope` of the queries with the same positions
    and attributes become one `llm.rope_append`, when the queries' rotation
    is used only after the append. One kernel then rotates the queries and
    writes the rotated keys and the values into the cache (rounded to its
    element type, as the append does), instead of two rotations and an
    append.

    Before:
    ```mlir
    %qr = llm.rope half %q, %pos {rotary_dim = 8 : i64, theta = 1.0e+04 : f64} : tensor<1x1x8x8xf32>, tensor<1x1xi32>
    %kr = llm.rope half %k, %pos {rotary_dim = 8 : i64, theta = 1.0e+04 : f64} : tensor<1x1x4x8xf32>, tensor<1x1xi32>
    %c1 = llm.kv_append %c0[%l], %kr, %v, %pos : !kv_cache, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1xi32>
    ```
    After:
    ```mlir
    %qr, %c1 = llm.rope_append half %c0[%l], %q, %k, %v, %pos {rotary_dim = 8 : i64, theta = 1.0e+04 : f64} : !kv_cache, tensor<1x1x8x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1xi32>
    ```
  }];
}

def LLMCPUInterleaveWeights : Pass<"llm-cpu-interleave-weights", "::mlir::ModuleOp"> {
  let summary = "Store projection weights of the 32-element block formats (q4_0, q4_1, q5_0, q5_1, q8_0) in groups of 8 interleaved rows, and float ones in groups of 16 (the CPU's weight layouts)";
  let description = [{
    Gives every `!llm.block<q4_0>`, `q4_1`, `q5_0`, `q5_1` or `q8_0` weight that only
    projections read (through any number of calls) the same format with
    `interleave = 8` (the formats the interleaved GEMV computes on), when its
    row count is a multiple of 8: the decode GEMV then reads the same block of
    8 rows with one vector load and keeps one row per lane of its int8 dot
    products, with no horizontal sums. A weight that anything else reads (a
    tied embedding table, gathered a row at a time) keeps its rows, and so
    does every value a call passes to the same function argument. The entry
    functions' weight arguments change type with it, so that the artifact's
    manifest records the layout and the runtime repacks the file's rows at
    load. Runs at the end of the CPU's fused phase.

    Likewise every static f16 or f32 matrix that only projections with f32
    results read, whose row count is a multiple of 16, becomes
    `!llm.interleaved<f16, rows = 16>` (or `f32`): column k of 16 rows in one
    vector, which the decode GEMV multiplies with x's element k broadcast and
    the prefill GEMM reads as a panel without packing it. A bf16 one with an
    even row length becomes `!llm.interleaved<bf16, rows = 16, columns = 2>`:
    its 16 rows' columns 2p and 2p + 1 in one vector, the operand of the
    prefill's VDPBF16PS, which the decode GEMV widens to two f32 vectors.

    Before:
    ```mlir
    func.func @decode(%x: tensor<1x1x64xf32>, %w: tensor<64x64x!llm.block<q4_0>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
      %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
    ```
    After:
    ```mlir
    func.func @decode(%x: tensor<1x1x64xf32>, %w: tensor<64x64x!llm.block<q4_0, interleave = 8>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
      %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x64xf32>
    ```
    and `tensor<64x64xf16>` becomes
    `tensor<64x64x!llm.interleaved<f16, rows = 16>>`.
  }];
}

def LLMCUDAPlanarWeights : Pass<"llm-cuda-planar-weights", "::mlir::ModuleOp"> {
  let summary = "Store block-quantized weights as planes of aligned codes and scales (the CUDA kernels' layout)";
  let description = [{
    Gives every static rank-2 `!llm.block<...>` weight in the file's rows that
    only projections and embedding gathers read (through any number of
    calls) the same format with `planar`: each segment of its blocks (codes,
    high bits, scales) in a plane of its own, aligned (see the type). A
    warp's lanes, on consecutive blocks of a row, then read their codes with
    one 128-bit load each, coalesced, where the file's 18- to 34-byte blocks
    only allow 16- or 32-bit loads. A weight that anything else reads keeps
    its rows (llm-lower-to-cuda then names the op), and so does every value
    a call passes to the same function argument. The entry functions' weight
    arguments change type with it, so that the artifact's manifest records
    the layout and the runtime repacks the file's rows at load. Runs at the
    end of the CUDA target's fused phase.

    Before:
    ```mlir
    func.func @decode(%x: tensor<1x1x64xf32>, %w: tensor<64x64x!llm.block<q4_0>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
      %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0>> -> tensor<1x1x64xf32>
    ```
    After:
    ```mlir
    func.func @decode(%x: tensor<1x1x64xf32>, %w: tensor<64x64x!llm.block<q4_0, planar>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
      %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<64x64x!llm.block<q4_0, planar>> -> tensor<1x1x64xf32>
    ```
  }];
}

def LLMDecomposeFused : Pass<"llm-decompose-fused"> {
  let summary = "Rewrite fused `llm` ops back into the ops they were made of";
  let description = [{
    The inverse of the fusion passes: `llm.multi_linear` and
    `llm.glu_linear` become `llm.rms_norm` (when they carry a norm),
    `llm.linear` and `llm.glu`; `llm.linear ... residual %r` becomes
    `llm.linear` + `llm.add %r, ...`; `llm.rope_append` becomes two
    `llm.rope` and `llm.kv_append`. The CPU lowering applies these
    rewrites first (its kernels phase fuses in linalg instead), and the CUDA
    lowering applies them to fused projections of several rows (prefill),
    whose GEMMs have no fused prologue; this pass exposes them for tests.

    Before:
    ```mlir
    %h1 = llm.linear %a, %wo residual %h0 : tensor<1x1x64xf32>, tensor<64x64xf32> residual tensor<1x1x64xf32> -> tensor<1x1x64xf32>
    ```
    After:
    ```mlir
    %p = llm.linear %a, %wo : tensor<1x1x64xf32>, tensor<64x64xf32> -> tensor<1x1x64xf32>
    %h1 = llm.add %h0, %p : tensor<1x1x64xf32>
    ```
  }];
}

def LLMLowerToLinalg : Pass<"llm-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower `llm` ops on tensors to linalg, tensor, scf, vector, arith and math";
  let description = [{
    Rewrites every `llm` op into target-independent tensor code that
    bufferizes and vectorizes: f32/bf16/f16 projections become threaded
    vector kernels (scf.parallel over weight-row blocks, vector.fma over K;
    `vector-projections=false` keeps the generic contraction), other
    projections and norms become `linalg.generic` ops, RoPE computes its angles from the positions and the scaling
    attribute, attention walks the keys in tiles with an online softmax (no
    T×S score matrix; causal queries in blocks of 64, each over the keys it
    sees), and the KV cache becomes a tensor
    `(2, layers, batch, capacity, kv_heads, head_dim)` updated with
    `tensor.insert_slice` at the given positions. A paged cache becomes
    `(2, layers, pages, page_size, kv_heads, head_dim)`: appends write to
    the page the table names, and attention gathers each key tile through
    the table. Function signatures that carry `!llm.kv_cache` are converted
    with it.

    Before:
    ```mlir
    %n = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
    ```
    After (abridged):
    ```mlir
    %ss = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]} ins(%x) outs(%zero) { mulf, addf }
    %n = linalg.generic {iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %ss, %w) outs(%init) { divf, addf, rsqrt, mulf }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"vectorProjections", "vector-projections", "bool", "true",
           "Lower f32/bf16/f16 llm.linear and llm.logits to the threaded "
           "vector kernels (false: only the generic linalg contraction)">,
    // Starting an OpenMP region costs microseconds, more than a second
    // thread saves on a small matrix: stories260K's 64x64 projections decoded
    // 19x slower on 2 threads than on 1. 256K f32 elements = 1 MiB.
    Option<"parallelMinWeightElements", "parallel-min-weight-elements",
           "int64_t", "262144",
           "Split a projection across threads of its own only when its weight "
           "elements times its rows of x (at least 4 when dynamic) reach this "
           "number (below, only beside a sibling projection that has them), "
           "and a one-block attention over its query heads only when heads "
           "x head_dim x keys (the view's capacity) do (0: always)">,
    // The prefill GEMM's tile and vector width follow the target's SIMD
    // registers; the defaults are AVX-512's, llmc sets its --cpu's.
    Option<"vectorRegisterBits", "vector-register-bits", "int64_t", "512",
           "Width in bits of the target's SIMD registers (AVX2: 256)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "32",
           "Number of the target's SIMD registers (AVX2: 16)">,
    Option<"floatGemmVectorBits", "float-gemm-vector-bits", "int64_t", "0",
           "Vector width in bits of the float prefill GEMM's tile, where "
           "the target measured a narrower tile faster than one of its full "
           "registers (AMD Zen 4: 256); 0: the registers' width">,
    // Off by default: the intrinsics exist only on x86 CPUs that have them;
    // llmc sets its --cpu's (and --block-dot=f32 turns it off).
    Option<"int8Dot", "int8-dot", "std::string", "\"none\"",
           "Multiply block-quantized weights in the decode GEMV and the "
           "prefill GEMM with x "
           "rounded to int8: none (f32 kernels), avx2 (VPMADDUBSW), vnni "
           "(VPDPBUSD)">,
    // Off by default, as int8-dot: VDPBF16PS exists only on x86 CPUs with
    // AVX-512 BF16; llmc sets its --cpu's (and --bf16-dot=f32 turns it off).
    Option<"bf16Dot", "bf16-dot", "bool", "false",
           "Multiply bf16 weights in the prefill GEMM with x rounded to bf16, "
           "in VDPBF16PS (AVX-512 BF16; the GEMM's 16-lane vectors)">,
  ];
}

def LLMCPUEntryPoints : Pass<"llm-cpu-entry-points", "::mlir::ModuleOp"> {
  let summary = "Add the C entry points of a bufferized model module";
  let description = [{
    The model functions `@prefill` and `@decode` take one memref per weight
    (hundreds for a large model) and return their logits in a buffer of
    their own. This pass adds, for each, a public function with a fixed C signature that
    a runtime can call through `dlsym`:

    ```c
    int32_t <model>_prefill(const int32_t *tokens, const int32_t *positions,
                            int64_t seq_len, int64_t logit_rows,
                            void *kv_cache, const void *const *weights,
                            float *logits);
    int32_t <model>_decode(const int32_t *tokens, const int32_t *positions,
                           void *kv_cache, const void *const *weights,
                           float *logits);
    ```

    `weights` is a table of pointers in the order of the model function's
    weight arguments (`llm.weight` attributes); the entry point builds a
    memref descriptor for every argument (the sequence length fills the one
    dynamic extent), passes `logit_rows` as the `index` argument with
    `llm.input = "logit_rows"` (the prefill's logits are those of its last
    logit_rows tokens, the extent of its result) and calls the model
    function. A model function that returns a buffer it allocates itself
    (with logit_rows as its dynamic extent, if any), and that nothing else
    in the module calls (a test driver may), is changed to compute
    its logits in the caller's buffer instead: a new last argument marked
    `llm.output = "logits"` takes the allocation's place, and the function
    returns nothing (no copy, no 192 KiB allocation per decoded token of a
    49152-token vocabulary). Otherwise the entry point copies the returned
    logits to the caller's buffer and frees them. `<model>` is the module's
    `llm.model` attribute made into a C identifier. A paged cache's page
    table (`llm.input = "kv_page_table"`) heads the `kv_cache` buffer, padded
    to 256 bytes, and its keys and values follow. Runs on memrefs, after
    bufferization; the model functions must be private so that the KV cache
    is updated in place rather than returned.

    Before:
    ```mlir
    func.func private @decode(%tokens: memref<1x1xi32> {llm.input = "tokens"}, ...) -> memref<1x1x512xf32>
    ```
    After (abridged):
    ```mlir
    func.func private @decode(%tokens: memref<1x1xi32> {llm.input = "tokens"}, ...,
                              %logits: memref<1x1x512xf32> {llm.output = "logits"})
    func.func @stories260k_decode(%tokens: !llvm.ptr, %positions: !llvm.ptr, %cache: !llvm.ptr, %weights: !llvm.ptr, %logits: !llvm.ptr) -> i32 {
      %d0 = builtin.unrealized_conversion_cast %desc0 : !llvm.struct<...> to memref<1x1xi32>
      ...
      %out = builtin.unrealized_conversion_cast %desc9 : !llvm.struct<...> to memref<1x1x512xf32>
      call @decode(%d0, ..., %out) : (..., memref<1x1x512xf32>) -> ()
      return %c0 : i32
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def LLMCPUParallelRows : Pass<"llm-cpu-parallel-rows", "::mlir::ModuleOp"> {
  let summary = "Tile the row-wise linalg ops of a function body over their dynamic rows into scf.forall loops (the prefill's norms, RoPE, casts, residual adds and GLU on the threads)";
  let description = [{
    Every linalg op on tensors in a function's own block (not in a loop, such
    as attention's) with a parallel loop of dynamic extent (the tokens of a
    prefill) becomes an scf.forall over tiles of `rows-per-tile` of those
    rows (more where a row has fewer than `min-tile-elements` / rows-per-tile
    iterations: 64 rows of a 64-wide model), its other loops whole; producers whose result it alone reads (a
    norm's fill and sum of squares) are fused into the same loop, once per
    tile. llm-parallel-to-openmp then runs each loop on the threads. Decode's
    ops, of static shape, are left alone: a row of a few thousand elements is
    less work than waking the threads. Without this pass these ops run on
    one thread while the others wait: 3-7% of the samples of a 128-token
    SmolLM2 prefill on 2 threads, as much again spent waiting.

    Before:
    ```mlir
    %sum = linalg.add ins(%a, %b : tensor<1x?x64xf32>, tensor<1x?x64xf32>) outs(%e : tensor<1x?x64xf32>) -> tensor<1x?x64xf32>
    ```
    After:
    ```mlir
    %sum = scf.forall (%row) = (0) to (%rows) step (8) shared_outs(%out = %e) -> (tensor<1x?x64xf32>) {
      ...  // linalg.add on the slices of rows [%row, %row + min(8, %rows - %row))
      scf.forall.in_parallel { tensor.parallel_insert_slice ... }
    }
    ```
  }];
  let options = [
    Option<"rowsPerTile", "rows-per-tile", "int64_t", /*default=*/"8",
           "Rows of the dynamic loop per tile (per loop iteration)">,
    Option<"minTileElements", "min-tile-elements", "int64_t",
           /*default=*/"4096",
           "Iterations of the other loops a tile holds at least: short rows "
           "are taken more than rows-per-tile at a time">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def LLMParallelToOpenMP : Pass<"llm-parallel-to-openmp", "::mlir::ModuleOp"> {
  let summary = "Run each outermost scf.parallel as an OpenMP parallel region whose threads each run a partition of its iterations, then take chunks of the others'";
  let description = [{
    Replaces convert-scf-to-openmp for the CPU kernels. Every iteration of
    the loop (its dimensions flattened row-major) runs once, inside one
    `omp.parallel`. Before the region, the iterations are cut into one
    contiguous partition per thread (`omp_get_max_threads()`, at most 64),
    each a slot word [front, back) on its own cache line of the function's
    frame. In the region, each thread takes chunks from the front of its
    own partition, then from the backs of the others', each by one
    compare-and-swap of the slot (`memref.generic_atomic_rmw`), until none
    is left. A chunk is a quarter of what the partition has left, rounded
    up, and at least ceil(total / (partitions × 16)) iterations: the first
    runs are long, the last ones short, so the threads end close together. A thread thus streams consecutive iterations (a decode GEMV's
    weight rows, which the prefetchers follow from chunk to chunk), and the
    threads that run take over the chunks of a thread that other processes
    keep off its core, or that the team lacks. No libomp worksharing call
    is made: the Debian/apt.llvm.org libomp formats trace strings
    (vsnprintf) in every `__kmpc_for_static_init` and
    `__kmpc_dispatch_init`, about 5% of a SmolLM2-sized decode step. Each
    output is still computed by exactly one iteration, so results do not
    depend on the thread count or on which thread runs which chunk. Loops
    nested in a converted loop stay sequential. Reductions (scf.parallel
    results) are rejected. When the iteration count is only known at run
    time, the region runs on the calling thread alone if there is at most
    one iteration (`omp.parallel if(...)`): a short prompt's single tile.

    Measured against chunks taken from one shared counter (SmolLM2-135M
    shape, 2-core Zen 3, decode after 128 tokens, interleaved runs,
    medians): F16 88.9 -> 93.4 tok/s (12 runs), Q4_0 246.7 -> 267.1 and
    Q4_K_M 181.7 -> 203.7 (6 runs); prefills and TinyLlama's decodes
    unchanged. The shrinking chunks, against fixed ones of a quarter of a
    partition (a 16th for a prefill GEMM's): Q4_0 251.8 -> 258.6 (won 8 of
    10), Q4_K_M 210 -> 219 (6 of 10), F16 86.0 -> 87.2 (5 of 12); prefills
    within noise.

    Consecutive loops of one block that are independent (each writes only
    buffers allocated before it that the others neither read nor write,
    with only allocations and views between them) share one region: their
    iterations follow one another in the flattened space, and an scf.if
    per boundary picks the loop. A loop marked `llmc.small_parallel_loop`
    (too little work for a region of its own) joins such a group, and
    without one stays sequential.

    Before:
    ```mlir
    scf.parallel (%i) = (%lo) to (%hi) step (%c4) {
      memref.store %zero, %buf[%i] : memref<?xf32>
      scf.reduce
    }
    ```
    After:
    ```mlir
    %slots = memref.alloca() {alignment = 64 : i64} : memref<64x8xi64>  // at the function entry
    ...
    %max = call @omp_get_max_threads() : () -> i32
    ...                                             // %partitions, %chunk_i64
    scf.for %p = %c0 to %partitions step %c1 {
      ...                                           // [p·total/P, (p+1)·total/P)
      memref.store %word, %slots[%p, %c0] : memref<64x8xi64>
    }
    omp.parallel {
      %t = func.call @omp_get_thread_num() : () -> i32
      ...
      scf.for %i = %c0 to %partitions step %c1 {
        ...                                         // %victim = (t + i) mod P, %own
        scf.while : () -> (i64, i64) {
          %old = memref.generic_atomic_rmw %slots[%victim, %c0] : memref<64x8xi64> {
          ^bb0(%current: i64):
            ...                                     // the chunk off the front (own) or back
            memref.atomic_yield %left : i64
          }
          ...
          scf.condition(%more) %start, %end : i64, i64
        } do {
        ^bb0(%start: i64, %end: i64):
          scf.for %flat = %from to %to step %c1 {
            %i = ...                                 // %lo + %flat * %c4
            memref.store %zero, %buf[%i] : memref<?xf32>
          }
          scf.yield
        }
      }
      omp.terminator
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::omp::OpenMPDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def LLMCPUHoistAllocas : Pass<"llm-cpu-hoist-allocas", "::mlir::ModuleOp"> {
  let summary = "Move every static-size memref.alloca to the entry of the function or OpenMP region whose thread runs it: one buffer per thread instead of one per loop iteration";
  let description = [{
    The CPU kernels phase turns small scratch buffers (those of at most
    16 KiB that no function returns) into `memref.alloca`s where the
    heap allocations were: in loop bodies, which are allocation scopes
    (`scf.for`, `scf.forall`, `scf.parallel`), so each iteration has a
    buffer of its own. The lowering to LLVM does not end those scopes
    (no stack save and restore per iteration), so an alloca left in a loop
    would grow the stack by its size every iteration, up to the number of
    cached positions times the attention's block scratch.

    This pass runs after llm-parallel-to-openmp. Every remaining loop is
    either inside an `omp.parallel` region (which one thread runs from its
    entry to its end) or sequential, so one thread runs the iterations of
    a scope one after another, and an iteration's buffer is dead before
    the next begins. Moving a static-size alloca to the front of the entry
    block of its nearest `omp.parallel` region or function therefore gives
    each thread one buffer that its iterations reuse. The function's own
    allocas move to that front too (in their order): scf-to-cf splits the
    entry block at each loop, and LLVM gives a fixed frame slot only to
    the allocas of a function's first block. Allocas with dynamic sizes
    stay where they are, and so do those in a loop that is no allocation
    scope (`scf.while`) below their scope: each of its iterations may keep
    its own buffer alive.

    Before:
    ```mlir
    omp.parallel {
      scf.for %i = %lo to %hi step %c1 {
        %scratch = memref.alloca() : memref<64xf32>
        ...
      }
      omp.terminator
    }
    ```
    After:
    ```mlir
    omp.parallel {
      %scratch = memref.alloca() : memref<64xf32>
      scf.for %i = %lo to %hi step %c1 {
        ...
      }
      omp.terminator
    }
    ```
  }];
}

def LLMLowerToCUDA : Pass<"llm-lower-to-cuda", "::mlir::ModuleOp"> {
  let summary = "Lower `llm` ops to CUDA kernels in a gpu.module and host code that launches them";
  let description = [{
    Rewrites the model functions from tensors to device buffers (memrefs)
    and every `llm` op into `gpu.launch_func` of a kernel specialized to the
    op's static shapes, built into `gpu.module @llmc_kernels` from gpu, nvgpu,
    nvvm, vector, scf, arith and math ops (one file per op family in
    codegen/cuda). Result buffers are `memref.alloc`s that the host lowering
    turns into the runtime's per-call scratch allocations. The KV cache
    becomes its bytes, `memref<N x i8>` in the CPU layout
    `(2, layers, batch, capacity, kv_heads, head_dim)`, viewed per layer with
    `memref.view`; a paged cache's layer is its page pool `(pages,
    page_size, kv_heads, head_dim)`, which the append, rope_append and
    attention kernels address through the page table.

    Before:
    ```mlir
    %s = llm.add %a, %b : tensor<1x?x64xf32>
    ```
    After:
    ```mlir
    %s = memref.alloc(%t) : memref<1x?x64xf32>
    gpu.launch_func @llmc_kernels::@add_f32_v4 blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%a_flat : memref<?xf32>, %b_flat : memref<?xf32>, %s_flat : memref<?xf32>)
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LLMCUDAFreeScratch : Pass<"llm-cuda-free-scratch", "::mlir::ModuleOp"> {
  let summary = "Free every device scratch buffer of the CUDA host code after its last use";
  let description = [{
    The CUDA host code allocates one `memref.alloc` per intermediate tensor
    (the runtime's device scratch). Without frees, a call holds all of them
    until it returns: a LLaMA-3-8B prefill about 10 MB per prompt token.
    This pass inserts a `memref.dealloc` right after the last use of each
    buffer a host function owns, so the runtime can hand its bytes to a
    later allocation of the same call (stream order makes that safe: the
    kernels that read the buffer were enqueued before the ones that get
    its bytes again).

    A function owns the `memref.alloc`s of its block and the results of
    calls to functions that return a buffer they own (a layer function's
    hidden state); an owned buffer it returns is the caller's to free. A
    use of a buffer is a use of any of its aliases (the memref results of
    views, casts and reshapes of it, and the results of calls that may
    return an argument). Nothing is freed in a function of more than one
    block, a buffer that already has a dealloc, nor one used by an op this
    pass does not know (one that might keep its address).

    Before:
    ```mlir
    %a = memref.alloc(%t) : memref<1x?x64xf32>
    gpu.launch_func @llmc_kernels::@k1 ... args(%a : ...)
    %b = memref.alloc(%t) : memref<1x?x64xf32>
    gpu.launch_func @llmc_kernels::@k2 ... args(%a : ..., %b : ...)
    return %b : memref<1x?x64xf32>
    ```
    After:
    ```mlir
    %a = memref.alloc(%t) : memref<1x?x64xf32>
    gpu.launch_func @llmc_kernels::@k1 ... args(%a : ...)
    %b = memref.alloc(%t) : memref<1x?x64xf32>
    gpu.launch_func @llmc_kernels::@k2 ... args(%a : ..., %b : ...)
    memref.dealloc %a : memref<1x?x64xf32>
    return %b : memref<1x?x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def LLMCUDAHostToLLVM : Pass<"llm-cuda-host-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower the host side of a CUDA model to the LLVM dialect, calling the runtime's host API";
  let description = [{
    Converts the host functions (func, memref, arith, cf, index) to the LLVM
    dialect like the standard conversions, except for the device work, which
    goes through the table of `llmc_cuda_host_api` (runtime/include/llmc/
    cuda_host_api.h) that the runtime stores in the global
    `<model>_cuda_host_api` before calling an entry point:
    - `gpu.launch_func` → `launch(ctx, "kernel", grid, block, 0, params)`,
      params pointing at each kernel argument, memrefs expanded to their
      descriptor fields exactly as convert-gpu-to-nvvm expands them;
    - `memref.alloc` → `alloc(ctx, bytes)` (per-call device scratch);
    - `memref.copy` → `copy(ctx, dst, src, bytes)` (device to device);
    - `memref.dealloc` → `release(ctx, allocated pointer)` (the block may
      be handed out again by a later `alloc` of the same call).
    The gpu.module, already lowered to NVVM, is left alone.

    Before:
    ```mlir
    gpu.launch_func @llmc_kernels::@add_f32_v4 blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<?xf32>, ...)
    ```
    After (abridged):
    ```mlir
    %api = llvm.load %api_global : !llvm.ptr -> !llvm.ptr
    %launch = llvm.load %launch_slot : !llvm.ptr -> !llvm.ptr
    llvm.call %launch(%ctx, %name, %gx, %c1, %c1, %c256, %c1, %c1, %c0, %params) : !llvm.ptr, (...) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // LLMC_PASSES_PASSES_TD
