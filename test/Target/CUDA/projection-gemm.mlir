// llm.linear / llm.logits with a row count other than a static 1 (prefill)
// → a GEMM kernel per (N, K, weight type, bias type), 64 × 64 output tiles,
// grid (⌈rows/64⌉, ⌈N/64⌉). bf16/f16 weights: 4 warps of 32 × 32 on
// mma.sync m16n8k16 (f32 accumulators), x rounded to the weight's type when
// staged, ldmatrix.x4 fragments from shared rows padded to 40 elements.
// f32 weights: 256 threads of 4 × 4 f32 FMAs on K-major shared tiles. Both
// double-buffer their shared tiles with register prefetch (one barrier per
// K tile); rows past the row count, weight rows past N and columns past K
// load clamped addresses and are replaced by zeros. Static row counts are
// cast to the kernels' dynamic one. Every kernel assembles for sm_80 and
// sm_90 without spills (mma.sync is sm_80's instruction; sm_90 runs it).
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  func.func private @qwen2_k(%x: tensor<1x?x896xf32>, %w: tensor<128x896xbf16>, %b: tensor<128xbf16>) -> tensor<1x?x128xf32> {
    %0 = llm.linear %x, %w, %b : tensor<1x?x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> -> tensor<1x?x128xf32>
    return %0 : tensor<1x?x128xf32>
  }
  func.func private @f16_logits(%x: tensor<1x?x4096xf32>, %w: tensor<32000x4096xf16>) -> tensor<1x?x32000xf32> {
    %0 = llm.logits %x, %w : tensor<1x?x4096xf32>, tensor<32000x4096xf16> -> tensor<1x?x32000xf32>
    return %0 : tensor<1x?x32000xf32>
  }
  func.func private @stories_down(%x: tensor<1x?x172xf32>, %w: tensor<64x172xf32>) -> tensor<1x?x64xf32> {
    %0 = llm.linear %x, %w : tensor<1x?x172xf32>, tensor<64x172xf32> -> tensor<1x?x64xf32>
    return %0 : tensor<1x?x64xf32>
  }
  func.func private @odd(%x: tensor<2x3x13xf32>, %w: tensor<65x13xbf16>, %b: tensor<65xf32>) -> tensor<2x3x65xf32> {
    %0 = llm.linear %x, %w, %b : tensor<2x3x13xf32>, tensor<65x13xbf16>, tensor<65xf32> -> tensor<2x3x65xf32>
    return %0 : tensor<2x3x65xf32>
  }
}

// KERNELS-LABEL: func.func private @qwen2_k
// KERNELS-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<1x?x896xf32> into memref<?x896xf32>
// KERNELS-DAG: %[[Y:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<1x?x128xf32> into memref<?x128xf32>
// KERNELS: memref.dim %[[X]], %c0 : memref<?x896xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@gemm_mma_n128_k896_bf16_biasbf16 blocks in (%{{.*}}, %c2, %c1) threads in (%c128, %c1, %c1) args(%[[X]] : memref<?x896xf32>, %arg1 : memref<128x896xbf16>, %arg2 : memref<128xbf16>, %[[Y]] : memref<?x128xf32>)
// KERNELS-LABEL: func.func private @f16_logits
// KERNELS: gpu.launch_func @llmc_kernels::@gemm_mma_n32000_k4096_f16 blocks in (%{{.*}}, %c500, %c1) threads in (%c128, %c1, %c1)
// KERNELS-LABEL: func.func private @stories_down
// KERNELS: gpu.launch_func @llmc_kernels::@gemm_simt_n64_k172_f32 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1)
// KERNELS-LABEL: func.func private @odd
// KERNELS: %[[SX:.*]] = memref.cast %{{.*}} : memref<6x13xf32> to memref<?x13xf32>
// KERNELS: %[[SY:.*]] = memref.cast %{{.*}} : memref<6x65xf32> to memref<?x65xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@gemm_mma_n65_k13_bf16_biasf32 blocks in (%c1, %c2, %c1) threads in (%c128, %c1, %c1) args(%[[SX]] : memref<?x13xf32>, %arg1 : memref<65x13xbf16>, %arg2 : memref<65xf32>, %[[SY]] : memref<?x65xf32>)

