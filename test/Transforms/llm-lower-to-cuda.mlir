// llm-lower-to-cuda on the ops whose kernels exist: add, glu, activation
// (element-wise), kv_append and kv_view (the cache, contiguous and paged).
// RUN: llmc-opt %s --llm-lower-to-cuda | FileCheck %s
// The same, with the index arithmetic folded: grid and block sizes and the
// cache's byte offsets as constants.
// RUN: llmc-opt %s --llm-lower-to-cuda --canonicalize | FileCheck %s --check-prefix=FOLD
// The paged view's error: llm-lower-to-cuda-invalid.mlir.

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
!cache16 = !llm.kv_cache<layers = 3, batch = 1, kv_heads = 2, head_dim = 8, capacity = 16, element_type = bf16>
!paged = !llm.kv_cache<layers = 2, batch = 2, kv_heads = 4, head_dim = 8, capacity = 64, element_type = f32, layout = paged, page_size = 16>

// The module becomes a gpu.container_module; tensors become identity-layout
// memrefs, the cache its bytes.
// CHECK: module attributes {gpu.container_module, llm.model = "t"}

// Element-wise ops: the result is a memref.alloc of the input's shape; every
// operand is flattened to memref<?xf32>; 256 threads per block, each on 4
// floats (one 16-byte access) when the innermost extent is a multiple of 4,
// else on one. Two adds with the same types launch one kernel.
// CHECK-LABEL: func.func private @elementwise(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<1x?x64xf32>, %[[B:[a-z0-9]+]]: memref<1x?x64xf32>, %[[C:[a-z0-9]+]]: memref<1x?x6xf32>) -> (memref<1x?x64xf32>, memref<1x?x6xf32>)
// CHECK: %[[T:.*]] = memref.dim %[[A]], %{{.*}} : memref<1x?x64xf32>
// CHECK: %[[SUM:.*]] = memref.alloc(%[[T]]) : memref<1x?x64xf32>
// CHECK: %[[AF:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1, 2]] : memref<1x?x64xf32> into memref<?xf32>
// CHECK: %[[BF:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1, 2]] : memref<1x?x64xf32> into memref<?xf32>
// CHECK: %[[SUMF:.*]] = memref.collapse_shape %[[SUM]] {{\[\[}}0, 1, 2]] : memref<1x?x64xf32> into memref<?xf32>
// CHECK: %[[N:.*]] = memref.dim %[[SUMF]], %{{.*}} : memref<?xf32>
// CHECK: %[[NR:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK: %[[VECS:.*]] = arith.divui %[[NR]], %{{.*}} : index
// CHECK: %[[VR:.*]] = arith.addi %[[VECS]], %{{.*}} : index
// CHECK: %[[GRID:.*]] = arith.divui %[[VR]], %{{.*}} : index
// CHECK: gpu.launch_func @llmc_kernels::@add_f32_v4 blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%[[AF]] : memref<?xf32>, %[[BF]] : memref<?xf32>, %[[SUMF]] : memref<?xf32>)
// CHECK: %[[SUM2:.*]] = memref.alloc(%[[T]]) : memref<1x?x64xf32>
// CHECK: gpu.launch_func @llmc_kernels::@add_f32_v4 {{.*}} args(%{{.*}} : memref<?xf32>, %{{.*}} : memref<?xf32>, %{{.*}} : memref<?xf32>)
// CHECK: %[[GLU:.*]] = memref.alloc(%[[T]]) : memref<1x?x64xf32>
// CHECK: gpu.launch_func @llmc_kernels::@glu_silu_f32_v4 {{.*}} args(%{{.*}} : memref<?xf32>, %{{.*}} : memref<?xf32>, %{{.*}} : memref<?xf32>)
// CHECK: %[[GLU2:.*]] = memref.alloc(%[[T]]) : memref<1x?x64xf32>
// CHECK: gpu.launch_func @llmc_kernels::@glu_gelu_tanh_f32_v4
// CHECK: %[[T6:.*]] = memref.dim %[[C]], %{{.*}} : memref<1x?x6xf32>
// CHECK: %[[ACT:.*]] = memref.alloc(%[[T6]]) : memref<1x?x6xf32>
// CHECK: gpu.launch_func @llmc_kernels::@activation_relu_f32_v1 {{.*}} args(%{{.*}} : memref<?xf32>, %{{.*}} : memref<?xf32>)
// CHECK: return %[[GLU2]], %[[ACT]] : memref<1x?x64xf32>, memref<1x?x6xf32>

