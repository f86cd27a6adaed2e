// The paged KV-cache layout on CUDA: each layer's keys (and values) are a
// page pool (pages, page_size, kv_heads, head_dim) in the bytes of the
// contiguous layout, and position p of sequence b lives in slot p mod
// page_size of page table[b, p / page_size]. llm.kv_append and
// llm.rope_append write the token's row page · page_size + slot (skipped
// for a position past the capacity or a page id outside [0, pages)); a
// paged llm.kv_view is not materialized: the attention kernels (flash
// prefill, split-K decode) read each key through the table, the page id
// clamped into the pool (arith.minui), so a bad table never reads outside
// it. Paged kernels carry a _pg<page size> tag and take the page table
// after the K/V buffers; the decode combine kernel, which reads only the
// partials, is the contiguous one. Every kernel assembles for sm_80 and
// sm_90 without spills. Numbers: simulated-paged-kv-cache.test.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

!llama3 = !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 8192, element_type = bf16, layout = paged>
!small = !llm.kv_cache<layers = 2, batch = 2, kv_heads = 2, head_dim = 64, capacity = 256, element_type = f32, layout = paged, page_size = 32>

module attributes {llm.model = "t"} {
  // LLaMA-3-8B decode: 16-position pages, the layer as an index.
  func.func private @llama3_decode(%c: !llama3, %t: tensor<1x512xi32>, %q: tensor<1x1x32x128xf32>, %k: tensor<1x1x8x128xf32>, %v: tensor<1x1x8x128xf32>, %p: tensor<1x1xi32>, %l: index) -> (tensor<1x1x32x128xf32>, !llama3) {
    %qr, %c1 = llm.rope_append half %c[%l] pages(%t : tensor<1x512xi32>), %q, %k, %v, %p {theta = 5.0e+05 : f64, rotary_dim = 128 : i64} : !llama3, tensor<1x1x32x128xf32>, tensor<1x1x8x128xf32>, tensor<1x1xi32>
    %kv:2 = llm.kv_view %c1[%l] pages(%t : tensor<1x512xi32>) : !llama3 -> tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>
    %0 = llm.attention %qr, %kv#0, %kv#1, %p {causal, num_heads = 32 : i64, num_kv_heads = 8 : i64} : tensor<1x1x32x128xf32>, tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>, tensor<1x1xi32> -> tensor<1x1x32x128xf32>
    return %0, %c1 : tensor<1x1x32x128xf32>, !llama3
  }
  // Its prefill: the same rope_append kernel, flash attention.
  func.func private @llama3_prefill(%c: !llama3, %t: tensor<1x512xi32>, %q: tensor<1x?x32x128xf32>, %k: tensor<1x?x8x128xf32>, %v: tensor<1x?x8x128xf32>, %p: tensor<1x?xi32>, %l: index) -> (tensor<1x?x32x128xf32>, !llama3) {
    %qr, %c1 = llm.rope_append half %c[%l] pages(%t : tensor<1x512xi32>), %q, %k, %v, %p {theta = 5.0e+05 : f64, rotary_dim = 128 : i64} : !llama3, tensor<1x?x32x128xf32>, tensor<1x?x8x128xf32>, tensor<1x?xi32>
    %kv:2 = llm.kv_view %c1[%l] pages(%t : tensor<1x512xi32>) : !llama3 -> tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>
    %0 = llm.attention %qr, %kv#0, %kv#1, %p {causal, num_heads = 32 : i64, num_kv_heads = 8 : i64} : tensor<1x?x32x128xf32>, tensor<1x8192x8x128xbf16>, tensor<1x8192x8x128xbf16>, tensor<1x?xi32> -> tensor<1x?x32x128xf32>
    return %0, %c1 : tensor<1x?x32x128xf32>, !llama3
  }
  // Two sequences, 32-position pages, an f32 cache: kv_append, then a
  // sliding-window prefill and a decode step on layer 1.
  func.func private @small(%c: !small, %t: tensor<2x8xi32>, %q: tensor<2x?x4x64xf32>, %k: tensor<2x?x2x64xf32>, %v: tensor<2x?x2x64xf32>, %p: tensor<2x?xi32>, %qd: tensor<2x1x4x64xf32>, %pd: tensor<2x1xi32>) -> (tensor<2x?x4x64xf32>, tensor<2x1x4x64xf32>, !small) {
    %c1 = llm.kv_append %c[1] pages(%t : tensor<2x8xi32>), %k, %v, %p : !small, tensor<2x?x2x64xf32>, tensor<2x?x2x64xf32>, tensor<2x?xi32>
    %kv:2 = llm.kv_view %c1[1] pages(%t : tensor<2x8xi32>) : !small -> tensor<2x256x2x64xf32>, tensor<2x256x2x64xf32>
    %0 = llm.attention %q, %kv#0, %kv#1, %p {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64, sliding_window = 100 : i64} : tensor<2x?x4x64xf32>, tensor<2x256x2x64xf32>, tensor<2x256x2x64xf32>, tensor<2x?xi32> -> tensor<2x?x4x64xf32>
    %1 = llm.attention %qd, %kv#0, %kv#1, %pd {causal, num_heads = 4 : i64, num_kv_heads = 2 : i64} : tensor<2x1x4x64xf32>, tensor<2x256x2x64xf32>, tensor<2x256x2x64xf32>, tensor<2x1xi32> -> tensor<2x1x4x64xf32>
    return %0, %1, %c1 : tensor<2x?x4x64xf32>, tensor<2x1x4x64xf32>, !small
  }
}

