// llm.attention with one query row (decode) → split-K kernels on a grid
// fixed by the capacity S (ceil(S / 128) splits, so a decode step replays as
// a CUDA graph at any position): each block scans its chunk of keys up to
// the position read on the device and writes partial (max, sum, acc) per
// head; the combine kernel merges the splits that hold visible keys.
// Gemma-2's softcap: scale / cap and the cap as arguments, a tanh per score.
// Every kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

!cache = !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 8192, element_type = bf16>
!window_cache = !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 32768, element_type = f32>
!gemma2_cache = !llm.kv_cache<layers = 26, batch = 1, kv_heads = 4, head_dim = 256, capacity = 8192, element_type = bf16>

module attributes {llm.model = "t"} {
  // stories260K: 512 positions → 4 splits.
  func.func private @stories(%q: tensor<1x1x8x8xf32>, %k: tensor<1x512x4x8xf32>, %v: tensor<1x512x4x8xf32>, %pos: tensor<1x1xi32>) -> tensor<1x1x8x8xf32> {
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64} : tensor<1x1x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x1xi32> -> tensor<1x1x8x8xf32>
    return %0 : tensor<1x1x8x8xf32>
  }
  // LLaMA-3-8B, bf16 cache views: 8192 positions → 64 splits.
  func.func private @llama3(%q: tensor<1x1x32x128xf32>, %cache: !cache, %layer: index, %pos: tensor<1x1xi32>) -> tensor<1x1x32x128xf32> {
    %k, %v = llm.kv_view %cache[%layer] : !cache -> tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 32 : i64, num_kv_heads = 8 : i64} : tensor<1x1x32x128xf32>, tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>, tensor<1x1xi32> -> tensor<1x1x32x128xf32>
    return %0 : tensor<1x1x32x128xf32>
  }
  // Mistral: sliding window of 4096 over 32768 positions.
  func.func private @mistral(%q: tensor<1x1x32x128xf32>, %cache: !window_cache, %pos: tensor<1x1xi32>) -> tensor<1x1x32x128xf32> {
    %k, %v = llm.kv_view %cache[0] : !window_cache -> tensor<1x32768x8x128xf32>, tensor<1x32768x8x128xf32>
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 32 : i64, num_kv_heads = 8 : i64, sliding_window = 4096 : i64} : tensor<1x1x32x128xf32>, tensor<1x32768x8x128xf32>, tensor<1x32768x8x128xf32>, tensor<1x1xi32> -> tensor<1x1x32x128xf32>
    return %0 : tensor<1x1x32x128xf32>
  }
  // No positions: the query sits at S − 1.
  func.func private @implicit(%q: tensor<1x1x8x128xf32>, %k: tensor<1x300x8x128xf32>, %v: tensor<1x300x8x128xf32>) -> tensor<1x1x8x128xf32> {
    %0 = llm.attention %q, %k, %v {causal, num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x1x8x128xf32>, tensor<1x300x8x128xf32>, tensor<1x300x8x128xf32> -> tensor<1x1x8x128xf32>
    return %0 : tensor<1x1x8x128xf32>
  }
  // A dynamic S has no fixed split grid: the flash kernel serves it.
  func.func private @dynamic_keys(%q: tensor<1x1x8x128xf32>, %k: tensor<1x?x8x128xf32>, %v: tensor<1x?x8x128xf32>) -> tensor<1x1x8x128xf32> {
    %0 = llm.attention %q, %k, %v {causal, num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x1x8x128xf32>, tensor<1x?x8x128xf32>, tensor<1x?x8x128xf32> -> tensor<1x1x8x128xf32>
    return %0 : tensor<1x1x8x128xf32>
  }
  // Gemma-2-2B's global layer: head_dim 256, softcap 50.
  func.func private @gemma2(%q: tensor<1x1x8x256xf32>, %cache: !gemma2_cache, %layer: index, %pos: tensor<1x1xi32>) -> tensor<1x1x8x256xf32> {
    %k, %v = llm.kv_view %cache[%layer] : !gemma2_cache -> tensor<1x8192x4x256xbf16>, tensor<1x8192x4x256xbf16>
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64, scale = 0.0625 : f64, softcap = 50.0 : f64} : tensor<1x1x8x256xf32>, tensor<1x8192x4x256xbf16>, tensor<1x8192x4x256xbf16>, tensor<1x1xi32> -> tensor<1x1x8x256xf32>
    return %0 : tensor<1x1x8x256xf32>
  }
}

