// llm.linear / llm.logits with one row (decode) → a GEMV kernel: 8 warps per
// CTA, one weight row per warp (two from 8192 rows on, sharing every x
// vector), lanes striding over K in the widest vectors (at most 16 bytes)
// that divide K, 4 vectors per row in flight per lane, shfl.sync.bfly
// reductions, bias added by lane 0. Rows past N repeat row N-1 and are not
// stored. Every kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  func.func private @llama3_up(%x: tensor<1x1x4096xf32>, %w: tensor<14336x4096xbf16>) -> tensor<1x1x14336xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x4096xf32>, tensor<14336x4096xbf16> -> tensor<1x1x14336xf32>
    return %0 : tensor<1x1x14336xf32>
  }
  func.func private @qwen2_k(%x: tensor<1x1x896xf32>, %w: tensor<128x896xbf16>, %b: tensor<128xbf16>) -> tensor<1x1x128xf32> {
    %0 = llm.linear %x, %w, %b : tensor<1x1x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> -> tensor<1x1x128xf32>
    return %0 : tensor<1x1x128xf32>
  }
  func.func private @stories_down(%x: tensor<1x1x172xf32>, %w: tensor<64x172xf32>) -> tensor<1x1x64xf32> {
    %0 = llm.linear %x, %w : tensor<1x1x172xf32>, tensor<64x172xf32> -> tensor<1x1x64xf32>
    return %0 : tensor<1x1x64xf32>
  }
  func.func private @stories_logits(%x: tensor<1x1x64xf32>, %table: tensor<512x64xf32>) -> tensor<1x1x512xf32> {
    %0 = llm.logits %x, %table {tied} : tensor<1x1x64xf32>, tensor<512x64xf32> -> tensor<1x1x512xf32>
    return %0 : tensor<1x1x512xf32>
  }
  func.func private @odd(%x: tensor<1x1x13xf32>, %w: tensor<8193x13xf16>, %b: tensor<8193xf32>) -> tensor<1x1x8193xf32> {
    %0 = llm.linear %x, %w, %b : tensor<1x1x13xf32>, tensor<8193x13xf16>, tensor<8193xf32> -> tensor<1x1x8193xf32>
    return %0 : tensor<1x1x8193xf32>
  }
}

// Host side: x and the result viewed as (1, K) and (1, N); 14336 rows at 16
// per CTA.
// KERNELS-LABEL: func.func private @llama3_up
// KERNELS: %[[OUT:.*]] = memref.alloc() : memref<1x1x14336xf32>
// KERNELS-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<1x1x4096xf32> into memref<1x4096xf32>
// KERNELS-DAG: %[[Y:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<1x1x14336xf32> into memref<1x14336xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n14336_k4096_bf16_r2 blocks in (%c896, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[X]] : memref<1x4096xf32>, %arg1 : memref<14336x4096xbf16>, %[[Y]] : memref<1x14336xf32>)
// KERNELS: return %[[OUT]]
// KERNELS-LABEL: func.func private @qwen2_k
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n128_k896_bf16_biasbf16_r1 blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<1x896xf32>, %arg1 : memref<128x896xbf16>, %arg2 : memref<128xbf16>, %{{.*}} : memref<1x128xf32>)
// KERNELS-LABEL: func.func private @stories_down
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n64_k172_f32_r1 blocks in (%c8, %c1, %c1)
// `tied` logits are the same product with the embedding table.
// KERNELS-LABEL: func.func private @stories_logits
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n512_k64_f32_r1 blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<1x64xf32>, %arg1 : memref<512x64xf32>, %{{.*}} : memref<1x512xf32>)
// KERNELS-LABEL: func.func private @odd
// KERNELS: gpu.launch_func @llmc_kernels::@gemv_n8193_k13_f16_biasf32_r2 blocks in (%c513, %c1, %c1)

