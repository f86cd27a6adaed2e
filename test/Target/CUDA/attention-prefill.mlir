// llm.attention with a dynamic (or >1) query length → one flash-attention
// kernel per static parameter set: K/V tiles staged in shared memory as f32,
// scores reduced with shfl.sync.bfly, online softmax, grid (query tiles,
// head groups, batch). Gemma-2's softcap is one more kernel argument (the
// score scale becomes scale / cap) and a tanh per score before the mask.
// Every kernel assembles for sm_80 and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS
// A head_dim without a kernel is an error that says so.
// RUN: not llmc --compile-to=kernels --target=cuda:sm_80 %S/Inputs/attention-head-dim.mlir 2>&1 | FileCheck %s --check-prefix=HEADDIM
// HEADDIM: error: 'llm.attention' op CUDA lowering: head_dim must be static, a multiple of 4 and at most 576

!cache = !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 8192, element_type = bf16>
!window_cache = !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 32768, element_type = f32>
!gemma2_cache = !llm.kv_cache<layers = 26, batch = 1, kv_heads = 4, head_dim = 256, capacity = 8192, element_type = bf16>

module attributes {llm.model = "t"} {
  // stories260K: head_dim 8, GQA groups of 2, f32 cache of 512 positions.
  func.func private @stories(%q: tensor<1x?x8x8xf32>, %k: tensor<1x512x4x8xf32>, %v: tensor<1x512x4x8xf32>, %pos: tensor<1x?xi32>) -> tensor<1x?x8x8xf32> {
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64} : tensor<1x?x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x?xi32> -> tensor<1x?x8x8xf32>
    return %0 : tensor<1x?x8x8xf32>
  }
  // LLaMA-3-8B with a bf16 cache: K/V are views of one cache layer.
  func.func private @llama3(%q: tensor<1x?x32x128xf32>, %cache: !cache, %layer: index, %pos: tensor<1x?xi32>) -> tensor<1x?x32x128xf32> {
    %k, %v = llm.kv_view %cache[%layer] : !cache -> tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 32 : i64, num_kv_heads = 8 : i64} : tensor<1x?x32x128xf32>, tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>, tensor<1x?xi32> -> tensor<1x?x32x128xf32>
    return %0 : tensor<1x?x32x128xf32>
  }
  // Mistral: sliding window of 4096.
  func.func private @mistral(%q: tensor<1x?x32x128xf32>, %cache: !window_cache, %pos: tensor<1x?xi32>) -> tensor<1x?x32x128xf32> {
    %k, %v = llm.kv_view %cache[3] : !window_cache -> tensor<1x32768x8x128xf32>, tensor<1x32768x8x128xf32>
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 32 : i64, num_kv_heads = 8 : i64, sliding_window = 4096 : i64} : tensor<1x?x32x128xf32>, tensor<1x32768x8x128xf32>, tensor<1x32768x8x128xf32>, tensor<1x?xi32> -> tensor<1x?x32x128xf32>
    return %0 : tensor<1x?x32x128xf32>
  }
  // No positions: query t sits at t + S − T (S read from k at run time);
  // a static query length is cast to the kernel's dynamic one.
  func.func private @implicit(%q: tensor<1x?x4x64xf32>, %k: tensor<1x?x2x64xf32>, %v: tensor<1x?x2x64xf32>) -> tensor<1x?x4x64xf32> {
    %0 = llm.attention %q, %k, %v {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<1x?x4x64xf32>, tensor<1x?x2x64xf32>, tensor<1x?x2x64xf32> -> tensor<1x?x4x64xf32>
    return %0 : tensor<1x?x4x64xf32>
  }
  // Non-causal, with an explicit scale: positions are not read.
  func.func private @full(%q: tensor<1x5x4x64xf32>, %k: tensor<1x50x1x64xf32>, %v: tensor<1x50x1x64xf32>, %pos: tensor<1x5xi32>) -> tensor<1x5x4x64xf32> {
    %0 = llm.attention %q, %k, %v, %pos {num_heads = 4 : i64, num_kv_heads = 1 : i64, scale = 0.5 : f64} : tensor<1x5x4x64xf32>, tensor<1x50x1x64xf32>, tensor<1x50x1x64xf32>, tensor<1x5xi32> -> tensor<1x5x4x64xf32>
    return %0 : tensor<1x5x4x64xf32>
  }
  // Gemma-2-2B's sliding layer: head_dim 256, query_pre_attn_scalar 256,
  // softcap 50, window 4096.
  func.func private @gemma2(%q: tensor<1x?x8x256xf32>, %cache: !gemma2_cache, %layer: index, %pos: tensor<1x?xi32>) -> tensor<1x?x8x256xf32> {
    %k, %v = llm.kv_view %cache[%layer] : !gemma2_cache -> tensor<1x8192x4x256xbf16>, tensor<1x8192x4x256xbf16>
    %0 = llm.attention %q, %k, %v, %pos {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64, sliding_window = 4096 : i64, scale = 0.0625 : f64, softcap = 50.0 : f64} : tensor<1x?x8x256xf32>, tensor<1x8192x4x256xbf16>, tensor<1x8192x4x256xbf16>, tensor<1x?xi32> -> tensor<1x?x8x256xf32>
    return %0 : tensor<1x?x8x256xf32>
  }
}

