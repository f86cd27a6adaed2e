// Multi-row (prefill) llm.linear / llm.logits on float weights lower to the packed-panel GEMM (codegen/cpu/PackedGemm.h) for whole panels of 6 (AVX-512) or 3 (AVX2) vectors of weight rows, 96 or 24, the rest to the register-tiled dot-product kernel: 4 tokens × 6 weight rows per tile (AVX-512; 4 × 3 on AVX2) on a runtime token count, the tokens in cache blocks (as many rows as fit 96 KiB of f32, at most 128), with 1-token tiles for the T % 4 leftover tokens and 1×1 tiles for the N % 6 leftover weight rows. 16-bit weight rows are widened to f32 once per (token block, weight tile), into a buffer the block's tiles read.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg=parallel-min-weight-elements=0 --canonicalize | FileCheck %s
// For AVX2's 16 ymm registers: vector<8xf32>, 4 tokens × 3 weight rows.
// RUN: llmc-opt %s -split-input-file "--llm-lower-to-linalg=parallel-min-weight-elements=0 vector-register-bits=256 vector-registers=16" --canonicalize | FileCheck %s --check-prefix=AVX2
// The default threading threshold counts weight elements × rows.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg --canonicalize | FileCheck %s --check-prefix=THRESHOLD

// AVX2-LABEL: func @linear_dynamic_t
// AVX2-SAME: (%[[X:.+]]: tensor<1x?x40xf32>, %[[W:.+]]: tensor<7x40xbf16>)
// AVX2-DAG: %[[C0:.+]] = arith.constant 0 : index
// AVX2-DAG: %[[C1:.+]] = arith.constant 1 : index
// AVX2-DAG: %[[C3:.+]] = arith.constant 3 : index
// AVX2-DAG: %[[C4:.+]] = arith.constant 4 : index
// AVX2-DAG: %[[C6:.+]] = arith.constant 6 : index
// AVX2-DAG: %[[C8:.+]] = arith.constant 8 : index
// AVX2-DAG: %[[C40:.+]] = arith.constant 40 : index
// AVX2-DAG: %[[C128:.+]] = arith.constant 128 : index
// AVX2: %[[MMAIN:.+]] = arith.subi
// Blocks of 128 tokens × weight tiles of rows 0-2 and 3-5: each widens its
// 3 bf16 rows into a 3x40 f32 buffer (K = 40 is five whole vector<8xf32>,
// no masked tail), then runs the block's 4-token tiles on it.
// AVX2: scf.parallel (%[[MB:.+]], %[[N0:.+]]) = (%[[C0]], %[[C0]]) to (%[[MMAIN]], %[[C6]]) step (%[[C128]], %[[C3]]) {
// AVX2: %[[NEXT:.+]] = arith.addi %[[MB]], %[[C128]]
// AVX2: %[[END:.+]] = arith.minui %[[NEXT]], %[[MMAIN]]
// AVX2: %[[ROWS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<3x40xf32>
// AVX2: scf.for %[[J:.+]] = %[[C0]] to %[[C3]] step %[[C1]] {
// AVX2: scf.for %[[K:.+]] = %[[C0]] to %[[C40]] step %[[C8]] {
// AVX2: %[[ROW:.+]] = arith.addi %[[N0]], %[[J]]
// AVX2: %[[NARROW:.+]] = vector.transfer_read %[[W]][%[[ROW]], %[[K]]]{{.*}} : tensor<7x40xbf16>, vector<8xbf16>
// AVX2: %[[WIDE:.+]] = arith.extf %[[NARROW]] : vector<8xbf16> to vector<8xf32>
// AVX2: vector.transfer_write %[[WIDE]], %[[ROWS]][%[[J]], %[[K]]] {in_bounds = [true]} : vector<8xf32>, memref<3x40xf32>
// AVX2: scf.for %{{.+}} = %[[MB]] to %[[END]] step %[[C4]] {
// AVX2: scf.for %{{.+}} = %[[C0]] to %[[C40]] step %[[C8]] {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2-COUNT-4: vector.transfer_read {{.*}} : tensor<?x40xf32>, vector<8xf32>
// AVX2-COUNT-3: vector.transfer_read %[[ROWS]]{{.*}} : memref<3x40xf32>, vector<8xf32>
// AVX2-NOT: arith.extf
// AVX2-COUNT-12: vector.fma
// AVX2-NOT: vector.constant_mask
// AVX2-COUNT-12: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<8xf32> into f32
// AVX2: scf.reduce
// Leftover tokens: 1 × 3 tiles, widening the bf16 rows in the K loop: one
// tile per iteration.
// AVX2: scf.parallel (%{{.+}}, %{{.+}}) = (%[[C0]], %[[MMAIN]]) to (%[[C6]], %{{.+}}) step (%[[C3]], %[[C1]]) {
// AVX2: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2-COUNT-3: arith.extf %{{.+}} : vector<8xbf16> to vector<8xf32>
// AVX2: scf.reduce
// Leftover weight row 6: 1 × 1 tiles over every token.
// AVX2: scf.parallel (%{{.+}}) = (%[[C0]]) to (%{{.+}}) step (%[[C1]]) {
// AVX2: scf.for {{.*}} -> (vector<8xf32>)
// AVX2: vector.transfer_read %[[W]][%[[C6]],
// AVX2: scf.reduce

