// Single-row (decode) llm.linear / llm.logits lower to the threaded vector GEMV: scf.parallel over weight rows (one per tile), scf.for over K in vector<16xf32> with vector.fma, masked K tail, reassoc reductions.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg=parallel-min-weight-elements=0 --canonicalize | FileCheck %s
// The kernels survive bufferization (no copies of the weights) and reach the LLVM dialect as OpenMP loops.
// RUN: llmc-opt %s -split-input-file --llmc-cpu-kernels=parallel-min-weight-elements=0 | FileCheck %s --check-prefix=KERNELS
// RUN: llmc-opt %s -split-input-file --llmc-cpu-to-llvm=parallel-min-weight-elements=0 | FileCheck %s --check-prefix=LLVM
// With the default threshold these small weights are not worth threads:
// the same kernels in loops marked small, which reach the LLVM dialect
// without an OpenMP region (no sibling loop has threads).
// AVX2's registers: a vector<16xf32> is two ymm, two FMA chains already.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg="parallel-min-weight-elements=0 vector-register-bits=256 vector-registers=16" --canonicalize | FileCheck %s --check-prefix=AVX2
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg --canonicalize | FileCheck %s --check-prefix=SEQ
// RUN: llmc-opt %s -split-input-file --llmc-cpu-to-llvm | FileCheck %s --check-prefix=SEQ-LLVM
// SEQ-LABEL: func @gemv_f32_tails
// SEQ: scf.parallel
// SEQ: scf.for
// SEQ: vector.fma
// SEQ: } {llmc.small_parallel_loop}
// SEQ-LLVM-LABEL: llvm.func @gemv_f32_tails
// SEQ-LLVM-NOT: omp.parallel
// SEQ-LLVM: llvm.return

