// llm.rms_norm / llm.layer_norm → one CTA per row of the hidden size D: each
// thread keeps its 128-bit vectors of the row in registers, block reductions
// (shfl.sync.bfly + one partial per warp in shared memory) give Σx² (RMS) or
// Σx then Σ(x − mean)² (layer norm, two passes like the CPU lowering), and
// 1/sqrt is sqrt.rn + rcp.rn as on the CPU (no rsqrt.approx). The block is
// D/4 rounded up to warps, at most 1024 (wider rows: several vectors per
// thread); decode's static row count is cast to the shared kernel's dynamic
// one. Gemma's weight offset is an f32 argument after eps, added to the
// widened weight; Qwen3's per-head norm (B, T, H, Dh) runs B·T·H rows of Dh.
// Every kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS
// Rows wider than the registers hold are an error that says so.
// RUN: not llmc --compile-to=kernels --target=cuda:sm_80 %S/Inputs/norm-too-wide.mlir 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: error: 'llm.rms_norm' op hidden size 40000 exceeds the CUDA norm kernel's limit of 32768 elements

module attributes {llm.model = "t"} {
  func.func private @qwen2(%x: tensor<1x?x896xf32>, %w: tensor<896xbf16>) -> tensor<1x?x896xf32> {
    %0 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64} : tensor<1x?x896xf32>, tensor<896xbf16> -> tensor<1x?x896xf32>
    return %0 : tensor<1x?x896xf32>
  }
  func.func private @llama3_decode(%x: tensor<1x1x4096xf32>, %w: tensor<4096xbf16>) -> tensor<1x1x4096xf32> {
    %0 = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x1x4096xf32>, tensor<4096xbf16> -> tensor<1x1x4096xf32>
    return %0 : tensor<1x1x4096xf32>
  }
  func.func private @wide(%x: tensor<1x?x8192xf32>, %w: tensor<8192xf16>) -> tensor<1x?x8192xf32> {
    %0 = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x8192xf32>, tensor<8192xf16> -> tensor<1x?x8192xf32>
    return %0 : tensor<1x?x8192xf32>
  }
  func.func private @layer_bias(%x: tensor<2x?x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x?x64xf32> {
    %0 = llm.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<2x?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x?x64xf32>
    return %0 : tensor<2x?x64xf32>
  }
  func.func private @layer_odd(%x: tensor<3x1000xf32>, %w: tensor<1000xbf16>) -> tensor<3x1000xf32> {
    %0 = llm.layer_norm %x, %w {eps = 1.0e-05 : f64} : tensor<3x1000xf32>, tensor<1000xbf16> -> tensor<3x1000xf32>
    return %0 : tensor<3x1000xf32>
  }
  func.func private @gemma(%x: tensor<1x?x2304xf32>, %w: tensor<2304xbf16>) -> tensor<1x?x2304xf32> {
    %0 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64} : tensor<1x?x2304xf32>, tensor<2304xbf16> -> tensor<1x?x2304xf32>
    return %0 : tensor<1x?x2304xf32>
  }
  func.func private @qwen3_k_prefill(%x: tensor<1x?x8x128xf32>, %w: tensor<128xbf16>) -> tensor<1x?x8x128xf32> {
    %0 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64} : tensor<1x?x8x128xf32>, tensor<128xbf16> -> tensor<1x?x8x128xf32>
    return %0 : tensor<1x?x8x128xf32>
  }
  func.func private @qwen3_q_decode(%x: tensor<1x1x32x128xf32>, %w: tensor<128xbf16>) -> tensor<1x1x32x128xf32> {
    %0 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64} : tensor<1x1x32x128xf32>, tensor<128xbf16> -> tensor<1x1x32x128xf32>
    return %0 : tensor<1x1x32x128xf32>
  }
}