// Below the threshold: the tiles' loops are marked small (run sequentially
// unless llm-parallel-to-openmp gives them a sibling's threads).
// THRESHOLD-LABEL: func @linear_dynamic_t
// THRESHOLD: scf.parallel
// THRESHOLD: } {llmc.small_parallel_loop}
// THRESHOLD: scf.parallel
// THRESHOLD: } {llmc.small_parallel_loop}
// THRESHOLD: scf.parallel
// THRESHOLD: } {llmc.small_parallel_loop}
// THRESHOLD-NOT: scf.parallel
// THRESHOLD: return

// CHECK-LABEL: func @linear_dynamic_t
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x40xf32>, %[[W:.+]]: tensor<7x40xbf16>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK: %[[T:.+]] = tensor.dim %[[X]], %[[C1]]
// CHECK: %[[OUT:.+]] = memref.alloc(%[[T]]) {alignment = 64 : i64} : memref<1x?x7xf32>
// CHECK: %[[XR:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<1x?x40xf32> into tensor<?x40xf32>
// CHECK: %[[M:.+]] = tensor.dim %[[XR]], %[[C0]]
// CHECK: %[[REM:.+]] = arith.remui %[[M]], %[[C4]]
// CHECK: %[[MMAIN:.+]] = arith.subi %[[M]], %[[REM]]
// Full tiles: blocks of 128 tokens (K = 40: 128 rows are 20 KiB); the one
// weight tile (rows 0-5) widened into a 6x40 f32 buffer per block, K = 40
// as two whole vector<16xf32> and a masked tail of 8; then the block's
// 4-token tiles with 24 accumulators.
// CHECK: scf.parallel (%[[MB:.+]]) = (%[[C0]]) to (%[[MMAIN]]) step (%[[C128]]) {
// CHECK: %[[END:.+]] = arith.minui %{{.+}}, %[[MMAIN]]
// CHECK: %[[ROWS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<6x40xf32>
// CHECK: scf.for %[[J:.+]] = %[[C0]] to %[[C6]] step %[[C1]] {
// CHECK: scf.for %[[K:.+]] = %[[C0]] to %[[C32]] step %[[C16]] {
// CHECK: vector.transfer_read %[[W]][%[[J]], %[[K]]]{{.*}} : tensor<7x40xbf16>, vector<16xbf16>
// CHECK: arith.extf
// CHECK: vector.transfer_write %{{.+}}, %[[ROWS]][%[[J]], %[[K]]] {in_bounds = [true]} : vector<16xf32>, memref<6x40xf32>
// CHECK: %[[TAILMASK:.+]] = vector.constant_mask [8] : vector<16xi1>
// CHECK: vector.transfer_read %[[W]][%[[J]], %[[C32]]], %{{.+}}, %[[TAILMASK]]
// CHECK: arith.extf
// CHECK: vector.transfer_write %{{.+}}, %[[ROWS]][%[[J]], %[[C32]]], %[[TAILMASK]] {in_bounds = [true]} : vector<16xf32>, memref<6x40xf32>
// CHECK: scf.for %{{.+}} = %[[MB]] to %[[END]] step %[[C4]] {
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4: vector.transfer_read %[[XR]]
// CHECK-COUNT-6: vector.transfer_read %[[ROWS]]
// CHECK-COUNT-24: vector.fma
// CHECK: vector.constant_mask [8] : vector<16xi1>
// CHECK-COUNT-24: vector.reduction <add>, %{{.+}} fastmath<reassoc>
// CHECK: scf.reduce
// Leftover tokens: 1 × 6 tiles.
// CHECK: scf.parallel (%{{.+}}) = (%[[MMAIN]]) to (%[[M]]) step (%[[C1]]) {
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.reduce
// Leftover weight row 6: 1 × 1 tiles over every token.
// CHECK: scf.parallel (%{{.+}}) = (%[[C0]]) to (%[[M]]) step (%[[C1]]) {
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.transfer_read %[[W]][%[[C6]],
// CHECK: scf.reduce
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable : memref<1x?x7xf32> to tensor<1x?x7xf32>
func.func @linear_dynamic_t(%x: tensor<1x?x40xf32>, %w: tensor<7x40xbf16>) -> tensor<1x?x7xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x40xf32>, tensor<7x40xbf16> -> tensor<1x?x7xf32>
  return %0 : tensor<1x?x7xf32>
}