// K = 40 = 2·16 + 8: the main loop covers 32 columns, one masked step the
// last 8; each of the 5 rows is a tile of its own. Rows of 160 bytes are
// left to the hardware prefetchers (prefetchesWeightRows: float rows under
// 4 KiB).
// CHECK-LABEL: func @gemv_f32_tails
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x40xf32>, %[[W:.+]]: tensor<5x40xf32>, %[[B:.+]]: tensor<5xf32>)
// CHECK-NOT: memref.prefetch
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C5:.+]] = arith.constant 5 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: %[[OUT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x1x5xf32>
// CHECK: %[[XR:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]]
// CHECK: %[[OUTR:.+]] = memref.collapse_shape %[[OUT]]
// CHECK: scf.parallel (%[[N:.+]]) = (%[[C0]]) to (%[[C5]]) step (%[[C1]]) {
// CHECK: %[[ACC:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[C32]] step %[[C16]] iter_args(%[[A:.+]] = %[[ZERO]]) -> (vector<16xf32>) {
// CHECK-NOT: memref.prefetch
// CHECK: %[[XV:.+]] = vector.transfer_read %[[XR]][%[[C0]], %[[K]]], %{{.+}} {in_bounds = [true]} : tensor<1x40xf32>, vector<16xf32>
// CHECK: %[[WV:.+]] = vector.transfer_read %[[W]][%[[N]], %[[K]]], {{.+}} : tensor<5x40xf32>, vector<16xf32>
// CHECK: %[[F:.+]] = vector.fma %[[WV]], %[[XV]], %[[A]] : vector<16xf32>
// CHECK: scf.yield %[[F]]
// CHECK: %[[MASK:.+]] = vector.constant_mask [8] : vector<16xi1>
// CHECK: %[[XT:.+]] = vector.transfer_read %[[XR]][%[[C0]], %[[C32]]], %{{.+}}, %[[MASK]] {in_bounds = [true]}
// CHECK: %[[WT:.+]] = vector.transfer_read %[[W]][%[[N]], %[[C32]]], %{{.+}}, %[[MASK]]
// CHECK: %[[T:.+]] = vector.fma %[[WT]], %[[XT]], %[[ACC]] : vector<16xf32>
// CHECK: %[[S:.+]] = vector.reduction <add>, %[[T]] fastmath<reassoc> : vector<16xf32> into f32
// CHECK: %[[BV:.+]] = tensor.extract %[[B]][%[[N]]]
// CHECK: %[[Y:.+]] = arith.addf %[[S]], %[[BV]] : f32
// CHECK: memref.store %[[Y]], %[[OUTR]][%[[C0]], %[[N]]]
// CHECK: scf.reduce
// CHECK: }
// CHECK-NOT: scf.for
// CHECK: %[[R:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<1x1x5xf32> to tensor<1x1x5xf32>
// CHECK: return %[[R]]

// KERNELS-LABEL: func.func @gemv_f32_tails
// KERNELS-SAME: (%[[X:.+]]: memref<1x1x40xf32>, %[[W:.+]]: memref<5x40xf32>, %[[B:.+]]: memref<5xf32>)
// KERNELS-NOT: memref.copy
// KERNELS: scf.parallel
// KERNELS: vector.transfer_read %[[W]]
// KERNELS: vector.fma {{.*}} : vector<16xf32>
// KERNELS: vector.reduction <add>, {{.*}} fastmath<reassoc>
// KERNELS-NOT: memref.copy

// LLVM-LABEL: llvm.func @gemv_f32_tails
// LLVM: llvm.call @omp_get_max_threads()
// LLVM: omp.parallel
// LLVM: llvm.call @omp_get_thread_num()
// LLVM: llvm.cmpxchg
// LLVM-NOT: omp.wsloop
// LLVM: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// LLVM: llvm.intr.masked.load
// LLVM: "llvm.intr.vector.reduce.fadd"({{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<16xf32>) -> f32
func.func @gemv_f32_tails(%x: tensor<1x1x40xf32>, %w: tensor<5x40xf32>, %b: tensor<5xf32>) -> tensor<1x1x5xf32> {
  %0 = llm.linear %x, %w, %b : tensor<1x1x40xf32>, tensor<5x40xf32>, tensor<5xf32> -> tensor<1x1x5xf32>
  return %0 : tensor<1x1x5xf32>
}

// -----

// Tied logits with bf16 weights, rank-2 input, K and N multiples of the
// vector width and the row block: each weight vector is widened with one
// arith.extf; no masked step, no row tail. 16-bit rows of 8 KiB are
// prefetched into L2 16 KiB ahead, each K step: 4 rows, row + 2 clamped to
// the last row, 63.
// CHECK-LABEL: func @logits_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<1x4096xf32>, %[[W:.+]]: tensor<64x4096xbf16>)
// CHECK: %[[OUT:.+]] = memref.alloc() {alignment = 64 : i64} : memref<1x64xf32>
// CHECK: %[[WB:.+]] = bufferization.to_buffer %[[W]] read_only : tensor<64x4096xbf16> to memref<64x4096xbf16>
// CHECK: scf.parallel (%[[N0:.+]]) = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) {
// CHECK: scf.for
// CHECK: %[[AHEAD:.+]] = arith.addi %[[N0]], %c2 : index
// CHECK: %[[ROW:.+]] = arith.minui %[[AHEAD]], %c63 : index
// CHECK: memref.prefetch %[[WB]][%[[ROW]], %{{.+}}], read, locality<2>, data : memref<64x4096xbf16>
// CHECK: %[[XV:.+]] = vector.transfer_read %[[X]]{{.+}} : tensor<1x4096xf32>, vector<16xf32>
// CHECK: %[[WV:.+]] = vector.transfer_read %[[W]][%[[N0]], %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<64x4096xbf16>, vector<16xbf16>
// CHECK: %[[WF:.+]] = arith.extf %[[WV]] : vector<16xbf16> to vector<16xf32>
// CHECK: vector.fma %[[WF]], %[[XV]], %{{.+}} : vector<16xf32>
// CHECK-NOT: vector.constant_mask
// CHECK-NOT: vector.create_mask
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK: scf.reduce
// CHECK-NOT: scf.for
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
func.func @logits_bf16(%x: tensor<1x4096xf32>, %w: tensor<64x4096xbf16>) -> tensor<1x64xf32> {
  %0 = llm.logits %x, %w {tied} : tensor<1x4096xf32>, tensor<64x4096xbf16> -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// f16 rows too short to prefetch (176 bytes): with AVX-512's registers the
// K loop sums in two independent FMA chains, a double step of 32 columns
// each (K = 88: two of them), added together before the step left over
// (columns 64-79) and the masked tail of 8.
// CHECK-LABEL: func @gemv_f16_two_chains
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x88xf32>, %[[W:.+]]: tensor<4x88xf16>)
// CHECK-NOT: memref.prefetch
// CHECK: scf.parallel (%[[N:.+]]) =
// CHECK: %[[CH:.+]]:2 = scf.for %[[K:.+]] = %c0 to %c64 step %c32 iter_args(%[[A:.+]] = %[[Z:.+]], %[[B:.+]] = %[[Z]]) -> (vector<16xf32>, vector<16xf32>) {
// CHECK: %[[W0:.+]] = vector.transfer_read %[[W]][%[[N]], %[[K]]]
// CHECK: %[[F0:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[A]] : vector<16xf32>
// CHECK: %[[K1:.+]] = arith.addi %[[K]], %c16 : index
// CHECK: %[[W1:.+]] = vector.transfer_read %[[W]][%[[N]], %[[K1]]]
// CHECK: %[[F1:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[B]] : vector<16xf32>
// CHECK: scf.yield %[[F0]], %[[F1]]
// CHECK: %[[SUM:.+]] = arith.addf %[[CH]]#0, %[[CH]]#1 : vector<16xf32>
// CHECK: vector.transfer_read %[[W]][%[[N]], %c64]
// CHECK: %[[S64:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[SUM]] : vector<16xf32>
// CHECK: vector.constant_mask [8] : vector<16xi1>
// CHECK: vector.transfer_read %[[W]][%[[N]], %c80]
// CHECK: %[[T:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[S64]] : vector<16xf32>
// CHECK: vector.reduction <add>, %[[T]] fastmath<reassoc>
// AVX2-LABEL: func @gemv_f16_two_chains
// AVX2: scf.for %{{.+}} = %c0 to %c80 step %c16 iter_args(%{{.+}} = %{{.+}}) -> (vector<16xf32>) {
// AVX2-NOT: arith.addf %{{.+}} : vector<16xf32>
// AVX2: vector.reduction <add>
func.func @gemv_f16_two_chains(%x: tensor<1x1x88xf32>, %w: tensor<4x88xf16>) -> tensor<1x1x4xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x88xf32>, tensor<4x88xf16> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// f16 rows of 8 KiB are prefetched, and a second chain measured slower
// there: one chain.
// CHECK-LABEL: func @gemv_f16_prefetched
// CHECK: scf.for %{{.+}} = %c0 to %c4096 step %c16 iter_args(%{{.+}} = %{{.+}}) -> (vector<16xf32>) {
// CHECK: memref.prefetch
// CHECK: vector.fma
// CHECK-NOT: arith.addf %{{.+}} : vector<16xf32>
// CHECK: vector.reduction <add>
func.func @gemv_f16_prefetched(%x: tensor<1x1x4096xf32>, %w: tensor<4x4096xf16>) -> tensor<1x1x4xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x4096xf32>, tensor<4x4096xf16> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// 16-bit rows of 4 KiB are left to the hardware prefetchers (f16 then sums
// in two chains under AVX-512's registers, bf16 in one); f32 rows of 4 KiB
// are prefetched.
// CHECK-LABEL: func @gemv_f16_4k_rows
// CHECK-NOT: memref.prefetch
// CHECK: scf.for %{{.+}} = %c0 to %c2048 step %c32 iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: memref.prefetch
// CHECK: vector.reduction <add>
// AVX2-LABEL: func @gemv_f16_4k_rows
// AVX2-NOT: memref.prefetch
// AVX2: vector.reduction <add>
func.func @gemv_f16_4k_rows(%x: tensor<1x1x2048xf32>, %w: tensor<4x2048xf16>) -> tensor<1x1x4xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x2048xf32>, tensor<4x2048xf16> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// CHECK-LABEL: func @gemv_bf16_4k_rows
// CHECK-NOT: memref.prefetch
// CHECK: scf.for %{{.+}} = %c0 to %c2048 step %c16 iter_args(%{{.+}} = %{{.+}}) -> (vector<16xf32>) {
// CHECK-NOT: memref.prefetch
// CHECK: vector.reduction <add>
func.func @gemv_bf16_4k_rows(%x: tensor<1x1x2048xf32>, %w: tensor<4x2048xbf16>) -> tensor<1x1x4xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x2048xf32>, tensor<4x2048xbf16> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// CHECK-LABEL: func @gemv_f32_4k_rows
// CHECK: scf.for %{{.+}} = %c0 to %c1024 step %c16 iter_args(%{{.+}} = %{{.+}}) -> (vector<16xf32>) {
// CHECK: memref.prefetch
// CHECK: vector.reduction <add>
func.func @gemv_f32_4k_rows(%x: tensor<1x1x1024xf32>, %w: tensor<4x1024xf32>) -> tensor<1x1x4xf32> {
  %0 = llm.linear %x, %w : tensor<1x1x1024xf32>, tensor<4x1024xf32> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// Softcapped logits of one row: the GEMV's output buffer as a tensor, then
// the softcap generic in place over it.
// CHECK-LABEL: func @logits_softcap_gemv
// CHECK: vector.fma
// CHECK: %[[Z:.+]] = bufferization.to_tensor %{{.+}} restrict writable
// CHECK: %[[CAPPED:.+]] = linalg.generic {{.+}} outs(%[[Z]] : tensor<1x64xf32>)
// CHECK: math.tanh
// CHECK: return %[[CAPPED]]
func.func @logits_softcap_gemv(%x: tensor<1x64xf32>, %w: tensor<64x64xbf16>) -> tensor<1x64xf32> {
  %0 = llm.logits %x, %w {tied, softcap = 30.0 : f64} : tensor<1x64xf32>, tensor<64x64xbf16> -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// bf16 activations: f32 accumulation, one arith.truncf per stored output.
// CHECK-LABEL: func @gemv_bf16_activations
// CHECK: scf.parallel
// CHECK: arith.extf %{{.+}} : vector<16xbf16> to vector<16xf32>
// CHECK: vector.fma
// CHECK: %[[S:.+]] = vector.reduction <add>, %{{.+}} fastmath<reassoc>
// CHECK: %[[T:.+]] = arith.truncf %[[S]] : f32 to bf16
// CHECK: memref.store %[[T]], %{{.+}} : memref<1x32xbf16>
func.func @gemv_bf16_activations(%x: tensor<1x1x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<1x1x32xbf16> {
  %0 = llm.linear %x, %w : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  return %0 : tensor<1x1x32xbf16>
}

// -----

// f64 is not a kernel type: the generic contraction stays the fallback.
// CHECK-LABEL: func @gemv_f64_fallback
// CHECK-NOT: scf.parallel
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @gemv_f64_fallback(%x: tensor<1x1x8xf64>, %w: tensor<4x8xf64>) -> tensor<1x1x4xf64> {
  %0 = llm.linear %x, %w : tensor<1x1x8xf64>, tensor<4x8xf64> -> tensor<1x1x4xf64>
  return %0 : tensor<1x1x4xf64>
}
