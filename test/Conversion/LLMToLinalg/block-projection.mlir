// Block-quantized weights (`!llm.block<...>`) on the CPU: the weights become their bytes (tensor<N x rowBytes x
// i8>), the projections walk K block by block, load each block's scales once per weight row and decode every
// vector of codes in registers (integer unpacking, sitofp, one FMA with the scale and offset) before the FMA
// with x; the embedding gathers and decodes only the tokens' rows. No dequantized copy of a weight exists.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg=parallel-min-weight-elements=0 --canonicalize --cse | FileCheck %s
// Bufferized and lowered to loops on memrefs: the byte tensors are the functions' memref<...xi8> arguments, read
// in place (no copies).
// RUN: llmc-opt %s -split-input-file --llmc-cpu-kernels=parallel-min-weight-elements=0 | FileCheck %s --check-prefix=KERNELS
// AVX2's registers: the prefill GEMM on vector<8xf32> (the decode GEMV keeps vector<16xf32>, two ymm).
// RUN: llmc-opt %s -split-input-file --llm-lower-to-linalg="vector-register-bits=256 vector-registers=16" --canonicalize --cse | FileCheck %s --check-prefix=AVX2

// Q4_0 decode (one row): 2 blocks of 32 per row (18 bytes each, 36 per row); per block and weight row the f16
// scale d at byte 0 and the offset -8d, a prefetch of the rows the thread reads next, then the low nibbles of
// bytes 2-17 (elements 0-15) and their high nibbles (16-31).
// CHECK-LABEL: func @gemv_q4_0
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x64xf32>, %[[W:.+]]: tensor<4x36xi8>)
// CHECK-DAG: %[[LOW:.+]] = arith.constant dense<15> : vector<16xi32>
// CHECK-DAG: %[[FOUR:.+]] = arith.constant dense<4> : vector<16xi32>
// CHECK-DAG: %[[MINUS8:.+]] = arith.constant -8.000000e+00 : f32
// CHECK: %[[BYTES:.+]] = bufferization.to_buffer %[[W]] read_only : tensor<4x36xi8> to memref<4x36xi8>
// CHECK: scf.parallel (%[[N0:.+]]) =
// CHECK: scf.for %[[BLOCK:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[OFF:.+]] = arith.muli %[[BLOCK]], %{{.+}} : index
// CHECK: %[[DB:.+]] = vector.transfer_read %[[W]][%[[N0]], %[[OFF]]], %{{.+}} {in_bounds = [true]} : tensor<4x36xi8>, vector<2xi8>
// CHECK: %[[DH:.+]] = vector.bitcast %[[DB]] : vector<2xi8> to vector<1xf16>
// CHECK: %[[D:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: arith.mulf %[[D]], %[[MINUS8]] : f32
// The rows 16 KiB ahead (clamped to the last row) at this block's offset, prefetched into L2.
// CHECK: memref.prefetch %[[BYTES]][%{{.+}}, %{{.+}}], read, locality<2>, data : memref<4x36xi8>
// CHECK: %[[XV:.+]] = vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<1x64xf32>, vector<16xf32>
// CHECK: %[[Q:.+]] = vector.transfer_read %[[W]][%[[N0]], %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<4x36xi8>, vector<16xi8>
// CHECK: %[[QW:.+]] = arith.extui %[[Q]] : vector<16xi8> to vector<16xi32>
// CHECK: %[[NIB:.+]] = arith.andi %[[QW]], %[[LOW]] : vector<16xi32>
// CHECK: %[[QF:.+]] = arith.sitofp %[[NIB]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[WV:.+]] = vector.fma %[[QF]], %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK: vector.fma %[[WV]], %[[XV]], %{{.+}} : vector<16xf32>
// CHECK: arith.shrui %{{.+}}, %[[FOUR]] : vector<16xi32>
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<16xf32> into f32
// KERNELS-LABEL: func @gemv_q4_0
// KERNELS-SAME: memref<4x36xi8
// KERNELS-NOT: memref.copy
// KERNELS: vector.transfer_read %arg1[%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : memref<4x36xi8>, vector<16xi8>
func.func @gemv_q4_0(%x: tensor<1x1x64xf32>, %w: tensor<4x64x!llm.block<q4_0>>) -> tensor<1x1x4xf32> {
  %y = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<4x64x!llm.block<q4_0>> -> tensor<1x1x4xf32>
  return %y : tensor<1x1x4xf32>
}

