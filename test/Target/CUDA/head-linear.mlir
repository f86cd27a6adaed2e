// llm.head_linear (multi-head latent attention's absorbed up-projections)
// → per-head GEMV kernels over x viewed as (B·T, H·K) rows and the result
// as (B·T, H·N), the rows dynamic so that prefill and decode share a kernel
// (grid y or z: the rows). Without transpose_weight (W_UV: each head's N
// rows K-contiguous) the GEMV's warps, one weight row each, head r / N's K
// elements of x at column (r / N)·K; with transpose_weight (W_UKᵀ: each
// head's K rows N-contiguous) a column kernel, grid (column blocks, H, rows):
// lane l on columns l·vector.., 8 warps splitting K, partial sums added
// through shared memory. Shapes: the tiny deepseek_v2 of
// test/e2e/Inputs/hf_family_layouts.py (f32, 4 heads, K 16 / latent 32) and
// DeepSeek-V2-Lite's (bf16 / f16, 16 heads, qk_nope 128, kv_lora_rank 512,
// v_head_dim 128). Every kernel assembles for sm_80 and sm_90 without
// spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  func.func private @tiny_uk(%x: tensor<1x1x4x16xf32>, %w: tensor<64x32xf32>) -> tensor<1x1x4x32xf32> {
    %0 = llm.head_linear %x, %w {transpose_weight} : tensor<1x1x4x16xf32>, tensor<64x32xf32> -> tensor<1x1x4x32xf32>
    return %0 : tensor<1x1x4x32xf32>
  }
  func.func private @tiny_uv(%x: tensor<1x?x4x32xf32>, %w: tensor<64x32xf32>) -> tensor<1x?x4x16xf32> {
    %0 = llm.head_linear %x, %w : tensor<1x?x4x32xf32>, tensor<64x32xf32> -> tensor<1x?x4x16xf32>
    return %0 : tensor<1x?x4x16xf32>
  }
  func.func private @lite_uk(%x: tensor<1x?x16x128xf32>, %w: tensor<2048x512xbf16>) -> tensor<1x?x16x512xf32> {
    %0 = llm.head_linear %x, %w {transpose_weight} : tensor<1x?x16x128xf32>, tensor<2048x512xbf16> -> tensor<1x?x16x512xf32>
    return %0 : tensor<1x?x16x512xf32>
  }
  func.func private @lite_uv(%x: tensor<1x1x16x512xf32>, %w: tensor<2048x512xf16>) -> tensor<1x1x16x128xf32> {
    %0 = llm.head_linear %x, %w : tensor<1x1x16x512xf32>, tensor<2048x512xf16> -> tensor<1x1x16x128xf32>
    return %0 : tensor<1x1x16x128xf32>
  }
}

// Decode W_UKᵀ: x's one row as (?, H·K), grid (⌈32 / 128⌉, 4 heads, 1 row).
// KERNELS-LABEL: func.func private @tiny_uk
// KERNELS: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : memref<1x1x4x16xf32> into memref<1x64xf32>
// KERNELS: %[[XR:.*]] = memref.cast %[[X]] : memref<1x64xf32> to memref<?x64xf32>
// KERNELS: %[[Y:.*]] = memref.cast %{{.*}} : memref<1x128xf32> to memref<?x128xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@head_gemv_t_h4_k16_n32_f32 blocks in (%c1, %c4, %c1) threads in (%c256, %c1, %c1) args(%[[XR]] : memref<?x64xf32>, %arg1 : memref<64x32xf32>, %[[Y]] : memref<?x128xf32>)
// Prefill W_UV: one weight row per warp (64 rows: 8 CTAs of 8 warps), grid y the rows of x.
// KERNELS-LABEL: func.func private @tiny_uv
// KERNELS: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : memref<1x?x4x32xf32> into memref<?x128xf32>
// KERNELS: %[[ROWS:.*]] = memref.dim %[[X]], %c0 : memref<?x128xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@head_gemv_h4_n16_k32_f32 blocks in (%c8, %[[ROWS]], %c1) threads in (%c256, %c1, %c1) args(%[[X]] : memref<?x128xf32>, %arg1 : memref<64x32xf32>, %{{.*}} : memref<?x64xf32>)
// DeepSeek-V2-Lite: 512 bf16 columns are 2 blocks of 32 lanes × 8; 2048 f16 rows 256 CTAs.
// KERNELS-LABEL: func.func private @lite_uk
// KERNELS: gpu.launch_func @llmc_kernels::@head_gemv_t_h16_k128_n512_bf16 blocks in (%c2, %c16, %{{.*}}) threads in (%c256, %c1, %c1)
// KERNELS-LABEL: func.func private @lite_uv
// KERNELS: gpu.launch_func @llmc_kernels::@head_gemv_h16_n128_k512_f16 blocks in (%c256, %c1, %c1) threads in (%c256, %c1, %c1)