// FOLD-LABEL: func.func private @elementwise(
// FOLD-DAG: %[[C256:.*]] = arith.constant 256 : index
// FOLD-DAG: %[[C4:.*]] = arith.constant 4 : index
// FOLD-DAG: %[[C1:.*]] = arith.constant 1 : index
// FOLD: %[[NR:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// FOLD: %[[VECS:.*]] = arith.divui %[[NR]], %[[C4]] : index
// FOLD: %[[VR:.*]] = arith.addi %[[VECS]], %{{.*}} : index
// FOLD: %[[GRID:.*]] = arith.divui %[[VR]], %[[C256]] : index
// FOLD: gpu.launch_func @llmc_kernels::@add_f32_v4 blocks in (%[[GRID]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// FOLD: memref.alloc(%{{.*}}) : memref<1x?x6xf32>
// FOLD: %[[N1:.*]] = memref.dim %{{.*}} : memref<?xf32>
// FOLD: %[[N1R:.*]] = arith.addi %[[N1]], %{{.*}} : index
// FOLD: %[[GRID1:.*]] = arith.divui %[[N1R]], %[[C256]] : index
// FOLD: gpu.launch_func @llmc_kernels::@activation_relu_f32_v1 blocks in (%[[GRID1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
module attributes {llm.model = "t"} {
  func.func private @elementwise(%a: tensor<1x?x64xf32>, %b: tensor<1x?x64xf32>, %c: tensor<1x?x6xf32>) -> (tensor<1x?x64xf32>, tensor<1x?x6xf32>) {
    %0 = llm.add %a, %b : tensor<1x?x64xf32>
    %1 = llm.add %0, %b : tensor<1x?x64xf32>
    %2 = llm.glu silu %1, %b : tensor<1x?x64xf32>
    %3 = llm.glu gelu_tanh %2, %a : tensor<1x?x64xf32>
    %4 = llm.activation relu %c : tensor<1x?x6xf32>
    return %3, %4 : tensor<1x?x64xf32>, tensor<1x?x6xf32>
  }

// kv_append: keys, values (token, kv_heads·head_dim) and positions (token)
// are flattened; the layer's keys and values are memref.views of the cache
// bytes, keys at ((0·layers + layer) · layer_bytes), values at ((1·layers +
// layer) · layer_bytes), layer_bytes = batch·capacity·kv_heads·head_dim·4 =
// 65536 here; one block of 256 threads per token. kv_view is the same two
// views; the cache comes back unchanged (it is written in place).
// CHECK-LABEL: func.func private @cache(
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: memref<262144xi8>, %[[K:[a-z0-9]+]]: memref<1x?x4x8xf32>, %[[V:[a-z0-9]+]]: memref<1x?x4x8xf32>, %[[POS:[a-z0-9]+]]: memref<1x?xi32>) -> (memref<1x512x4x8xf32>, memref<1x512x4x8xf32>, memref<262144xi8>)
// CHECK: %[[KR:.*]] = memref.collapse_shape %[[K]] {{\[\[}}0, 1], [2, 3]] : memref<1x?x4x8xf32> into memref<?x32xf32>
// CHECK: %[[VR:.*]] = memref.collapse_shape %[[V]] {{\[\[}}0, 1], [2, 3]] : memref<1x?x4x8xf32> into memref<?x32xf32>
// CHECK: %[[P:.*]] = memref.collapse_shape %[[POS]] {{\[\[}}0, 1]] : memref<1x?xi32> into memref<?xi32>
// CHECK: %[[KVIEW:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<262144xi8> to memref<1x512x4x8xf32>
// CHECK: %[[KL:.*]] = memref.collapse_shape %[[KVIEW]] {{\[\[}}0, 1], [2, 3]] : memref<1x512x4x8xf32> into memref<512x32xf32>
// CHECK: %[[VVIEW:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<262144xi8> to memref<1x512x4x8xf32>
// CHECK: %[[VL:.*]] = memref.collapse_shape %[[VVIEW]] {{\[\[}}0, 1], [2, 3]] : memref<1x512x4x8xf32> into memref<512x32xf32>
// CHECK: %[[TOKENS:.*]] = memref.dim %[[P]], %{{.*}} : memref<?xi32>
// CHECK: gpu.launch_func @llmc_kernels::@kv_append_r32_c512_f32_to_f32 blocks in (%[[TOKENS]], %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%[[KR]] : memref<?x32xf32>, %[[VR]] : memref<?x32xf32>, %[[P]] : memref<?xi32>, %[[KL]] : memref<512x32xf32>, %[[VL]] : memref<512x32xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[KOUT:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<262144xi8> to memref<1x512x4x8xf32>
// CHECK: %[[VOUT:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<262144xi8> to memref<1x512x4x8xf32>
// CHECK: return %[[KOUT]], %[[VOUT]], %[[CACHE]] : memref<1x512x4x8xf32>, memref<1x512x4x8xf32>, memref<262144xi8>