// -----

// Q6_K prefill (dynamic rows), K = 2 super-blocks of 256 (210 bytes each): per block 16 int8 sub-scales
// (bytes 192-207) times d (bytes 208-209), the 6-bit codes from a nibble of ql (bytes 0-127) and two bits of
// qh (128-191). Each (row block, weight tile) decodes its 6 weight rows once into a buffer that the block's
// x tiles read as f32 rows, freed at the end of the iteration; the x rows below a tile, and weight rows 6-7
// (below a tile of 6), decode in registers.
// CHECK-LABEL: func @gemm_q6_k
// CHECK-SAME: (%[[X:.+]]: tensor<1x?x512xf32>, %[[W:.+]]: tensor<8x420xi8>)
// CHECK: scf.parallel
// CHECK: %[[ROWS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<6x512xf32>
// CHECK: vector.transfer_write %{{.+}}, %[[ROWS]][%{{.+}}, %{{.+}}] {in_bounds = [true]} : vector<16xf32>, memref<6x512xf32>
// CHECK: vector.transfer_read %[[ROWS]][%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : memref<6x512xf32>, vector<16xf32>
// CHECK: scf.for %[[BLOCK:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: vector.transfer_read %[[W]][%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<8x420xi8>, vector<16xi8>
// CHECK: arith.extsi %{{.+}} : i8 to i32
// CHECK: arith.sitofp %{{.+}} : i32 to f32
// CHECK: arith.shrui
// CHECK: vector.fma
// CHECK: scf.yield
// AVX2-LABEL: func @gemm_q6_k
// AVX2: vector.transfer_read %{{.+}} : tensor<8x420xi8>, vector<8xi8>
// AVX2: arith.sitofp %{{.+}} : vector<8xi32> to vector<8xf32>
// The tile's decoded rows (12 KiB) are scratch of one iteration of the
// row-block loop, on the stack: no heap allocation, no free.
// KERNELS-LABEL: func @gemm_q6_k
// KERNELS-SAME: memref<8x420xi8
// KERNELS: scf.parallel
// KERNELS-NEXT: arith.addi
// KERNELS-NEXT: arith.minui
// KERNELS-NEXT: %[[ROWS:.+]] = memref.alloca() {alignment = 64 : i64} : memref<6x512xf32>
// KERNELS-NOT: memref.dealloc
// KERNELS: scf.reduce
// KERNELS-NOT: memref.copy
// KERNELS: scf.parallel
func.func @gemm_q6_k(%x: tensor<1x?x512xf32>, %w: tensor<8x512x!llm.block<q6_k>>) -> tensor<1x?x8xf32> {
  %y = llm.logits %x, %w : tensor<1x?x512xf32>, tensor<8x512x!llm.block<q6_k>> -> tensor<1x?x8xf32>
  return %y : tensor<1x?x8xf32>
}

// -----