// The transposed kernel: lane columns clamped to the last vector (N − 4 = 28), warp w on rows k = w, w + 8, ...
// of head blockIdx.y, x's element of row blockIdx.z broadcast against a 16-byte weight vector; the warps'
// partials through shared memory (8 × 128 f32), one barrier, thread t adds column t and stores it below N.
// KERNELS-LABEL: gpu.func @head_gemv_t_h4_k16_n32_f32(%arg0: memref<?x64xf32>, %arg1: memref<64x32xf32>, %arg2: memref<?x128xf32>) workgroup(%arg3 : memref<8x128xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// KERNELS: %[[HEAD:.*]] = gpu.block_id y
// KERNELS: %[[ROW:.*]] = gpu.block_id z
// KERNELS: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// KERNELS: %[[COL:.*]] = arith.minui %{{.*}}, %c28 : index
// KERNELS: %[[FIRST:.*]] = arith.muli %[[HEAD]], %c16 : index
// KERNELS: scf.for %[[K:.*]] = %[[WARP]] to %c16 step %c8 iter_args(%{{.*}} = %cst) -> (vector<4xf32>)
// KERNELS: %[[WROW:.*]] = arith.addi %[[FIRST]], %[[K]] : index
// KERNELS: %[[XV:.*]] = memref.load %arg0[%[[ROW]], %[[WROW]]] : memref<?x64xf32>
// KERNELS: %[[WV:.*]] = vector.load %arg1[%[[WROW]], %[[COL]]] {alignment = 16 : i64} : memref<64x32xf32>, vector<4xf32>
// KERNELS: %[[SPLAT:.*]] = vector.broadcast %[[XV]] : f32 to vector<4xf32>
// KERNELS: vector.fma %[[WV]], %[[SPLAT]], %{{.*}} : vector<4xf32>
// KERNELS: memref.store %{{.*}}, %arg3[%[[WARP]], %{{.*}}] : memref<8x128xf32, #gpu.address_space<workgroup>>
// KERNELS: gpu.barrier
// KERNELS: arith.cmpi ult, %{{.*}}, %c32 : index
// KERNELS: memref.load %arg3[%c7, %thread_id_x]
// KERNELS: memref.store %{{.*}}, %arg2[%[[ROW]], %{{.*}}] : memref<?x128xf32>
// The per-head GEMV: warp r (weight row r) reads x's row blockIdx.y from column (r / 16) · 32.
// KERNELS-LABEL: gpu.func @head_gemv_h4_n16_k32_f32(%arg0: memref<?x128xf32>, %arg1: memref<64x32xf32>, %arg2: memref<?x64xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 3 : i32}
// KERNELS: %[[R:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// KERNELS: %[[M:.*]] = gpu.block_id y
// KERNELS: arith.cmpi ult, %[[R]], %c64 : index
// KERNELS: %[[H:.*]] = arith.divui %[[R]], %c16 : index
// KERNELS: %[[XCOL:.*]] = arith.muli %[[H]], %c32 : index
// KERNELS: %[[C:.*]] = arith.addi %{{.*}}, %[[XCOL]] : index
// KERNELS: vector.load %arg0[%[[M]], %[[C]]] {alignment = 16 : i64} : memref<?x128xf32>, vector<4xf32>
// KERNELS: vector.load %arg1[%[[R]], %{{.*}}] {alignment = 16 : i64} : memref<64x32xf32>, vector<4xf32>
// KERNELS: gpu.shuffle xor
// KERNELS: memref.store %{{.*}}, %arg2[%[[M]], %[[R]]] : memref<?x64xf32>

// PTX-LABEL: .visible .entry head_gemv_t_h4_k16_n32_f32(
// PTX: .maxntid 256, 1, 1
// PTX: ld.global.v4.b32
// PTX: fma.rn.f32
// PTX: st.shared.v4.b32
// PTX: bar.sync 0;
// PTX: ld.shared.b32
// PTX-LABEL: .visible .entry head_gemv_h4_n16_k32_f32(
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX-LABEL: .visible .entry head_gemv_t_h16_k128_n512_bf16(
// PTX: ld.global.v4.b32
// PTX: bar.sync 0;
// PTX-LABEL: .visible .entry head_gemv_h16_n128_k512_f16(
// PTX: ld.global.v4.b32

// PTXAS-DAG: kernel head_gemv_t_h4_k16_n32_f32 sm_80 regs={{[0-9]+}} smem=4096 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel head_gemv_t_h4_k16_n32_f32 sm_90 regs={{[0-9]+}} smem=4096 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel head_gemv_h4_n16_k32_f32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel head_gemv_h4_n16_k32_f32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel head_gemv_t_h16_k128_n512_bf16 sm_80 regs={{[0-9]+}} smem=8192 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel head_gemv_t_h16_k128_n512_bf16 sm_90 regs={{[0-9]+}} smem=8192 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel head_gemv_h16_n128_k512_f16 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel head_gemv_h16_n128_k512_f16 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