// FOLD-LABEL: func.func private @cache(
// FOLD-DAG: %[[VOFF:.*]] = arith.constant 196608 : index
// FOLD-DAG: %[[KOFF:.*]] = arith.constant 65536 : index
// FOLD-DAG: %[[C256:.*]] = arith.constant 256 : index
// FOLD-DAG: %[[C1:.*]] = arith.constant 1 : index
// FOLD: memref.view %{{.*}}[%[[KOFF]]][] : memref<262144xi8> to memref<1x512x4x8xf32>
// FOLD: memref.view %{{.*}}[%[[VOFF]]][] : memref<262144xi8> to memref<1x512x4x8xf32>
// FOLD: gpu.launch_func @llmc_kernels::@kv_append_r32_c512_f32_to_f32 blocks in (%{{.*}}, %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// FOLD: memref.view %{{.*}}[%[[KOFF]]][] : memref<262144xi8> to memref<1x512x4x8xf32>
// FOLD: memref.view %{{.*}}[%[[VOFF]]][] : memref<262144xi8> to memref<1x512x4x8xf32>
  func.func private @cache(%c: !cache, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>) -> (tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, !cache) {
    %c1 = llm.kv_append %c[1], %k, %v, %pos : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
    %kv:2 = llm.kv_view %c1[1] : !cache -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
    return %kv#0, %kv#1, %c1 : tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, !cache
  }

// A layer index given at run time (the shared layer function's argument)
// and a bf16 cache: offsets layer · 512 and (3 + layer) · 512 bytes
// (16 positions · 2 heads · 8 · 2 bytes).
// FOLD-LABEL: func.func private @cache_layer(
// FOLD-SAME: %[[CACHE:[a-z0-9]+]]: memref<3072xi8>, %{{.*}}: memref<1x?x2x8xbf16>, %{{.*}}: memref<1x?xi32>, %[[LAYER:[a-z0-9]+]]: index) -> (memref<1x16x2x8xbf16>, memref<3072xi8>)
// FOLD-DAG: %[[C512:.*]] = arith.constant 512 : index
// FOLD-DAG: %[[C3:.*]] = arith.constant 3 : index
// FOLD: %[[KOFF:.*]] = arith.muli %[[LAYER]], %[[C512]] : index
// FOLD: memref.view %[[CACHE]][%[[KOFF]]][] : memref<3072xi8> to memref<1x16x2x8xbf16>
// FOLD: %[[VSLOT:.*]] = arith.addi %[[LAYER]], %[[C3]] : index
// FOLD: %[[VOFF:.*]] = arith.muli %[[VSLOT]], %[[C512]] : index
// FOLD: memref.view %[[CACHE]][%[[VOFF]]][] : memref<3072xi8> to memref<1x16x2x8xbf16>
// FOLD: gpu.launch_func @llmc_kernels::@kv_append_r16_c16_bf16_to_bf16 {{.*}} args(%{{.*}} : memref<?x16xbf16>, %{{.*}} : memref<?x16xbf16>, %{{.*}} : memref<?xi32>, %{{.*}} : memref<16x16xbf16>, %{{.*}} : memref<16x16xbf16>)
// FOLD: return %{{.*}}, %[[CACHE]] : memref<1x16x2x8xbf16>, memref<3072xi8>
  func.func private @cache_layer(%c: !cache16, %k: tensor<1x?x2x8xbf16>, %pos: tensor<1x?xi32>, %layer: index) -> (tensor<1x16x2x8xbf16>, !cache16) {
    %c1 = llm.kv_append %c[%layer], %k, %k, %pos : !cache16, tensor<1x?x2x8xbf16>, tensor<1x?x2x8xbf16>, tensor<1x?xi32>
    %kv:2 = llm.kv_view %c1[%layer] : !cache16 -> tensor<1x16x2x8xbf16>, tensor<1x16x2x8xbf16>
    return %kv#1, %c1 : tensor<1x16x2x8xbf16>, !cache16
  }