// Launches: grid (ceil(T / query positions per block), heads / heads per
// block, batch); stories260K's 64 rows are 32 positions × 2 heads, LLaMA's
// 64 rows 16 positions × 4 heads (one GQA group: K/V read once per group).
// KERNELS-LABEL: func.func private @stories
// KERNELS: %[[T:.*]] = memref.dim %arg0, %c1 : memref<1x?x8x8xf32>
// KERNELS: %[[OUT:.*]] = memref.alloc(%[[T]]) : memref<1x?x8x8xf32>
// KERNELS: %[[ROUNDED:.*]] = arith.addi %[[T]], %c31 : index
// KERNELS: %[[TILES:.*]] = arith.divui %[[ROUNDED]], %c32 : index
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 blocks in (%[[TILES]], %c4, %c1) threads in (%c64, %c1, %c1) args(%arg0 : memref<1x?x8x8xf32>, %arg1 : memref<1x512x4x8xf32>, %arg2 : memref<1x512x4x8xf32>, %arg3 : memref<1x?xi32>, %[[OUT]] : memref<1x?x8x8xf32>, %{{.*}} : f32)
// KERNELS: return %[[OUT]]
// KERNELS-LABEL: func.func private @llama3
// KERNELS: %[[SCALE:.*]] = arith.constant 0.0883883461 : f32
// KERNELS: %[[K:.*]] = memref.view %arg1{{.*}} to memref<1x8192x8x128xbf16>
// KERNELS: %[[V:.*]] = memref.view %arg1{{.*}} to memref<1x8192x8x128xbf16>
// KERNELS: %[[ROUNDED:.*]] = arith.addi %{{.*}}, %c15 : index
// KERNELS: %[[TILES:.*]] = arith.divui %[[ROUNDED]], %c16 : index
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 blocks in (%[[TILES]], %c8, %c1) threads in (%c256, %c1, %c1) args(%arg0 : memref<1x?x32x128xf32>, %[[K]] : memref<1x8192x8x128xbf16>, %[[V]] : memref<1x8192x8x128xbf16>, %arg3 : memref<1x?xi32>, %{{.*}} : memref<1x?x32x128xf32>, %[[SCALE]] : f32)
// KERNELS-LABEL: func.func private @mistral
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 blocks in (%{{.*}}, %c8, %c1) threads in (%c256, %c1, %c1)
// KERNELS-LABEL: func.func private @implicit
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d64_h4_kv2_sdyn_b1_f32_f32_causal_nopos blocks in (%{{.*}}, %c2, %c1) threads in (%c256, %c1, %c1) args(%arg0 : memref<1x?x4x64xf32>, %arg1 : memref<1x?x2x64xf32>, %arg2 : memref<1x?x2x64xf32>, %{{.*}} : memref<1x?x4x64xf32>, %{{.*}} : f32)
// KERNELS-LABEL: func.func private @full
// KERNELS: %[[SCALE:.*]] = arith.constant 5.000000e-01 : f32
// KERNELS: %[[OUT:.*]] = memref.alloc() : memref<1x5x4x64xf32>
// KERNELS: %[[Q:.*]] = memref.cast %arg0 : memref<1x5x4x64xf32> to memref<1x?x4x64xf32>
// KERNELS: %[[OUTDYN:.*]] = memref.cast %[[OUT]] : memref<1x5x4x64xf32> to memref<1x?x4x64xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d64_h4_kv1_s50_b1_f32_f32_full blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[Q]] : memref<1x?x4x64xf32>, %arg1 : memref<1x50x1x64xf32>, %arg2 : memref<1x50x1x64xf32>, %[[OUTDYN]] : memref<1x?x4x64xf32>, %[[SCALE]] : f32)
// KERNELS: return %[[OUT]] : memref<1x5x4x64xf32>

// Softcap: the host passes scale / cap (0.0625 / 50) and the cap; each
// score is cap · tanh(dot · that) before the mask's select.
// KERNELS-LABEL: func.func private @gemma2
// KERNELS-DAG: %[[CAP:.*]] = arith.constant 5.000000e+01 : f32
// KERNELS-DAG: %[[SCALE:.*]] = arith.constant 1.250000e-03 : f32
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_w4096_posi32 {{.*}} %[[SCALE]] : f32, %[[CAP]] : f32)

