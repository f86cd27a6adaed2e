// llm.rope_append → one kernel per token and group of 128 items: the
// queries' pairs (rotated into the result), the keys' pairs (rotated, then
// rounded into the cache row batch · capacity + position), the values
// (rounded into the cache), then the elements past rotary_dim of the
// queries and keys (copied). A chain of scf.if on the item ranges; cache
// writes only for a position inside the capacity. Dynamic NTK first fills
// its frequency table, as for llm.rope. Every kernel assembles for sm_80
// and sm_90 without spills.
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

!llama3 = !llm.kv_cache<layers = 32, batch = 1, kv_heads = 8, head_dim = 128, capacity = 4096, element_type = bf16>
!partial = !llm.kv_cache<layers = 2, batch = 2, kv_heads = 2, head_dim = 64, capacity = 256, element_type = f32>

module attributes {llm.model = "t"} {
  // LLaMA-3-8B decode: llama3 scaling, bf16 cache, layer as an index.
  func.func private @llama3_decode(%c: !llama3, %q: tensor<1x1x32x128xf32>, %k: tensor<1x1x8x128xf32>, %v: tensor<1x1x8x128xf32>, %p: tensor<1x1xi32>, %l: index) -> (tensor<1x1x32x128xf32>, !llama3) {
    %qr, %c1 = llm.rope_append half %c[%l], %q, %k, %v, %p {theta = 5.0e+05 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192>} : !llama3, tensor<1x1x32x128xf32>, tensor<1x1x8x128xf32>, tensor<1x1xi32>
    return %qr, %c1 : tensor<1x1x32x128xf32>, !llama3
  }
  // A prefill of two sequences, partial interleaved rotary, dynamic NTK.
  func.func private @partial_prefill(%c: !partial, %q: tensor<2x?x4x64xf32>, %k: tensor<2x?x2x64xf32>, %v: tensor<2x?x2x64xf32>, %p: tensor<2x?xi32>) -> (tensor<2x?x4x64xf32>, !partial) {
    %qr, %c1 = llm.rope_append interleaved %c[1], %q, %k, %v, %p {theta = 1.0e+04 : f64, rotary_dim = 32 : i64, scaling = #llm.rope_dynamic<factor = 2.0, original_max_position_embeddings = 128>} : !partial, tensor<2x?x4x64xf32>, tensor<2x?x2x64xf32>, tensor<2x?xi32>
    return %qr, %c1 : tensor<2x?x4x64xf32>, !partial
  }
}

// Host side: the layer's keys and values viewed in the cache bytes (a bf16
// layer is 4096 · 1024 · 2 bytes), one launch of 4096 queries' + 1024 keys'
// pairs + 8192 values = 28 blocks of 128 per token.
// KERNELS-LABEL: func.func private @llama3_decode
// KERNELS: memref.view %arg0[%{{.*}}][] : memref<536870912xi8> to memref<1x4096x8x128xbf16>
// KERNELS: memref.view %arg0[%{{.*}}][] : memref<536870912xi8> to memref<1x4096x8x128xbf16>
// KERNELS: gpu.launch_func @llmc_kernels::@rope_append_half_h32_kv8_d128_r128_llama3_{{[0-9a-f]+}}_f32_c4096_to_bf16_i32 blocks in (%c1, %c28, %c1) threads in (%c128, %c1, %c1)
// KERNELS-NOT: gpu.launch_func
// KERNELS: return
// Dynamic NTK: the table first; 416 items (64 + 32 pairs, 128 values, 128 +
// 64 copied elements) in 4 blocks per token of the two sequences.
// KERNELS-LABEL: func.func private @partial_prefill
// KERNELS: gpu.launch_func @llmc_kernels::@rope_dynamic_inv_freq_r32_dynamic_{{[0-9a-f]+}}_i32 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[IDS:.*]] : memref<?xi32>, %[[TABLE:.*]] : memref<16xf32>)
// KERNELS: gpu.launch_func @llmc_kernels::@rope_append_interleaved_h4_kv2_d64_r32_dynamic_{{[0-9a-f]+}}_f32_c256_to_f32_i32 blocks in (%{{.*}}, %c4, %c1) threads in (%c128, %c1, %c1) args({{.*}}%[[IDS]] : memref<?xi32>, %[[TABLE]] : memref<16xf32>,

// The decode kernel: the cache row, then queries' pairs rotated into the
// result, keys' pairs rotated and rounded to bf16 into the cache, values
// rounded into the cache, the last two only inside the capacity.
// KERNELS-LABEL: gpu.func @rope_append_half_h32_kv8_d128_r128_llama3_{{[0-9a-f]+}}_f32_c4096_to_bf16_i32(%arg0: memref<?x4096xf32>, %arg1: memref<?x1024xf32>, %arg2: memref<?x1024xf32>, %arg3: memref<?xi32>, %arg4: memref<?x4096xf32>, %arg5: memref<4096x1024xbf16>, %arg6: memref<4096x1024xbf16>)
// KERNELS: %[[FREQ:.*]] = memref.get_global @rope_inv_freq_r128_llama3_{{[0-9a-f]+}} : memref<64xf32>
// KERNELS: %[[TOKEN:.*]] = gpu.block_id  x
// KERNELS: %[[ITEM:.*]] = arith.addi
// KERNELS: %[[POS:.*]] = arith.index_cast
// KERNELS-NEXT: %[[INCACHE:.*]] = arith.cmpi ult, %[[POS]], %c4096 : index
// KERNELS: %[[ROW:.*]] = arith.addi %{{.*}}, %[[POS]] : index
// KERNELS-NEXT: %[[ISQ:.*]] = arith.cmpi ult, %[[ITEM]], %c2048 : index
// KERNELS-NEXT: scf.if %[[ISQ]] {
// KERNELS: memref.load %[[FREQ]]
// KERNELS: math.cos
// KERNELS: math.sin
// KERNELS: memref.store %{{.*}}, %arg4[%[[TOKEN]], %{{.*}}] : memref<?x4096xf32>
// KERNELS: } else {
// KERNELS-NEXT: %[[ISK:.*]] = arith.cmpi ult, %[[ITEM]], %c2560 : index
// KERNELS-NEXT: scf.if %[[ISK]] {
// KERNELS-NEXT: %[[KPAIR:.*]] = arith.subi %[[ITEM]], %c2048 : index
// KERNELS-NEXT: scf.if %[[INCACHE]] {
// KERNELS: memref.load %arg1[%[[TOKEN]], %{{.*}}] : memref<?x1024xf32>
// KERNELS: arith.truncf %{{.*}} : f32 to bf16
// KERNELS: memref.store %{{.*}}, %arg5[%[[ROW]], %{{.*}}] : memref<4096x1024xbf16>
// KERNELS: %[[ISV:.*]] = arith.cmpi ult, %[[ITEM]], %c3584 : index
// KERNELS-NEXT: scf.if %[[ISV]] {
// KERNELS-NEXT: %[[VI:.*]] = arith.subi %[[ITEM]], %c2560 : index
// KERNELS-NEXT: scf.if %[[INCACHE]] {
// KERNELS-NEXT: %[[VAL:.*]] = memref.load %arg2[%[[TOKEN]], %[[VI]]] : memref<?x1024xf32>
// KERNELS-NEXT: %[[VB:.*]] = arith.truncf %[[VAL]] : f32 to bf16
// KERNELS-NEXT: memref.store %[[VB]], %arg6[%[[ROW]], %[[VI]]] : memref<4096x1024xbf16>
// KERNELS: gpu.return

// The interleaved kernel: adjacent pairs as 2-element vectors; the ranges
// end at 64, 96, 224, 352 and 416; the copies of the keys' elements past
// rotary_dim go to the cache.
// KERNELS-LABEL: gpu.func @rope_append_interleaved_h4_kv2_d64_r32_dynamic_{{[0-9a-f]+}}_f32_c256_to_f32_i32(
// KERNELS: arith.cmpi ult, %{{.*}}, %c64 : index
// KERNELS: vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<?x256xf32>, vector<2xf32>
// KERNELS: vector.store %{{.*}}, %arg5[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<?x256xf32>, vector<2xf32>
// KERNELS: arith.cmpi ult, %{{.*}}, %c96 : index
// KERNELS: vector.store %{{.*}}, %arg6[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<512x128xf32>, vector<2xf32>
// KERNELS: arith.cmpi ult, %{{.*}}, %c224 : index
// KERNELS: memref.store %{{.*}}, %arg7[%{{.*}}, %{{.*}}] : memref<512x128xf32>
// KERNELS: arith.cmpi ult, %{{.*}}, %c352 : index
// KERNELS: memref.store %{{.*}}, %arg5[%{{.*}}, %{{.*}}] : memref<?x256xf32>
// KERNELS: arith.cmpi ult, %{{.*}}, %c416 : index
// KERNELS: memref.store %{{.*}}, %arg6[%{{.*}}, %{{.*}}] : memref<512x128xf32>

// PTX-LABEL: // ---- llmc: PTX for sm_80
// PTX-LABEL: .entry rope_append_half_h32_kv8_d128_r128_llama3_{{[0-9a-f]+}}_f32_c4096_to_bf16_i32(
// PTX: .maxntid 128, 1, 1
// PTX: cvt.rn.bf16.f32
// PTX-LABEL: // ---- llmc: PTX for sm_90

// PTXAS-DAG: kernel rope_append_half_h32_kv8_d128_r128_llama3_{{[0-9a-f]+}}_f32_c4096_to_bf16_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_append_half_h32_kv8_d128_r128_llama3_{{[0-9a-f]+}}_f32_c4096_to_bf16_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_append_interleaved_h4_kv2_d64_r32_dynamic_{{[0-9a-f]+}}_f32_c256_to_f32_i32 sm_80 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel rope_append_interleaved_h4_kv2_d64_r32_dynamic_{{[0-9a-f]+}}_f32_c256_to_f32_i32 sm_90 regs={{[0-9]+}} smem=0 spill_stores=0 spill_loads=0