// Two rows per warp: the second is clamped to N-1; the K loop takes 4 × 32
// chunks of 8 per iteration, each x vector loaded once for both rows.
// KERNELS-LABEL: gpu.func @gemv_n14336_k4096_bf16_r2(%arg0: memref<1x4096xf32>, %arg1: memref<14336x4096xbf16>, %arg2: memref<1x14336xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32}
// KERNELS: %[[WARP:.*]] = arith.addi
// KERNELS: %[[ACTIVE:.*]] = arith.cmpi ult, %[[WARP]], %c7168 : index
// KERNELS: scf.if %[[ACTIVE]] {
// KERNELS: %[[ROW0:.*]] = arith.muli %[[WARP]], %c2 : index
// KERNELS: %[[NEXT:.*]] = arith.addi %[[ROW0]], %c1 : index
// KERNELS: %[[ROW1:.*]] = arith.minui %[[NEXT]], %c14335 : index
// KERNELS: scf.for %{{.*}} = %c0 to %c512 step %c128 iter_args(%{{.*}} = %cst, %{{.*}} = %cst) -> (vector<8xf32>, vector<8xf32>)
// KERNELS: %[[XV:.*]] = vector.load %arg0[%c0, %[[COL:.*]]] {alignment = 16 : i64} : memref<1x4096xf32>, vector<8xf32>
// KERNELS-NEXT: vector.load %arg1[%[[ROW0]], %[[COL]]] {alignment = 16 : i64} : memref<14336x4096xbf16>, vector<8xbf16>
// KERNELS-NEXT: vector.load %arg1[%[[ROW1]], %[[COL]]] {alignment = 16 : i64} : memref<14336x4096xbf16>, vector<8xbf16>
// KERNELS-COUNT-9: vector.load
// KERNELS: arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// KERNELS-NEXT: vector.fma %{{.*}}, %[[XV]], %{{.*}} : vector<8xf32>
// KERNELS: vector.reduction <add>
// KERNELS: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// KERNELS: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// KERNELS: memref.store %{{.*}}, %arg2[%c0, %[[ROW0]]] : memref<1x14336xf32>
// KERNELS: memref.store %{{.*}}, %arg2[%c0, %[[NEXT]]] : memref<1x14336xf32>
// KERNELS: gpu.return

// K = 172 f32: 43 vectors of 4, no whole loop iteration: one step for all
// 32 lanes, then one for lanes 0..10.
// KERNELS-LABEL: gpu.func @gemv_n64_k172_f32_r1
// KERNELS-NOT: scf.for
// KERNELS: vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<64x172xf32>, vector<4xf32>
// KERNELS: %[[TAIL:.*]] = arith.cmpi ult, %{{.*}}, %c11 : index
// KERNELS-NEXT: scf.if %[[TAIL]] -> (vector<4xf32>)
// KERNELS: vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<64x172xf32>, vector<4xf32>
// KERNELS: gpu.return

// K = 13 f16: scalar loads; the second row's result only when it exists.
// KERNELS-LABEL: gpu.func @gemv_n8193_k13_f16_biasf32_r2
// KERNELS: vector.load %arg1[{{.*}}] {alignment = 2 : i64} : memref<8193x13xf16>, vector<1xf16>
// KERNELS: %[[B0:.*]] = arith.minui %[[R0:.*]], %c8192 : index
// KERNELS-NEXT: memref.load %arg2[%[[B0]]] : memref<8193xf32>
// KERNELS: memref.store %{{.*}}, %arg3[%c0, %[[R0]]]
// KERNELS: %[[SECOND:.*]] = arith.cmpi ult, %[[R1:.*]], %c8193 : index
// KERNELS-NEXT: scf.if %[[SECOND]] {
// KERNELS: memref.store %{{.*}}, %arg3[%c0, %[[R1]]]

// In the PTX, 128-bit loads of weights and x, FMAs on widened bf16,
// butterfly shuffles.
// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .entry gemv_n14336_k4096_bf16_r2(
// PTX: .maxntid 256, 1, 1
// PTX-COUNT-16: ld.global.v4.b32
// PTX: cvt.f32.bf16
// PTX: fma.rn.f32
// PTX: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX: st.global.b32
// PTX-LABEL: .entry gemv_n8193_k13_f16_biasf32_r2(
// PTX: ld.global.b16
// PTX: cvt.f32.f16
// PTX-LABEL: // ---- llmc: PTX for sm_90

// PTXAS-DAG: kernel gemv_n14336_k4096_bf16_r2 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n128_k896_bf16_biasbf16_r1 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n64_k172_f32_r1 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n512_k64_f32_r1 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n8193_k13_f16_biasf32_r2 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n14336_k4096_bf16_r2 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n128_k896_bf16_biasbf16_r1 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n64_k172_f32_r1 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n512_k64_f32_r1 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemv_n8193_k13_f16_biasf32_r2 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