// The tensor-core kernel: tile 0 staged (x: clamped row, select, truncf to
// bf16; weight rows: N = 128 needs no guard), then 27 prefetching K tiles
// and the peeled last one; fragments by ldmatrix, products by nvvm.mma.sync
// on i32-typed bf16 pairs; the bias of the thread's columns loaded once
// (clamped), added in the row-guarded stores.
// KERNELS-LABEL: gpu.func @gemm_mma_n128_k896_bf16_biasbf16(%arg0: memref<?x896xf32>, %arg1: memref<128x896xbf16>, %arg2: memref<128xbf16>, %arg3: memref<?x128xf32>) workgroup(%arg4 : memref<2x64x40xbf16, 3> {llvm.align = 128 : i64}, %arg5 : memref<2x64x40xbf16, 3> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// KERNELS: %[[ROWCOUNT:.*]] = memref.dim %arg0, %c0 : memref<?x896xf32>
// KERNELS: %[[LAST:.*]] = arith.subi %[[ROWCOUNT]], %c1 : index
// KERNELS: %[[INROW:.*]] = arith.cmpi ult, %[[XROW:.*]], %[[ROWCOUNT]] : index
// KERNELS-NEXT: %[[CLAMPED:.*]] = arith.minui %[[XROW]], %[[LAST]] : index
// KERNELS-NEXT: %[[XV:.*]] = vector.load %arg0[%[[CLAMPED]], %{{.*}}] {alignment = 16 : i64} : memref<?x896xf32>, vector<4xf32>
// KERNELS: vector.load %arg1[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<128x896xbf16>, vector<8xbf16>
// KERNELS: %[[SEL:.*]] = arith.select %[[INROW]], %[[XV]], %{{.*}} : vector<4xf32>
// KERNELS-NEXT: %[[XB:.*]] = arith.truncf %[[SEL]] : vector<4xf32> to vector<4xbf16>
// KERNELS-NEXT: vector.store %[[XB]], %arg4[%c0, %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<2x64x40xbf16, 3>, vector<4xbf16>
// KERNELS: vector.store %{{.*}}, %arg5[%c0, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<2x64x40xbf16, 3>, vector<8xbf16>
// KERNELS: gpu.barrier
// KERNELS: scf.for %[[T:.*]] = %c0 to %c27 step %c1 iter_args({{.*}}) -> (f32, f32
// KERNELS: vector.load %arg0
// KERNELS: %[[BUF:.*]] = arith.remui %[[T]], %c2 : index
// KERNELS: nvgpu.ldmatrix %arg4[%[[BUF]], %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x40xbf16, 3> -> vector<4x2xbf16>
// KERNELS: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// KERNELS: nvgpu.ldmatrix %arg5[%[[BUF]], %{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x40xbf16, 3> -> vector<4x2xbf16>
// KERNELS: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// KERNELS: %[[OTHER:.*]] = arith.subi %c1, %[[BUF]] : index
// KERNELS: vector.store %{{.*}}, %arg4[%[[OTHER]], %{{.*}}, %{{.*}}]
// KERNELS: gpu.barrier
// KERNELS-NEXT: scf.yield
// KERNELS: nvgpu.ldmatrix %arg4[%c1,
// KERNELS: nvvm.mma.sync
// KERNELS: %[[BCOL:.*]] = arith.minui %[[COL:.*]], %c127 : index
// KERNELS-NEXT: %[[B:.*]] = memref.load %arg2[%[[BCOL]]] : memref<128xbf16>
// KERNELS-NEXT: %[[BF:.*]] = arith.extf %[[B]] : bf16 to f32
// KERNELS: %[[OUTROW:.*]] = arith.cmpi ult, %{{.*}}, %[[ROWCOUNT]] : index
// KERNELS-NEXT: scf.if %[[OUTROW]] {
// KERNELS-NEXT: %[[SUM:.*]] = arith.addf %{{.*}}, %[[BF]] : f32
// KERNELS-NEXT: memref.store %[[SUM]], %arg3[%{{.*}}, %[[COL]]] : memref<?x128xf32>