// Host side: a layer's pools are memref.views of the cache bytes (a bf16
// layer is 8192 · 1024 · 2 bytes, as contiguous); the table is the
// function's i32 buffer, passed to the paged kernels after the cache.
// KERNELS-LABEL: func.func private @llama3_decode
// KERNELS-SAME: (%[[CACHE:[a-z0-9]+]]: memref<1073741824xi8>, %[[TABLE:[a-z0-9]+]]: memref<1x512xi32>,
// KERNELS: %[[K:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<1073741824xi8> to memref<512x16x8x128xbf16>
// KERNELS: %[[KROWS:.*]] = memref.collapse_shape %[[K]] {{\[\[}}0, 1], [2, 3]] : memref<512x16x8x128xbf16> into memref<8192x1024xbf16>
// KERNELS: %[[V:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<1073741824xi8> to memref<512x16x8x128xbf16>
// KERNELS: %[[VROWS:.*]] = memref.collapse_shape %[[V]] {{\[\[}}0, 1], [2, 3]] : memref<512x16x8x128xbf16> into memref<8192x1024xbf16>
// KERNELS: gpu.launch_func @llmc_kernels::@rope_append_half_h32_kv8_d128_r128_none_{{[0-9a-f]+}}_f32_c8192_pg16_to_bf16_i32 blocks in (%c1, %c28, %c1) threads in (%c128, %c1, %c1) args({{.*}}, %[[KROWS]] : memref<8192x1024xbf16>, %[[VROWS]] : memref<8192x1024xbf16>, %[[TABLE]] : memref<1x512xi32>)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32 blocks in (%c64, %c8, %c1) threads in (%c128, %c1, %c1) args(%{{.*}} : memref<1x1x32x128xf32>, %[[K]] : memref<512x16x8x128xbf16>, %[[V]] : memref<512x16x8x128xbf16>, %[[TABLE]] : memref<1x512xi32>, %{{.*}} : memref<1x1xi32>,
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 blocks in (%c32, %c1, %c1)
// KERNELS-LABEL: func.func private @llama3_prefill
// KERNELS: gpu.launch_func @llmc_kernels::@rope_append_half_h32_kv8_d128_r128_none_{{[0-9a-f]+}}_f32_c8192_pg16_to_bf16_i32 blocks in (%{{.*}}, %c28, %c1)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32 blocks in (%{{.*}}, %c8, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<1x?x32x128xf32>, %{{.*}} : memref<512x16x8x128xbf16>, %{{.*}} : memref<512x16x8x128xbf16>, %{{.*}} : memref<1x512xi32>, %{{.*}} : memref<1x?xi32>,
// Layer 1 of the small cache: keys at 1 · 262144 bytes, values at
// (2 + 1) · 262144 (16 pages of 32 · 128 f32).
// KERNELS-LABEL: func.func private @small
// KERNELS: %[[K:.*]] = memref.view %{{.*}}[%c262144][] : memref<1048576xi8> to memref<16x32x2x64xf32>
// KERNELS: %[[V:.*]] = memref.view %{{.*}}[%c786432][] : memref<1048576xi8> to memref<16x32x2x64xf32>
// KERNELS: gpu.launch_func @llmc_kernels::@kv_append_r128_c256_pg32_f32_to_f32 blocks in (%{{.*}}, %c1, %c1) threads in (%c256, %c1, %c1) args({{.*}} : memref<512x128xf32>, %{{.*}} : memref<512x128xf32>, %{{.*}} : memref<2x8xi32>)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d64_h4_kv2_s256_pg32_b2_f32_f32_causal_w100_posi32 {{.*}} args(%{{.*}} : memref<2x?x4x64xf32>, %[[K]] : memref<16x32x2x64xf32>, %[[V]] : memref<16x32x2x64xf32>, %{{.*}} : memref<2x8xi32>, %{{.*}} : memref<2x?xi32>,
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d64_h4_kv2_s256_pg32_b2_f32_f32_causal_posi32 blocks in (%c2, %c2, %c2) {{.*}} args(%{{.*}} : memref<2x1x4x64xf32>, %[[K]] : memref<16x32x2x64xf32>, %[[V]] : memref<16x32x2x64xf32>, %{{.*}} : memref<2x8xi32>,
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_combine_d64_h4_kv2_s256_b2_f32_f32_causal_posi32
// KERNELS-NOT: unrealized_conversion_cast
// KERNELS-NOT: llm.kv_view

// rope_append: the cache row is page · 16 + slot of page table[b, p / 16]
// (p clamped to the capacity for the lookup); keys and values are written
// only inside the capacity and for a page id below 512 (unsigned).
// KERNELS-LABEL: gpu.func @rope_append_half_h32_kv8_d128_r128_none_{{[0-9a-f]+}}_f32_c8192_pg16_to_bf16_i32(%arg0: memref<?x4096xf32>, %arg1: memref<?x1024xf32>, %arg2: memref<?x1024xf32>, %arg3: memref<?xi32>, %arg4: memref<?x4096xf32>, %arg5: memref<8192x1024xbf16>, %arg6: memref<8192x1024xbf16>, %arg7: memref<1x512xi32>)
// KERNELS: %[[TOKEN:.*]] = gpu.block_id x
// KERNELS: %[[SEQ:.*]] = arith.divui %[[TOKEN]], %{{.*}} : index
// KERNELS: %[[P32:.*]] = memref.load %arg3[%[[TOKEN]]] : memref<?xi32>
// KERNELS-NEXT: %[[P:.*]] = arith.index_cast %[[P32]] : i32 to index
// KERNELS-NEXT: %[[INCAP:.*]] = arith.cmpi ult, %[[P]], %c8192 : index
// KERNELS-NEXT: %[[SAFE:.*]] = arith.minui %[[P]], %c8191 : index
// KERNELS-NEXT: %[[COL:.*]] = arith.divui %[[SAFE]], %c16 : index
// KERNELS-NEXT: %[[ID:.*]] = memref.load %arg7[%[[SEQ]], %[[COL]]] : memref<1x512xi32>
// KERNELS-NEXT: %[[PAGE:.*]] = arith.index_cast %[[ID]] : i32 to index
// KERNELS-NEXT: %[[SLOT:.*]] = arith.remui %[[SAFE]], %c16 : index
// KERNELS-NEXT: %[[INPOOL:.*]] = arith.cmpi ult, %[[PAGE]], %c512 : index
// KERNELS-NEXT: %[[INCACHE:.*]] = arith.andi %[[INCAP]], %[[INPOOL]] : i1
// KERNELS-NEXT: %[[BASE:.*]] = arith.muli %[[PAGE]], %c16 : index
// KERNELS-NEXT: %[[ROW:.*]] = arith.addi %[[BASE]], %[[SLOT]] : index
// KERNELS: scf.if %[[INCACHE]] {
// KERNELS: memref.store %{{.*}}, %arg5[%[[ROW]], %{{.*}}] : memref<8192x1024xbf16>
// KERNELS: scf.if %[[INCACHE]] {
// KERNELS: memref.store %{{.*}}, %arg6[%[[ROW]], %{{.*}}] : memref<8192x1024xbf16>
// KERNELS: gpu.return

// The split kernel: each key of the unrolled step (clamped to the split's
// last visible one) is looked up in the table of its sequence; K and V are
// read as 16-byte vectors at (page clamped to 511, slot, kv head, lane's
// elements).
// KERNELS-LABEL: gpu.func @attention_decode_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32(%arg0: memref<1x1x32x128xf32>, %arg1: memref<512x16x8x128xbf16>, %arg2: memref<512x16x8x128xbf16>, %arg3: memref<1x512xi32>, %arg4: memref<1x1xi32>,
// KERNELS: %[[SEQ:.*]] = gpu.block_id z
// KERNELS: scf.for
// KERNELS: %[[KEY:.*]] = arith.minsi
// KERNELS-NEXT: %[[COL:.*]] = arith.divui %[[KEY]], %c16 : index
// KERNELS-NEXT: %[[ID:.*]] = memref.load %arg3[%[[SEQ]], %[[COL]]] : memref<1x512xi32>
// KERNELS-NEXT: %[[PAGE:.*]] = arith.index_cast %[[ID]] : i32 to index
// KERNELS-NEXT: %[[SLOT:.*]] = arith.remui %[[KEY]], %c16 : index
// KERNELS-NEXT: %[[SAFE:.*]] = arith.minui %[[PAGE]], %c511 : index
// KERNELS-NEXT: vector.load %arg1[%[[SAFE]], %[[SLOT]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<512x16x8x128xbf16>, vector<8xbf16>
// KERNELS: vector.load %arg2[%[[SAFE]], %[[SLOT]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<512x16x8x128xbf16>, vector<8xbf16>
// KERNELS: gpu.return

// kv_append: the same row, through the 2 sequences' table (pool of 16).
// KERNELS-LABEL: gpu.func @kv_append_r128_c256_pg32_f32_to_f32(
// KERNELS: arith.cmpi ult, %{{.*}}, %c256 : index
// KERNELS: arith.minui %{{.*}}, %c255 : index
// KERNELS: memref.load %arg5[%{{.*}}, %{{.*}}] : memref<2x8xi32>
// KERNELS: arith.cmpi ult, %{{.*}}, %c16 : index
// KERNELS: arith.andi

// Flash attention stages each key of the tile (clamped to the block's
// last visible one) from its page the same way.
// KERNELS-LABEL: gpu.func @attention_prefill_d64_h4_kv2_s256_pg32_b2_f32_f32_causal_w100_posi32(%arg0: memref<2x?x4x64xf32>, %arg1: memref<16x32x2x64xf32>, %arg2: memref<16x32x2x64xf32>, %arg3: memref<2x8xi32>, %arg4: memref<2x?xi32>,
// KERNELS: %[[SEQ:.*]] = gpu.block_id z
// KERNELS: %[[COL:.*]] = arith.divui %[[KEY:[0-9]+]], %c32 : index
// KERNELS-NEXT: %[[ID:.*]] = memref.load %arg3[%[[SEQ]], %[[COL]]] : memref<2x8xi32>
// KERNELS-NEXT: %[[PAGE:.*]] = arith.index_cast %[[ID]] : i32 to index
// KERNELS-NEXT: %[[SLOT:.*]] = arith.remui %[[KEY]], %c32 : index
// KERNELS-NEXT: %[[SAFE:.*]] = arith.minui %[[PAGE]], %c15 : index
// KERNELS-NEXT: vector.load %arg1[%[[SAFE]], %[[SLOT]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x32x2x64xf32>, vector<4xf32>
// KERNELS-NEXT: vector.load %arg2[%[[SAFE]], %[[SLOT]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x32x2x64xf32>, vector<4xf32>
// KERNELS: gpu.barrier

// In the PTX, one unsigned min clamps the page id; K/V loads stay 16-byte
// vectors.
// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .entry attention_decode_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32(
// PTX: .maxntid 128, 1, 1
// PTX: min.u32 {{.*}}, 511;
// PTX: ld.global.v4.b32
// PTX: shfl.sync.bfly.b32
// PTX-LABEL: .entry attention_prefill_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32(
// PTX: min.u32 {{.*}}, 511;
// PTX: ld.global.v4.b32
// PTX-LABEL: // ---- llmc: PTX for sm_90
// PTX-NOT: __nv_

// PTXAS-DAG: kernel attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d64_h4_kv2_s256_b2_f32_f32_causal_posi32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d64_h4_kv2_s256_pg32_b2_f32_f32_causal_posi32 sm_80 regs={{[0-9]+}} smem=2304 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32 sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h4_kv2_s256_pg32_b2_f32_f32_causal_w100_posi32 sm_80 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel kv_append_r128_c256_pg32_f32_to_f32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_append_half_h32_kv8_d128_r128_none_{{[0-9a-f]+}}_f32_c8192_pg16_to_bf16_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d128_h32_kv8_s8192_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d64_h4_kv2_s256_b2_f32_f32_causal_posi32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=8448 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d64_h4_kv2_s256_pg32_b2_f32_f32_causal_posi32 sm_90 regs={{[0-9]+}} smem=2304 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d128_h32_kv8_s8192_pg16_b1_f32_bf16_causal_posi32 sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d64_h4_kv2_s256_pg32_b2_f32_f32_causal_w100_posi32 sm_90 regs={{[0-9]+}} smem=32768 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel kv_append_r128_c256_pg32_f32_to_f32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_append_half_h32_kv8_d128_r128_none_{{[0-9a-f]+}}_f32_c8192_pg16_to_bf16_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