// Launches: partial buffers (B, H, splits[, head_dim]) in f32, the split
// kernel on (splits, heads / heads per block, batch) × 128 threads, the
// combine kernel on (heads, batch) × head_dim rounded up to a warp.
// KERNELS-LABEL: func.func private @stories
// KERNELS: %[[M:.*]] = memref.alloc() : memref<1x8x4xf32>
// KERNELS: %[[L:.*]] = memref.alloc() : memref<1x8x4xf32>
// KERNELS: %[[ACC:.*]] = memref.alloc() : memref<1x8x4x8xf32>
// KERNELS: %[[OUT:.*]] = memref.alloc() : memref<1x1x8x8xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 blocks in (%c4, %c4, %c1) threads in (%c128, %c1, %c1) args(%arg0 : memref<1x1x8x8xf32>, %arg1 : memref<1x512x4x8xf32>, %arg2 : memref<1x512x4x8xf32>, %arg3 : memref<1x1xi32>, %[[M]] : memref<1x8x4xf32>, %[[L]] : memref<1x8x4xf32>, %[[ACC]] : memref<1x8x4x8xf32>, %{{.*}} : f32)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 blocks in (%c8, %c1, %c1) threads in (%c32, %c1, %c1) args(%arg3 : memref<1x1xi32>, %[[M]] : memref<1x8x4xf32>, %[[L]] : memref<1x8x4xf32>, %[[ACC]] : memref<1x8x4x8xf32>, %[[OUT]] : memref<1x1x8x8xf32>)
// KERNELS: return %[[OUT]]
// KERNELS-LABEL: func.func private @llama3
// KERNELS: %[[K:.*]] = memref.view %arg1{{.*}} to memref<1x8192x8x128xbf16>
// KERNELS: %[[V:.*]] = memref.view %arg1{{.*}} to memref<1x8192x8x128xbf16>
// KERNELS: memref.alloc() : memref<1x32x64x128xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 blocks in (%c64, %c8, %c1) threads in (%c128, %c1, %c1) args(%arg0 : memref<1x1x32x128xf32>, %[[K]] : memref<1x8192x8x128xbf16>, %[[V]] : memref<1x8192x8x128xbf16>, %arg3 : memref<1x1xi32>
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 blocks in (%c32, %c1, %c1) threads in (%c128, %c1, %c1)
// KERNELS-LABEL: func.func private @mistral
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 blocks in (%c256, %c8, %c1) threads in (%c128, %c1, %c1)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 blocks in (%c32, %c1, %c1) threads in (%c128, %c1, %c1)
// KERNELS-LABEL: func.func private @implicit
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d128_h8_kv8_s300_b1_f32_f32_causal_nopos blocks in (%c3, %c8, %c1) threads in (%c128, %c1, %c1) args(%arg0 : memref<1x1x8x128xf32>, %arg1 : memref<1x300x8x128xf32>, %arg2 : memref<1x300x8x128xf32>, %{{.*}} : memref<1x8x3xf32>, %{{.*}} : memref<1x8x3xf32>, %{{.*}} : memref<1x8x3x128xf32>, %{{.*}} : f32)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d128_h8_kv8_s300_b1_f32_f32_causal_nopos blocks in (%c8, %c1, %c1) threads in (%c128, %c1, %c1) args(%{{.*}} : memref<1x8x3xf32>,
// KERNELS-LABEL: func.func private @dynamic_keys
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d128_h8_kv8_sdyn_b1_f32_f32_causal_nopos

// KERNELS-LABEL: func.func private @gemma2
// KERNELS-DAG: %[[CAP:.*]] = arith.constant 5.000000e+01 : f32
// KERNELS-DAG: %[[SCALE:.*]] = arith.constant 1.250000e-03 : f32
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_posi32 {{.*}} %[[SCALE]] : f32, %[[CAP]] : f32)
// The combine kernel reads only partials: the one without a softcap.
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d256_h8_kv4_s8192_b1_f32_bf16_causal_posi32 blocks in (%c8, %c1, %c1)
// The split kernel: the keys [max(begin, split · 128), min(end, split · 128
// + 128)) of the position read on the device; an empty chunk skips
// everything (the combine kernel never reads its partials). 16 lanes per
// bf16 key (one 16-byte load each), butterfly over the 16, online softmax
// per lane group, then the groups merged with shuffles (offset 16) and the
// warps through shared memory.
// KERNELS-LABEL: gpu.func @attention_decode_d8_h8_kv4_s512_b1_f32_f32_causal_posi32
// KERNELS-SAME: workgroup(%{{.*}} : memref<8xf32, 3> {llvm.align = 128 : i64}, %{{.*}} : memref<8xf32, 3> {llvm.align = 128 : i64}, %{{.*}} : memref<64xf32, 3> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// KERNELS-LABEL: gpu.func @attention_decode_combine_d8_h8_kv4_s512_b1_f32_f32_causal_posi32
// KERNELS-SAME: kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// KERNELS-LABEL: gpu.func @attention_decode_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32
// KERNELS-SAME: workgroup(%[[WM:.*]] : memref<16xf32, 3> {llvm.align = 128 : i64}, %[[WL:.*]] : memref<16xf32, 3> {llvm.align = 128 : i64}, %[[WACC:.*]] : memref<2048xf32, 3> {llvm.align = 128 : i64})
// KERNELS: %[[SPLIT:.*]] = gpu.block_id x
// KERNELS: %[[P:.*]] = memref.load %arg3[%{{.*}}, %c0] : memref<1x1xi32>
// KERNELS: %[[P1:.*]] = arith.index_cast %[[P]] : i32 to index
// KERNELS: %[[AFTER:.*]] = arith.addi %[[P1]], %c1 : index
// KERNELS: %[[CLAMPED:.*]] = arith.minsi %[[AFTER]], %c8192 : index
// KERNELS: %[[END:.*]] = arith.maxsi %[[CLAMPED]], %c0 : index
// KERNELS: %[[FIRST:.*]] = arith.muli %[[SPLIT]], %c128 : index
// KERNELS: %[[LAST:.*]] = arith.addi %[[FIRST]], %c128 : index
// KERNELS: %[[LO:.*]] = arith.maxsi %[[FIRST]], %c0 : index
// KERNELS: %[[HI:.*]] = arith.minsi %[[END]], %[[LAST]] : index
// KERNELS: %[[BUSY:.*]] = arith.cmpi slt, %[[LO]], %[[HI]] : index
// KERNELS: scf.if %[[BUSY]] {
// KERNELS: scf.for %{{.*}} = %[[LO]] to %[[HI]] step %c32
// KERNELS: vector.load %arg1{{.*}} : memref<1x8192x8x128xbf16>, vector<8xbf16>
// KERNELS: vector.load %arg2{{.*}} : memref<1x8192x8x128xbf16>, vector<8xbf16>
// KERNELS: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// KERNELS: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// KERNELS: math.exp
// KERNELS: scf.yield
// KERNELS: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// KERNELS: vector.store %{{.*}}, %[[WACC]]
// KERNELS: memref.store %{{.*}}, %[[WM]]
// KERNELS: gpu.barrier
// KERNELS: memref.store %{{.*}}, %arg6[%{{.*}}, %{{.*}}, %[[SPLIT]], %{{.*}}] : memref<1x32x64x128xf32>
// KERNELS: memref.store %{{.*}}, %arg4[%{{.*}}, %{{.*}}, %[[SPLIT]]] : memref<1x32x64xf32>
// KERNELS: memref.store %{{.*}}, %arg5[%{{.*}}, %{{.*}}, %[[SPLIT]]] : memref<1x32x64xf32>
// The combine kernel: splits [0, ceil(end / 128)) merged with max-rescaling,
// acc / sum (0 for a row without visible keys, NaN for a NaN sum).
// KERNELS-LABEL: gpu.func @attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32
// KERNELS: %[[ROUNDED:.*]] = arith.addi %{{.*}}, %c127 : index
// KERNELS: %[[SPLITS:.*]] = arith.divui %[[ROUNDED]], %c128 : index
// KERNELS: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(%{{.*}} = %cst_0, %{{.*}} = %cst, %{{.*}} = %cst) -> (f32, f32, f32)
// KERNELS: arith.maximumf
// KERNELS: math.exp
// KERNELS: math.fma
// KERNELS: arith.cmpf ugt
// KERNELS: arith.divf
// KERNELS: memref.store %{{.*}}, %arg4[%{{.*}}, %c0, %{{.*}}, %{{.*}}] : memref<1x1x32x128xf32>
// With a window the first split is begin / 128.
// KERNELS-LABEL: gpu.func @attention_decode_combine_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32
// KERNELS: arith.subi %{{.*}}, %c4095 : index
// KERNELS: arith.divui %{{.*}}, %c128 : index
// KERNELS-LABEL: gpu.func @attention_decode_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_posi32(
// KERNELS-SAME: %[[KSCALE:arg[0-9]+]]: f32, %[[KCAP:arg[0-9]+]]: f32)
// KERNELS: %[[Z:.*]] = arith.mulf %{{.*}}, %[[KSCALE]] : f32
// KERNELS-NEXT: %[[T:.*]] = math.tanh %[[Z]] : f32
// KERNELS-NEXT: %[[CAPPED:.*]] = arith.mulf %[[T]], %[[KCAP]] : f32
// KERNELS-NEXT: arith.select %{{.*}}, %[[CAPPED]], %{{.*}} : f32