// Host side: rows = every dimension but the last, eps as an f32 argument.
// KERNELS-LABEL: func.func private @qwen2
// KERNELS-DAG: %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// KERNELS-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<1x?x896xf32> into memref<?x896xf32>
// KERNELS-DAG: %[[OUT:.*]] = memref.collapse_shape %alloc {{\[\[}}0, 1], [2]] : memref<1x?x896xf32> into memref<?x896xf32>
// KERNELS: %[[ROWS:.*]] = memref.dim %[[X]], %c0
// KERNELS: gpu.launch_func @llmc_kernels::@rms_norm_d896_f32_wbf16 blocks in (%[[ROWS]], %c1, %c1) threads in (%c224, %c1, %c1) args(%[[X]] : memref<?x896xf32>, %arg1 : memref<896xbf16>, %[[OUT]] : memref<?x896xf32>, %[[EPS]] : f32)
// KERNELS-LABEL: func.func private @llama3_decode
// KERNELS: %[[DX:.*]] = memref.cast %{{.*}} : memref<1x4096xf32> to memref<?x4096xf32>
// KERNELS: %[[DOUT:.*]] = memref.cast %{{.*}} : memref<1x4096xf32> to memref<?x4096xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@rms_norm_d4096_f32_wbf16 blocks in (%c1, %c1, %c1) threads in (%c1024, %c1, %c1) args(%[[DX]] : memref<?x4096xf32>, %arg1 : memref<4096xbf16>, %[[DOUT]] : memref<?x4096xf32>, %{{.*}} : f32)
// KERNELS-LABEL: func.func private @wide
// KERNELS: gpu.launch_func @llmc_kernels::@rms_norm_d8192_f32_wf16 blocks in (%{{.*}}, %c1, %c1) threads in (%c1024, %c1, %c1)
// KERNELS-LABEL: func.func private @layer_bias
// KERNELS: gpu.launch_func @llmc_kernels::@layer_norm_d64_f32_wf32_bf32 blocks in (%{{.*}}, %c1, %c1) threads in (%c32, %c1, %c1) args(%{{.*}} : memref<?x64xf32>, %arg1 : memref<64xf32>, %arg2 : memref<64xf32>, %{{.*}} : memref<?x64xf32>, %{{.*}} : f32)
// KERNELS-LABEL: func.func private @layer_odd
// KERNELS: gpu.launch_func @llmc_kernels::@layer_norm_d1000_f32_wbf16 blocks in (%c3, %c1, %c1) threads in (%c256, %c1, %c1)
// KERNELS-LABEL: func.func private @gemma
// KERNELS-DAG: %[[GEPS:.*]] = arith.constant 9.99999997E-7 : f32
// KERNELS-DAG: %[[OFFSET:.*]] = arith.constant 1.000000e+00 : f32
// KERNELS: gpu.launch_func @llmc_kernels::@rms_norm_d2304_f32_wbf16_offset blocks in (%{{.*}}, %c1, %c1) threads in (%c576, %c1, %c1) args(%{{.*}} : memref<?x2304xf32>, %arg1 : memref<2304xbf16>, %{{.*}} : memref<?x2304xf32>, %[[GEPS]] : f32, %[[OFFSET]] : f32)
// Per-head rows: (B, T, H) collapsed, one CTA of a warp per head.
// KERNELS-LABEL: func.func private @qwen3_k_prefill
// KERNELS: %[[HX:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : memref<1x?x8x128xf32> into memref<?x128xf32>
// KERNELS: %[[HROWS:.*]] = memref.dim %[[HX]], %c0
// KERNELS: gpu.launch_func @llmc_kernels::@rms_norm_d128_f32_wbf16 blocks in (%[[HROWS]], %c1, %c1) threads in (%c32, %c1, %c1) args(%[[HX]] : memref<?x128xf32>, %arg1 : memref<128xbf16>
// KERNELS-LABEL: func.func private @qwen3_q_decode
// KERNELS: memref.cast %{{.*}} : memref<32x128xf32> to memref<?x128xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@rms_norm_d128_f32_wbf16 blocks in (%c32, %c1, %c1) threads in (%c32, %c1, %c1)

