// Multi-head latent attention at DeepSeek-V2-Lite's width: 16 query heads over one cached head of
// kv_lora_rank 512 + qk_rope_head_dim 64 = 576 (bf16 cache; the values are the keys, one buffer). 16 lanes
// share a head row, 36 f32 each: the flash kernel's wide tiling keeps one row per lane group, one key per
// online-softmax update and one block per SM (.minnctapersm 1: up to 255 registers; two rows or four keys
// spilled 920 bytes at 128), 256 threads as 16 rows = 8 heads × 2 positions, K/V tiles of 4 keys (18 KiB
// of f32); the split-K kernel one head per block. Both assemble for sm_80 and sm_90 without spills.
// Numerics: simulated-families.test's deepseek_v2_lite_latent (the same width through a whole model).
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

module attributes {llm.model = "t"} {
  func.func private @lite_prefill(%q: tensor<1x?x16x576xf32>, %kv: tensor<1x4096x1x576xbf16>, %pos: tensor<1x?xi32>) -> tensor<1x?x16x576xf32> {
    %0 = llm.attention %q, %kv, %kv, %pos {causal, num_heads = 16 : i64, num_kv_heads = 1 : i64} : tensor<1x?x16x576xf32>, tensor<1x4096x1x576xbf16>, tensor<1x4096x1x576xbf16>, tensor<1x?xi32> -> tensor<1x?x16x576xf32>
    return %0 : tensor<1x?x16x576xf32>
  }
  func.func private @lite_decode(%q: tensor<1x1x16x576xf32>, %kv: tensor<1x4096x1x576xbf16>, %pos: tensor<1x1xi32>) -> tensor<1x1x16x576xf32> {
    %0 = llm.attention %q, %kv, %kv, %pos {causal, num_heads = 16 : i64, num_kv_heads = 1 : i64} : tensor<1x1x16x576xf32>, tensor<1x4096x1x576xbf16>, tensor<1x4096x1x576xbf16>, tensor<1x1xi32> -> tensor<1x1x16x576xf32>
    return %0 : tensor<1x1x16x576xf32>
  }
}

// KERNELS-LABEL: func.func private @lite_prefill
// KERNELS: %[[T:.*]] = memref.dim %arg0, %c1 : memref<1x?x16x576xf32>
// KERNELS: %[[T1:.*]] = arith.addi %[[T]], %c1 : index
// KERNELS: %[[TILES:.*]] = arith.divui %[[T1]], %c2 : index
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 blocks in (%[[TILES]], %c2, %c1) threads in (%c256, %c1, %c1) args(%arg0 : memref<1x?x16x576xf32>, %arg1 : memref<1x4096x1x576xbf16>, %arg1 : memref<1x4096x1x576xbf16>,
// KERNELS-LABEL: func.func private @lite_decode
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 blocks in (%c32, %c16, %c1) threads in (%c128, %c1, %c1)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 blocks in (%c16, %c1, %c1) threads in (%c576, %c1, %c1)
// KERNELS-LABEL: gpu.func @attention_prefill_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32(
// KERNELS-SAME: workgroup(%{{.*}} : memref<2304xf32, 3> {llvm.align = 128 : i64}, %{{.*}} : memref<2304xf32, 3> {llvm.align = 128 : i64})
// KERNELS-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32}
// One key per update: the key loop steps by 1 over the tile's 4, carrying the max, the sum and 9 chunks.
// KERNELS: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (f32, f32, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)

// PTXAS-DAG: kernel attention_prefill_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=18432 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=18432 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=9472 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=9472 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d576_h16_kv1_s4096_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