// The kernels: two f32 K/V tiles in shared memory (64 keys × 8 for
// stories260K, 32 × 128 for LLaMA); per key tile: staged loads (bf16
// widened to f32), a barrier, key blocks with butterfly-reduced scores and
// the online softmax, a barrier before the next tile overwrites the stage.
// KERNELS-LABEL: gpu.func @attention_prefill_d8_h8_kv4_s512_b1_f32_f32_causal_posi32
// KERNELS-SAME: workgroup(%[[KT:.*]] : memref<512xf32, 3> {llvm.align = 128 : i64}, %[[VT:.*]] : memref<512xf32, 3> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 64, 1, 1>, nvvm.minctasm = 2 : i32}
// KERNELS-LABEL: gpu.func @attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32
// KERNELS-SAME: workgroup(%[[KT:.*]] : memref<4096xf32, 3> {llvm.align = 128 : i64}, %[[VT:.*]] : memref<4096xf32, 3> {llvm.align = 128 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32}
// KERNELS: memref.load %arg3
// The keys the block scans: [min begin, max end) over its positions.
// KERNELS: %[[RANGE:.*]]:2 = scf.for {{.*}} iter_args({{.*}}) -> (index, index)
// KERNELS: scf.for %[[TILE:.*]] = %[[RANGE]]#0 to %[[RANGE]]#1 step %c32
// KERNELS: vector.load %arg1{{.*}} : memref<1x8192x8x128xbf16>, vector<8xbf16>
// KERNELS: arith.extf {{.*}} : vector<8xbf16> to vector<8xf32>
// KERNELS: vector.store {{.*}}, %[[KT]]{{.*}} : memref<4096xf32, 3>, vector<8xf32>
// KERNELS: vector.store {{.*}}, %[[VT]]{{.*}} : memref<4096xf32, 3>, vector<8xf32>
// KERNELS: gpu.barrier
// KERNELS: scf.for %{{.*}} = %c0 to %{{.*}} step %c4
// KERNELS: vector.load %[[KT]]{{.*}} : memref<4096xf32, 3>, vector<4xf32>
// KERNELS: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// KERNELS: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// KERNELS: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// KERNELS: arith.maximumf
// KERNELS: math.exp
// KERNELS: math.fma
// KERNELS: gpu.barrier
// KERNELS: gpu.return
// KERNELS-LABEL: gpu.func @attention_prefill_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32
// KERNELS-LABEL: gpu.func @attention_prefill_d64_h4_kv2_sdyn_b1_f32_f32_causal_nopos
// S from k at run time; query t sits at t + S − T.
// KERNELS: memref.dim %arg1, %c1 : memref<1x?x2x64xf32>
// KERNELS-LABEL: gpu.func @attention_prefill_d64_h4_kv1_s50_b1_f32_f32_full
// KERNELS-LABEL: gpu.func @attention_prefill_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_w4096_posi32(
// KERNELS-SAME: %[[KSCALE:arg[0-9]+]]: f32, %[[KCAP:arg[0-9]+]]: f32)
// KERNELS: %[[Z:.*]] = arith.mulf %{{.*}}, %[[KSCALE]] : f32
// KERNELS-NEXT: %[[T:.*]] = math.tanh %[[Z]] : f32
// KERNELS-NEXT: %[[CAPPED:.*]] = arith.mulf %[[T]], %[[KCAP]] : f32
// KERNELS: arith.select %{{.*}}, %[[CAPPED]], %{{.*}} : f32

// The PTX has 16-byte global loads, f32 tiles in .shared, barriers,
// shfl.sync.bfly, no local memory and no unresolved libdevice call.
// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .entry attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32(
// PTX: .maxntid 256, 1, 1
// PTX: .shared .align 128 .b8 __wg_attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32_0[16384];
// PTX: .shared .align 128 .b8 __wg_attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32_1[16384];
// PTX: ld.global.v4.b32
// PTX: st.shared.v4.b32
// PTX: bar.sync 0;
// PTX: ld.shared.v4.b32
// PTX: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// PTX: ex2.approx
// PTX: st.global.v4.b32
// PTX-LABEL: // ---- llmc: PTX for sm_90
// PTX-LABEL: .entry attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32(
// PTX: shfl.sync.bfly.b32
// PTX-NOT: .local
// PTX-NOT: __nv_

// PTXAS-DAG: kernel attention_prefill_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 sm_80 regs={{[0-9]+}} smem=4096 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h4_kv2_sdyn_b1_f32_f32_causal_nopos sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h4_kv1_s50_b1_f32_f32_full sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d8_h8_kv4_s512_b1_f32_f32_causal_posi32 sm_90 regs={{[0-9]+}} smem=4096 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h32_kv8_s32768_b1_f32_f32_causal_w4096_posi32 sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h4_kv2_sdyn_b1_f32_f32_causal_nopos sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h4_kv1_s50_b1_f32_f32_full sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_w4096_posi32 sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d256_h8_kv4_s8192_b1_f32_bf16_softcap_causal_w4096_posi32 sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