// Kernels: one scratch f32 per warp, the block size as known_block_size
// (.maxntid: ptxas budgets registers for it).
// KERNELS-LABEL: gpu.func @rms_norm_d896_f32_wbf16(
// KERNELS-SAME: %{{.*}}: memref<?x896xf32>, %{{.*}}: memref<896xbf16>, %{{.*}}: memref<?x896xf32>, %[[KEPS:.*]]: f32) workgroup(%[[SCRATCH:.*]] : memref<7xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 224, 1, 1>}
// KERNELS: %[[ROW:.*]] = gpu.block_id x
// KERNELS: %[[TID:.*]] = gpu.thread_id x
// KERNELS: %[[COL:.*]] = arith.muli %[[TID]], %c4 : index
// KERNELS: %[[V:.*]] = vector.load %arg0[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<?x896xf32>, vector<4xf32>
// KERNELS: arith.mulf %[[V]], %[[V]] : vector<4xf32>
// KERNELS: gpu.shuffle xor
// KERNELS: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<7xf32, #gpu.address_space<workgroup>>
// KERNELS: gpu.barrier
// KERNELS: %[[MEAN:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : f32
// KERNELS: %[[VAR:.*]] = arith.addf %[[MEAN]], %[[KEPS]] : f32
// KERNELS: %[[ROOT:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[VAR]]) : (f32) -> f32
// KERNELS: %[[SCALE:.*]] = arith.divf %cst{{.*}}, %[[ROOT]] : f32
// KERNELS: vector.load %arg1[%[[COL]]] {alignment = 8 : i64} : memref<896xbf16>, vector<4xbf16>
// KERNELS: vector.store %{{.*}}, %arg2[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<?x896xf32>, vector<4xf32>
// Two vectors per thread for D = 8192; the second row pass reuses them.
// KERNELS-LABEL: gpu.func @rms_norm_d8192_f32_wf16
// KERNELS-COUNT-2: vector.load %arg0
// KERNELS-NOT: vector.load %arg0
// KERNELS: gpu.return
// Layer norm: mean, then the squared deviations, then the bias.
// KERNELS-LABEL: gpu.func @layer_norm_d64_f32_wf32_bf32
// KERNELS: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c16 : index
// KERNELS: scf.if %[[IN]] -> (vector<4xf32>)
// KERNELS: arith.subf
// KERNELS: scf.if %[[IN]] {
// KERNELS: vector.load %arg2
// KERNELS: arith.addf %{{.*}} : vector<4xf32>
// KERNELS: vector.store
// D = 1000: 250 vectors on 256 threads, the last 6 idle.
// KERNELS-LABEL: gpu.func @layer_norm_d1000_f32_wbf16
// KERNELS: arith.cmpi ult, %{{.*}}, %c250 : index
// The offset is added to the widened weight before the product.
// KERNELS-LABEL: gpu.func @rms_norm_d2304_f32_wbf16_offset(
// KERNELS-SAME: memref<?x2304xf32>, %[[OEPS:[a-z0-9]+]]: f32, %[[OOFF:[a-z0-9]+]]: f32)
// KERNELS: arith.addf %{{.*}}, %[[OEPS]] : f32
// KERNELS: %[[OW:.*]] = arith.extf %{{.*}} : vector<4xbf16> to vector<4xf32>
// KERNELS: %[[OSPLAT:.*]] = vector.broadcast %[[OOFF]] : f32 to vector<4xf32>
// KERNELS: %[[WO:.*]] = arith.addf %[[OW]], %[[OSPLAT]] : vector<4xf32>
// KERNELS: arith.mulf %{{.*}}, %[[WO]] : vector<4xf32>

// The PTX has 128-bit loads and stores, butterfly shuffles and a correctly
// rounded 1/sqrt.
// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .visible .entry rms_norm_d896_f32_wbf16(
// PTX: .maxntid 224, 1, 1
// PTX: .shared .align 128 .b8 __wg_rms_norm_d896_f32_wbf16_0[28];
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX: bar.sync
// PTX: sqrt.rn.f32
// PTX: rcp.rn.f32
// PTX: ld.global.v4.b16
// PTX: st.global.v4.b32
// PTX-NOT: rsqrt.approx
// PTX-LABEL: // ---- llmc: PTX for sm_90

// PTXAS-DAG: kernel rms_norm_d896_f32_wbf16 sm_80 regs={{[0-9]+}} smem=28 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d4096_f32_wbf16 sm_80 regs={{[0-9]+}} smem=128 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d8192_f32_wf16 sm_80 regs={{[0-9]+}} smem=128 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel layer_norm_d64_f32_wf32_bf32 sm_80 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel layer_norm_d1000_f32_wbf16 sm_80 regs={{[0-9]+}} smem=32 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d896_f32_wbf16 sm_90 regs={{[0-9]+}} smem=28 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d4096_f32_wbf16 sm_90 regs={{[0-9]+}} smem=128 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d8192_f32_wf16 sm_90 regs={{[0-9]+}} smem=128 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel layer_norm_d64_f32_wf32_bf32 sm_90 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel layer_norm_d1000_f32_wbf16 sm_90 regs={{[0-9]+}} smem=32 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d2304_f32_wbf16_offset sm_80 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d128_f32_wbf16 sm_80 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d2304_f32_wbf16_offset sm_90 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rms_norm_d128_f32_wbf16 sm_90 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