// f16 operands stay vector<2xf16> (nvvm.mma.sync's f16 form).
// KERNELS-LABEL: gpu.func @gemm_mma_n32000_k4096_f16
// KERNELS: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// The f32 kernel: K-major shared tiles (x and weight chunks stored
// transposed), the stage's K loop kept rolled, 4 × 4 outputs per thread.
// KERNELS-LABEL: gpu.func @gemm_simt_n64_k172_f32(%arg0: memref<?x172xf32>, %arg1: memref<64x172xf32>, %arg2: memref<?x64xf32>) workgroup(%arg3 : memref<2x16x68xf32, 3> {llvm.align = 128 : i64}, %arg4 : memref<2x16x68xf32, 3> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// K = 172 is not a multiple of 16: columns are guarded too.
// KERNELS: arith.cmpi ult, %{{.*}}, %c172 : index
// KERNELS: arith.minui %{{.*}}, %c168 : index
// KERNELS: memref.store %{{.*}}, %arg3[%c0, %{{.*}}, %{{.*}}] : memref<2x16x68xf32, 3>
// KERNELS: gpu.barrier
// KERNELS: scf.for %{{.*}} = %c0 to %c10 step %c1
// KERNELS: scf.for %{{.*}} = %c0 to %c16 step %c4
// KERNELS: vector.load %arg3[%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<2x16x68xf32, 3>, vector<4xf32>
// KERNELS: vector.fma
// KERNELS: } {llvm.loop_annotation = #{{.*}}}

// K = 13 and N = 65 (bf16): scalar chunks, K and N guarded.
// KERNELS-LABEL: gpu.func @gemm_mma_n65_k13_bf16_biasf32
// KERNELS: arith.minui %{{.*}}, %c12 : index
// KERNELS: vector.load %arg0[{{.*}}] {alignment = 4 : i64} : memref<?x13xf32>, vector<1xf32>
// KERNELS: arith.minui %{{.*}}, %c64 : index
// KERNELS: vector.load %arg1[{{.*}}] {alignment = 2 : i64} : memref<65x13xbf16>, vector<1xbf16>
// KERNELS: arith.cmpi ult, %{{.*}}, %c65 : index

// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .entry gemm_mma_n128_k896_bf16_biasbf16(
// PTX: .maxntid 128, 1, 1
// PTX: .shared .align 128 .b8 __wg_gemm_mma_n128_k896_bf16_biasbf16_0[10240];
// PTX: .shared .align 128 .b8 __wg_gemm_mma_n128_k896_bf16_biasbf16_1[10240];
// PTX: ld.global.v4.b32
// PTX: cvt.rn.bf16x2.f32
// PTX: st.shared.v2.b32
// PTX: st.shared.v4.b32
// PTX: bar.sync 0;
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-LABEL: .entry gemm_mma_n32000_k4096_f16(
// PTX: cvt.rn.f16x2.f32
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-LABEL: .entry gemm_simt_n64_k172_f32(
// PTX: .maxntid 256, 1, 1
// PTX: ld.shared.v4.b32
// PTX: fma.rn.f32
// PTX-LABEL: // ---- llmc: PTX for sm_90
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// PTXAS-DAG: kernel gemm_mma_n128_k896_bf16_biasbf16 sm_80 regs={{[0-9]+}} smem=20480 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_mma_n32000_k4096_f16 sm_80 regs={{[0-9]+}} smem=20480 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_simt_n64_k172_f32 sm_80 regs={{[0-9]+}} smem=17408 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_mma_n65_k13_bf16_biasf32 sm_80 regs={{[0-9]+}} smem=20480 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_mma_n128_k896_bf16_biasbf16 sm_90 regs={{[0-9]+}} smem=20480 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_mma_n32000_k4096_f16 sm_90 regs={{[0-9]+}} smem=20480 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_simt_n64_k172_f32 sm_90 regs={{[0-9]+}} smem=17408 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel gemm_mma_n65_k13_bf16_biasf32 sm_90 regs={{[0-9]+}} smem=20480 spill_stores=0 spill_loads=0