// f32 keys and values into the bf16 cache (a prefill's append without
// fusion): the append kernel rounds them as it stores them (_f32_to_bf16),
// no conversion kernel before it.
// FOLD-LABEL: func.func private @cache_rounding(
// FOLD-NOT: @convert
// FOLD: gpu.launch_func @llmc_kernels::@kv_append_r16_c16_f32_to_bf16 {{.*}} args(%{{.*}} : memref<?x16xf32>, %{{.*}} : memref<?x16xf32>, %{{.*}} : memref<?xi32>, %{{.*}} : memref<16x16xbf16>, %{{.*}} : memref<16x16xbf16>)
  func.func private @cache_rounding(%c: !cache16, %k: tensor<1x?x2x8xf32>, %v: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) -> !cache16 {
    %c1 = llm.kv_append %c[1], %k, %v, %pos : !cache16, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?xi32>
    return %c1 : !cache16
  }

// A paged cache: the same bytes (2 · 2 layers · 8 pages · 16 slots · 32 f32),
// each layer's keys and values viewed as its page pool (pages, page_size,
// kv_heads, head_dim), 16384 bytes apart; the page table is a plain buffer
// that the append and attention kernels (tagged _pg16) take after the
// cache buffers. The kv_view is not materialized: attention reads the
// pools through the table.
// CHECK-LABEL: func.func private @paged(
// CHECK-SAME: %[[CACHE:[a-z0-9]+]]: memref<65536xi8>, %[[TABLE:[a-z0-9]+]]: memref<2x4xi32>,
// CHECK: %[[KPOOL:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<65536xi8> to memref<8x16x4x8xf32>
// CHECK: %[[KROWS:.*]] = memref.collapse_shape %[[KPOOL]] {{\[\[}}0, 1], [2, 3]] : memref<8x16x4x8xf32> into memref<128x32xf32>
// CHECK: %[[VPOOL:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<65536xi8> to memref<8x16x4x8xf32>
// CHECK: %[[VROWS:.*]] = memref.collapse_shape %[[VPOOL]] {{\[\[}}0, 1], [2, 3]] : memref<8x16x4x8xf32> into memref<128x32xf32>
// CHECK: gpu.launch_func @llmc_kernels::@kv_append_r32_c64_pg16_f32_to_f32 {{.*}} args(%{{.*}} : memref<?x32xf32>, %{{.*}} : memref<?x32xf32>, %{{.*}} : memref<?xi32>, %[[KROWS]] : memref<128x32xf32>, %[[VROWS]] : memref<128x32xf32>, %[[TABLE]] : memref<2x4xi32>)
// CHECK-NOT: llm.kv_view
// CHECK: %[[K:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<65536xi8> to memref<8x16x4x8xf32>
// CHECK: %[[V:.*]] = memref.view %[[CACHE]][%{{.*}}][] : memref<65536xi8> to memref<8x16x4x8xf32>
// CHECK: gpu.launch_func @llmc_kernels::@attention_decode_d8_h8_kv4_s64_pg16_b2_f32_f32_causal_posi32 {{.*}} args(%{{.*}} : memref<2x1x8x8xf32>, %[[K]] : memref<8x16x4x8xf32>, %[[V]] : memref<8x16x4x8xf32>, %[[TABLE]] : memref<2x4xi32>, %{{.*}} : memref<2x1xi32>,
// CHECK: gpu.launch_func @llmc_kernels::@attention_decode_combine_d8_h8_kv4_s64_b2_f32_f32_causal_posi32
// CHECK-NOT: unrealized_conversion_cast
// CHECK: return %{{.*}}, %[[CACHE]] : memref<2x1x8x8xf32>, memref<65536xi8>