// The PTX has 16-byte K/V loads, butterfly shuffles, the shared-memory
// merge and no local memory or unresolved libdevice call.
// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .entry attention_decode_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32(
// PTX: .maxntid 128, 1, 1
// PTX: .shared .align 128 .b8 __wg_attention_decode_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32_2[8192];
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// PTX: ex2.approx
// PTX: bar.sync 0;
// PTX: ld.shared.b32
// PTX-LABEL: .entry attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32(
// PTX: .maxntid 128, 1, 1
// PTX-LABEL: // ---- llmc: PTX for sm_90
// PTX-LABEL: .entry attention_decode_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32(
// PTX: shfl.sync.bfly.b32
// PTX-NOT: .local
// PTX-NOT: __nv_

// PTXAS-DAG: kernel attention_decode_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 sm_80 regs={{[0-9]+}} smem=512 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 sm_80 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h8_kv8_s300_b1_f32_f32_causal_nopos sm_80 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d128_h8_kv8_s300_b1_f32_f32_causal_nopos sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h8_kv8_sdyn_b1_f32_f32_causal_nopos sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 sm_90 regs={{[0-9]+}} smem=512 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 sm_90 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h8_kv8_s300_b1_f32_f32_causal_nopos sm_90 regs={{[0-9]+}} smem={{[0-9]+}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d128_h8_kv8_s300_b1_f32_f32_causal_nopos sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h8_kv8_sdyn_b1_f32_f32_causal_nopos sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_posi32 sm_80 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_posi32 sm_90 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d256_h8_kv4_s8192_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d256_h8_kv4_s8192_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
