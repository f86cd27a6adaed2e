// tensor.concat along the last dimension and tensor.extract_slice of a run
// of the last dimension (multi-head latent attention's [latent; rope]
// queries and keys, and the latent part of its attention output) → one
// column-copy kernel launch per concat operand or slice, over the buffers
// viewed as (rows, width) with dynamic rows: thread i copies one vector of
// row i / (width / vector), as wide (at most 16 bytes) as the width, both
// row widths and both offsets allow. A slice of the tokens (whole rows)
// stays a device-to-device copy. Every kernel assembles for sm_80 and sm_90
// without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  func.func private @query(%latent: tensor<1x?x4x32xf32>, %rope: tensor<1x?x4x8xf32>) -> tensor<1x?x4x40xf32> {
    %0 = tensor.concat dim(3) %latent, %rope : (tensor<1x?x4x32xf32>, tensor<1x?x4x8xf32>) -> tensor<1x?x4x40xf32>
    return %0 : tensor<1x?x4x40xf32>
  }
  func.func private @odd_key(%latent: tensor<1x1x1x6xf32>, %rope: tensor<1x1x1x2xf32>) -> tensor<1x1x1x8xf32> {
    %0 = tensor.concat dim(3) %latent, %rope : (tensor<1x1x1x6xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x8xf32>
    return %0 : tensor<1x1x1x8xf32>
  }
  func.func private @latent_out(%attended: tensor<1x?x4x40xf32>, %t: index) -> tensor<1x?x4x32xf32> {
    %0 = tensor.extract_slice %attended[0, 0, 0, 0] [1, %t, 4, 32] [1, 1, 1, 1] : tensor<1x?x4x40xf32> to tensor<1x?x4x32xf32>
    return %0 : tensor<1x?x4x32xf32>
  }
  func.func private @rope_part(%key: tensor<1x1x1x40xf32>) -> tensor<1x1x1x8xf32> {
    %0 = tensor.extract_slice %key[0, 0, 0, 32] [1, 1, 1, 8] [1, 1, 1, 1] : tensor<1x1x1x40xf32> to tensor<1x1x1x8xf32>
    return %0 : tensor<1x1x1x8xf32>
  }
}

// The query [latent; rope]: two launches into one (rows, 40) buffer, at columns 0 and 32, one 16-byte vector
// per thread (8 and 2 per row).
// KERNELS-LABEL: func.func private @query
// KERNELS: %[[OUT:.*]] = memref.alloc(%{{.*}}) : memref<1x?x4x40xf32>
// KERNELS: %[[A:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : memref<1x?x4x32xf32> into memref<?x32xf32>
// KERNELS: %[[O:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1, 2], [3]] : memref<1x?x4x40xf32> into memref<?x40xf32>
// KERNELS: %[[ROWS:.*]] = memref.dim %[[O]], %c0 : memref<?x40xf32>
// KERNELS: arith.muli %[[ROWS]], %c8 : index
// KERNELS: gpu.launch_func @llmc_kernels::@copy_columns_f32_w32_from32at0_to40at0_v4 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[A]] : memref<?x32xf32>, %[[O]] : memref<?x40xf32>)
// KERNELS: %[[B:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3]] : memref<1x?x4x8xf32> into memref<?x8xf32>
// KERNELS: arith.muli %[[ROWS]], %c2 : index
// KERNELS: gpu.launch_func @llmc_kernels::@copy_columns_f32_w8_from8at0_to40at32_v4 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[B]] : memref<?x8xf32>, %[[O]] : memref<?x40xf32>)
// KERNELS: return %[[OUT]] : memref<1x?x4x40xf32>
// Widths and offsets of 6 and 2 f32: 8-byte vectors.
// KERNELS-LABEL: func.func private @odd_key
// KERNELS: gpu.launch_func @llmc_kernels::@copy_columns_f32_w6_from6at0_to8at0_v2 blocks in (%c1, %c1, %c1)
// KERNELS: gpu.launch_func @llmc_kernels::@copy_columns_f32_w2_from2at0_to8at6_v2 blocks in (%c1, %c1, %c1)
// The latent part of the attention output: the result's tokens are the slice's size.
// KERNELS-LABEL: func.func private @latent_out
// KERNELS: %[[OUT:.*]] = memref.alloc(%arg1) : memref<1x?x4x32xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@copy_columns_f32_w32_from40at0_to32at0_v4
// KERNELS-LABEL: func.func private @rope_part
// KERNELS: gpu.launch_func @llmc_kernels::@copy_columns_f32_w8_from40at32_to8at0_v4 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)

// Thread i: row i / 2, columns (i mod 2) · 4 .. + 4, read from column 32 on, only for rows of the target.
// KERNELS-LABEL: gpu.func @copy_columns_f32_w8_from40at32_to8at0_v4(%arg0: memref<?x40xf32>, %arg1: memref<?x8xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// KERNELS: %[[ROWS:.*]] = memref.dim %arg1, %c0 : memref<?x8xf32>
// KERNELS: %[[ROW:.*]] = arith.divui %{{.*}}, %c2 : index
// KERNELS: %[[PART:.*]] = arith.remui %{{.*}}, %c2 : index
// KERNELS: %[[COL:.*]] = arith.muli %[[PART]], %c4 : index
// KERNELS: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// KERNELS: scf.if %[[IN]] {
// KERNELS: %[[FROM:.*]] = arith.addi %[[COL]], %c32 : index
// KERNELS: %[[V:.*]] = vector.load %arg0[%[[ROW]], %[[FROM]]] {alignment = 16 : i64} : memref<?x40xf32>, vector<4xf32>
// KERNELS: vector.store %[[V]], %arg1[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<?x8xf32>, vector<4xf32>

// PTX-LABEL: .visible .entry copy_columns_f32_w32_from32at0_to40at0_v4(
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// PTX-LABEL: .visible .entry copy_columns_f32_w6_from6at0_to8at0_v2(
// PTX: ld.global.v2.b32
// PTX: st.global.v2.b32

// PTXAS-DAG: kernel copy_columns_f32_w32_from32at0_to40at0_v4 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel copy_columns_f32_w8_from8at0_to40at32_v4 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel copy_columns_f32_w6_from6at0_to8at0_v2 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel copy_columns_f32_w2_from2at0_to8at6_v2 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel copy_columns_f32_w32_from40at0_to32at0_v4 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel copy_columns_f32_w8_from40at32_to8at0_v4 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