// FOLD-LABEL: func.func private @paged(
// FOLD-SAME: %[[CACHE:[a-z0-9]+]]: memref<65536xi8>, %{{.*}}: memref<2x4xi32>, %{{.*}}: memref<2x1x4x8xf32>, %{{.*}}: memref<2x1x4x8xf32>, %{{.*}}: memref<2x1xi32>, %{{.*}}: memref<2x1x8x8xf32>, %[[LAYER:[a-z0-9]+]]: index)
// FOLD-DAG: %[[C16384:.*]] = arith.constant 16384 : index
// FOLD-DAG: %[[C2:.*]] = arith.constant 2 : index
// FOLD: %[[KOFF:.*]] = arith.muli %[[LAYER]], %[[C16384]] : index
// FOLD: memref.view %[[CACHE]][%[[KOFF]]][] : memref<65536xi8> to memref<8x16x4x8xf32>
// FOLD: %[[VSLOT:.*]] = arith.addi %[[LAYER]], %[[C2]] : index
// FOLD: %[[VOFF:.*]] = arith.muli %[[VSLOT]], %[[C16384]] : index
// FOLD: memref.view %[[CACHE]][%[[VOFF]]][] : memref<65536xi8> to memref<8x16x4x8xf32>
  func.func private @paged(%c: !paged, %t: tensor<2x4xi32>, %k: tensor<2x1x4x8xf32>, %v: tensor<2x1x4x8xf32>, %pos: tensor<2x1xi32>, %q: tensor<2x1x8x8xf32>, %layer: index) -> (tensor<2x1x8x8xf32>, !paged) {
    %c1 = llm.kv_append %c[%layer] pages(%t : tensor<2x4xi32>), %k, %v, %pos : !paged, tensor<2x1x4x8xf32>, tensor<2x1x4x8xf32>, tensor<2x1xi32>
    %kv:2 = llm.kv_view %c1[%layer] pages(%t : tensor<2x4xi32>) : !paged -> tensor<2x64x4x8xf32>, tensor<2x64x4x8xf32>
    %0 = llm.attention %q, %kv#0, %kv#1, %pos {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64} : tensor<2x1x8x8xf32>, tensor<2x64x4x8xf32>, tensor<2x64x4x8xf32>, tensor<2x1xi32> -> tensor<2x1x8x8xf32>
    return %0, %c1 : tensor<2x1x8x8xf32>, !paged
  }
}