// -----

// A static token count that fills whole tiles: one loop nest, no token
// tail; its 8 tokens are one cache block (a loop over weight rows, then the
// tiles). N = 64 = 6 · 10 + 4: weight rows 60-63 alone, over the 8 tokens.
// CHECK-LABEL: func @logits_static
// CHECK: scf.parallel (%{{.+}}) = (%c0) to (%c60) step (%c6) {
// CHECK: scf.for
// CHECK-COUNT-24: vector.fma
// CHECK: scf.reduce
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) = (%c60, %c0) to (%c64, %c8) step (%c1, %c1) {
// CHECK-COUNT-1: vector.fma
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
// AVX2-LABEL: func @logits_static
// On AVX2, weight rows 0-47 are two packed panels of 24 rows (3 ×
// vector<8xf32>) over the 8 tokens (one row block): each panel packed
// K-major (K = 32) by 8 × 8 blocks, 3 rounds of interleaving shuffles each,
// then 4-token tiles whose K loop (one K block) starts its 12 sums from 0
// (no bias; nothing read from the output first) and broadcasts each token's
// x element against the panel's 3 vectors.
// AVX2: %[[OUT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<8x64xf32>
// AVX2: scf.parallel (%[[N0:.+]]) = (%c0) to (%c48) step (%c24) {
// AVX2: %[[PANEL:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32x24xf32>
// AVX2: scf.for %[[K0:.+]] = %c0 to %c32 step %c8 {
// AVX2-COUNT-8: vector.transfer_read {{.*}} : tensor<64x32xf32>, vector<8xf32>
// AVX2-COUNT-8: vector.shuffle %{{.+}}, %{{.+}} [{{0, 8, 1, 9, 2, 10, 3, 11|4, 12, 5, 13, 6, 14, 7, 15}}]
// AVX2-COUNT-16: vector.shuffle
// AVX2: vector.store %{{.+}}, %[[PANEL]][%[[K0]], %c0] : memref<32x24xf32>, vector<8xf32>
// AVX2-COUNT-7: vector.store %{{.+}}, %[[PANEL]][%{{.+}}, %c0]
// AVX2: scf.for %{{.+}} = %c0 to %c32 step %c8 {
// AVX2-COUNT-8: vector.store %{{.+}}, %[[PANEL]][%{{.+}}, %c8]
// AVX2: scf.for %{{.+}} = %c0 to %c32 step %c8 {
// AVX2-COUNT-8: vector.store %{{.+}}, %[[PANEL]][%{{.+}}, %c16]
// AVX2-NOT: vector.load %[[OUT]]
// AVX2-NOT: vector.store %{{.+}}, %[[OUT]]
// AVX2: scf.for %{{.+}} = %c0 to %c8 step %c4 {
// AVX2-NOT: vector.load %[[OUT]]
// AVX2: scf.for %[[K:.+]] = %c0 to %c32 step %c1 iter_args(%{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// AVX2-COUNT-3: vector.load %[[PANEL]][%[[K]], %{{.+}}] : memref<32x24xf32>, vector<8xf32>
// AVX2: tensor.extract %{{.+}}[%{{.+}}, %[[K]]] : tensor<8x32xf32>
// AVX2: vector.broadcast
// AVX2-COUNT-3: vector.fma
// AVX2: tensor.extract
// AVX2: vector.broadcast
// AVX2-COUNT-3: vector.fma
// AVX2: tensor.extract
// AVX2: vector.broadcast
// AVX2-COUNT-3: vector.fma
// AVX2: tensor.extract
// AVX2: vector.broadcast
// AVX2-COUNT-3: vector.fma
// AVX2: scf.yield
// AVX2-COUNT-12: vector.store %{{.+}}, %[[OUT]]
// AVX2-NOT: vector.reduction
// AVX2: scf.reduce
// Weight rows 48-63 by the dot-product tiles: 16 = 3 · 5 + 1, weight row
// 63 alone, over the 8 tokens.
// AVX2: scf.parallel (%{{.+}}) = (%c48) to (%c63) step (%c3) {
// AVX2-COUNT-12: vector.fma {{.*}} : vector<8xf32>
// AVX2: scf.reduce
// AVX2: scf.parallel
// AVX2-COUNT-1: vector.fma {{.*}} : vector<8xf32>
// AVX2: scf.reduce
// AVX2-NOT: scf.parallel
// AVX2: return
func.func @logits_static(%x: tensor<8x32xf32>, %w: tensor<64x32xf32>) -> tensor<8x64xf32> {
  %0 = llm.logits %x, %w : tensor<8x32xf32>, tensor<64x32xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// A 192x576 weight (SmolLM2's K/V projections, 110592 elements) is below
// the default threshold of 262144 for one row but above it for a prefill
// (a dynamic token count counts as one 4-row tile): the GEMM is threaded,
// the GEMV's loop is marked small.
// N = 192: two packed panels of 96 rows (6 × vector<16xf32>) per block of
// 128 tokens, K = 576 in one block (216 KiB of the panel, below 256 KiB;
// the K loop of one iteration folds away): 4-token tiles with 24
// accumulators, then single tokens.
// THRESHOLD-LABEL: func @threshold_rows
// THRESHOLD: scf.parallel ({{.+}}) = ({{.+}}) to ({{.+}}, %c192) step (%c128, %c96)
// THRESHOLD: memref.alloc() {alignment = 64 : i64} : memref<576x96xf32>
// THRESHOLD: scf.for {{.*}} step %c1 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// THRESHOLD: scf.for {{.*}} step %c1 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// THRESHOLD: scf.reduce
// The decode GEMV: one weight row per tile.
// THRESHOLD: scf.parallel ({{.+}}) = (%c0) to (%c192) step (%c1)
// THRESHOLD: scf.for {{.*}} -> (vector<16xf32>) {
// THRESHOLD: } {llmc.small_parallel_loop}
// THRESHOLD-NOT: scf.parallel
// THRESHOLD: return
func.func @threshold_rows(%x: tensor<1x?x576xf32>, %x1: tensor<1x1x576xf32>, %w: tensor<192x576xf32>) -> (tensor<1x?x192xf32>, tensor<1x1x192xf32>) {
  %0 = llm.linear %x, %w : tensor<1x?x576xf32>, tensor<192x576xf32> -> tensor<1x?x192xf32>
  %1 = llm.linear %x1, %w : tensor<1x1x576xf32>, tensor<192x576xf32> -> tensor<1x1x192xf32>
  return %0, %1 : tensor<1x?x192xf32>, tensor<1x1x192xf32>
}

// -----

// SmolLM2's down projection's K (1536) over a 96-row panel of AVX-512
// takes 576 KiB, more than the 256 KiB a K block of the panel may take: 3
// blocks of 512 (192 KiB each). The first block's 4-token tiles start their
// 24 sums from the panel's bias (none: zero) and store them; the later
// blocks' tiles load the sums and add to them.
// Each 4-token tile first prefetches into L2 the block's 512 columns (16
// lines of 32 f16) of one row of the next panel: row 96 + (tile index mod
// 96) of it, clamped to the last row (191) and column (1535).
// THRESHOLD-LABEL: func @panel_k_blocks
// THRESHOLD: %[[WBUF:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<192x1536xf16> to memref<192x1536xf16>
// THRESHOLD: scf.parallel (%[[M0:.+]], %[[N0:.+]]) = ({{.+}}) to ({{.+}}, %c192) step (%c128, %c96)
// THRESHOLD: memref.alloc() {alignment = 64 : i64} : memref<1536x96xf32>
// The first block: columns [0, 512) prefetched, sums from zero.
// THRESHOLD: scf.for %[[M1:.+]] = %[[M0]] to %{{.+}} step %c4 {
// THRESHOLD: memref.prefetch %[[WBUF]][%{{.+}}, %{{.+}}], read, locality<2>, data : memref<192x1536xf16>
// THRESHOLD-NOT: vector.load %{{.+}} : memref<?x192xf32>
// THRESHOLD: scf.for {{.*}} = %c0 to %c512 step %c1 iter_args(%{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst, %{{[a-z0-9]+}} = %cst) -> (vector<16xf32>
// THRESHOLD-COUNT-24: vector.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<?x192xf32>, vector<16xf32>
// The later blocks.
// THRESHOLD: scf.for %[[K0:.+]] = %c512 to %c1536 step %c512 {
// THRESHOLD: scf.for %[[M:.+]] = %[[M0]] to %{{.+}} step %c4 {
// THRESHOLD: %[[FROM:.+]] = arith.subi %[[M]], %[[M0]] : index
// THRESHOLD: %[[TILE:.+]] = arith.divui %[[FROM]], %c4 : index
// THRESHOLD: %[[IN_PANEL:.+]] = arith.remui %[[TILE]], %c96 : index
// THRESHOLD: %[[NEXT:.+]] = arith.addi %[[N0]], %c96 : index
// THRESHOLD: %[[ROW:.+]] = arith.addi %[[NEXT]], %[[IN_PANEL]] : index
// THRESHOLD: %[[CLAMPED:.+]] = arith.minui %[[ROW]], %c191 : index
// THRESHOLD: scf.for %[[LINE:.+]] = %c0 to %c16 step %c1 {
// THRESHOLD: %[[OFFSET:.+]] = arith.muli %[[LINE]], %c32 : index
// THRESHOLD: %[[COLUMN:.+]] = arith.addi %[[K0]], %[[OFFSET]] : index
// THRESHOLD: %[[LAST:.+]] = arith.minui %[[COLUMN]], %c1535 : index
// THRESHOLD: memref.prefetch %[[WBUF]][%[[CLAMPED]], %[[LAST]]], read, locality<2>, data : memref<192x1536xf16>
// THRESHOLD-COUNT-24: vector.load %{{.+}}[%{{.+}}, %{{.+}}] : memref<?x192xf32>, vector<16xf32>
// THRESHOLD: scf.for {{.*}} step %c1 {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
func.func @panel_k_blocks(%x: tensor<1x?x1536xf32>, %w: tensor<192x1536xf16>) -> tensor<1x?x192xf32> {
  %0 = llm.linear %x, %w : tensor<1x?x1536xf32>, tensor<192x1536xf16> -> tensor<1x?x192xf32>
  return %0 : tensor<1x?x192xf32>
}