// The embedding: for every token, its row's blocks decoded and written straight into the gathered rows.
// CHECK-LABEL: func @gather_q8_0
// CHECK-SAME: (%[[T:.+]]: tensor<1x?xi32>, %[[TABLE:.+]]: tensor<16x68xi8>)
// CHECK: %[[OUT:.+]] = memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<1x?x64xf32>
// CHECK: %[[ROWS:.+]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]]
// CHECK: scf.for %[[I:.+]] =
// CHECK: scf.for %[[B:.+]] =
// CHECK: %[[TOKEN:.+]] = tensor.extract %{{.+}}[%[[I]]] : tensor<?xi32>
// CHECK: %[[ROW:.+]] = arith.index_cast %[[TOKEN]] : i32 to index
// CHECK: vector.transfer_read %[[TABLE]][%[[ROW]], %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<16x68xi8>, vector<16xi8>
// CHECK: arith.extsi %{{.+}} : vector<16xi8> to vector<16xi32>
// CHECK: %[[V:.+]] = arith.mulf
// CHECK: vector.transfer_write %[[V]], %[[ROWS]][%[[I]], %{{.+}}] {in_bounds = [true]} : vector<16xf32>, memref<?x64xf32>
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
func.func @gather_q8_0(%t: tensor<1x?xi32>, %table: tensor<16x64x!llm.block<q8_0>>) -> tensor<1x?x64xf32> {
  %h = llm.embedding %t, %table : tensor<1x?xi32>, tensor<16x64x!llm.block<q8_0>> -> tensor<1x?x64xf32>
  return %h : tensor<1x?x64xf32>
}

// -----

// A scaled embedding of blocks (Gemma from GGUF): the decoded rows, then × 48
// in place over them.
// CHECK-LABEL: func @gather_q8_0_scaled
// CHECK: %[[OUT:.+]] = memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<1x?x64xf32>
// CHECK: vector.transfer_write
// CHECK: %[[ROWS:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: linalg.generic {{.+}} outs(%[[ROWS]] : tensor<1x?x64xf32>)
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f32
func.func @gather_q8_0_scaled(%t: tensor<1x?xi32>, %table: tensor<16x64x!llm.block<q8_0>>) -> tensor<1x?x64xf32> {
  %h = llm.embedding %t, %table {scale = 48.0 : f64} : tensor<1x?xi32>, tensor<16x64x!llm.block<q8_0>> -> tensor<1x?x64xf32>
  return %h : tensor<1x?x64xf32>
}

// -----

// Every format's bytes per row: 64 elements of the 32-element formats (2 blocks), 256 of the K-quants (1).
// CHECK-LABEL: func @formats
// CHECK-SAME: tensor<2x68xi8>, %{{.+}}: tensor<2x36xi8>, %{{.+}}: tensor<2x40xi8>, %{{.+}}: tensor<2x44xi8>, %{{.+}}: tensor<2x48xi8>, %{{.+}}: tensor<2x144xi8>, %{{.+}}: tensor<2x176xi8>
func.func @formats(%x: tensor<1x1x64xf32>, %x2: tensor<1x1x256xf32>,
    %a: tensor<2x64x!llm.block<q8_0>>, %b: tensor<2x64x!llm.block<q4_0>>, %c: tensor<2x64x!llm.block<q4_1>>,
    %d: tensor<2x64x!llm.block<q5_0>>, %e: tensor<2x64x!llm.block<q5_1>>, %f: tensor<2x256x!llm.block<q4_k>>,
    %g: tensor<2x256x!llm.block<q5_k>>) -> (tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>) {
  %0 = llm.linear %x, %a : tensor<1x1x64xf32>, tensor<2x64x!llm.block<q8_0>> -> tensor<1x1x2xf32>
  %1 = llm.linear %x, %b : tensor<1x1x64xf32>, tensor<2x64x!llm.block<q4_0>> -> tensor<1x1x2xf32>
  %2 = llm.linear %x, %c : tensor<1x1x64xf32>, tensor<2x64x!llm.block<q4_1>> -> tensor<1x1x2xf32>
  %3 = llm.linear %x, %d : tensor<1x1x64xf32>, tensor<2x64x!llm.block<q5_0>> -> tensor<1x1x2xf32>
  %4 = llm.linear %x, %e : tensor<1x1x64xf32>, tensor<2x64x!llm.block<q5_1>> -> tensor<1x1x2xf32>
  %5 = llm.linear %x2, %f : tensor<1x1x256xf32>, tensor<2x256x!llm.block<q4_k>> -> tensor<1x1x2xf32>
  %6 = llm.linear %x2, %g : tensor<1x1x256xf32>, tensor<2x256x!llm.block<q5_k>> -> tensor<1x1x2xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>
}