// The kernels, one per name, in gpu.module @llmc_kernels.
// CHECK-LABEL: gpu.module @llmc_kernels
// Element-wise: thread (block·256 + tid) handles elements [4·i, 4·i + 4)
// when they are in range, with 16-byte vector accesses.
// CHECK: gpu.func @add_f32_v4(%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?xf32>) kernel
// CHECK: %[[LEN:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %{{.*}} : index
// CHECK: %[[THREAD:.*]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[THREAD]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[FIRST]], %[[LEN]] : index
// CHECK: scf.if %[[IN]] {
// CHECK: %[[XV:.*]] = vector.load %[[X]][%[[FIRST]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: %[[YV:.*]] = vector.load %[[Y]][%[[FIRST]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[XV]], %[[YV]] : vector<4xf32>
// CHECK: vector.store %[[S]], %[[OUT]][%[[FIRST]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: gpu.return
// CHECK-NOT: gpu.func @add_f32_v4
// silu(gate) · up, lane by lane.
// CHECK: gpu.func @glu_silu_f32_v4(
// CHECK-COUNT-4: math.exp
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: gpu.func @glu_gelu_tanh_f32_v4(
// CHECK-COUNT-4: math.tanh
// A 6-wide row: one element per thread, 4-byte accesses.
// CHECK: gpu.func @activation_relu_f32_v1(
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<?xf32>, vector<1xf32>
// CHECK: arith.maximumf
// kv_append: block b copies token b's row to cache row (batch · capacity +
// position), skipping positions at or past the capacity.
// CHECK: gpu.func @kv_append_r32_c512_f32_to_f32(%[[KS:.*]]: memref<?x32xf32>, %[[VS:.*]]: memref<?x32xf32>, %[[PS:.*]]: memref<?xi32>, %[[KC:.*]]: memref<512x32xf32>, %[[VC:.*]]: memref<512x32xf32>) kernel
// CHECK: %[[TOK:.*]] = gpu.block_id x
// CHECK: %[[P32:.*]] = memref.load %[[PS]][%[[TOK]]] : memref<?xi32>
// CHECK: %[[PI:.*]] = arith.index_cast %[[P32]] : i32 to index
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[PI]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[PI]] : index
// CHECK: scf.if %[[OK]] {
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[KX:.*]] = memref.load %[[KS]][%[[TOK]], %[[COL]]] : memref<?x32xf32>
// CHECK: memref.store %[[KX]], %[[KC]][%[[ROW]], %[[COL]]] : memref<512x32xf32>
// CHECK: %[[VX:.*]] = memref.load %[[VS]][%[[TOK]], %[[COL]]] : memref<?x32xf32>
// CHECK: memref.store %[[VX]], %[[VC]][%[[ROW]], %[[COL]]] : memref<512x32xf32>
// CHECK: gpu.func @kv_append_r16_c16_bf16_to_bf16(
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<16x16xbf16>
// CHECK: gpu.func @kv_append_r16_c16_f32_to_bf16(%[[KS:.*]]: memref<?x16xf32>, %{{.*}}: memref<?x16xf32>, %{{.*}}: memref<?xi32>, %[[KC:.*]]: memref<16x16xbf16>, %{{.*}}: memref<16x16xbf16>) kernel
// CHECK: %[[KX:.*]] = memref.load %[[KS]][%{{.*}}, %{{.*}}] : memref<?x16xf32>
// CHECK: %[[KB:.*]] = arith.truncf %[[KX]] : f32 to bf16
// CHECK: memref.store %[[KB]], %[[KC]][%{{.*}}, %{{.*}}] : memref<16x16xbf16>
// Paged: the row is page · page_size + slot of page table[b, position /
// 16] (read at the position clamped to the capacity), written only inside
// the capacity and for a page id in [0, 8) (unsigned: a negative id fails).
// CHECK: gpu.func @kv_append_r32_c64_pg16_f32_to_f32(%[[KS:.*]]: memref<?x32xf32>, %[[VS:.*]]: memref<?x32xf32>, %[[PS:.*]]: memref<?xi32>, %[[KC:.*]]: memref<128x32xf32>, %[[VC:.*]]: memref<128x32xf32>, %[[PT:.*]]: memref<2x4xi32>) kernel
// CHECK: %[[TOK:.*]] = gpu.block_id x
// CHECK: %[[SEQ:.*]] = arith.divui %[[TOK]], %{{.*}} : index
// CHECK: %[[P32:.*]] = memref.load %[[PS]][%[[TOK]]] : memref<?xi32>
// CHECK: %[[PI:.*]] = arith.index_cast %[[P32]] : i32 to index
// CHECK: %[[INCAP:.*]] = arith.cmpi ult, %[[PI]], %c64 : index
// CHECK: %[[SAFE:.*]] = arith.minui %[[PI]], %c63 : index
// CHECK: %[[COL:.*]] = arith.divui %[[SAFE]], %c16 : index
// CHECK: %[[PAGE32:.*]] = memref.load %[[PT]][%[[SEQ]], %[[COL]]] : memref<2x4xi32>
// CHECK: %[[PAGE:.*]] = arith.index_cast %[[PAGE32]] : i32 to index
// CHECK: %[[SLOT:.*]] = arith.remui %[[SAFE]], %c16 : index
// CHECK: %[[INPOOL:.*]] = arith.cmpi ult, %[[PAGE]], %c8 : index
// CHECK: %[[OK:.*]] = arith.andi %[[INCAP]], %[[INPOOL]] : i1
// CHECK: %[[BASE:.*]] = arith.muli %[[PAGE]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %[[BASE]], %[[SLOT]] : index
// CHECK: scf.if %[[OK]] {
// CHECK: memref.store %{{.*}}, %[[KC]][%[[ROW]], %{{.*}}] : memref<128x32xf32>
// CHECK: memref.store %{{.*}}, %[[VC]][%[[ROW]], %{{.*}}] : memref<128x32xf32>
