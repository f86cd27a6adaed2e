// A KV cache whose values are its keys (`values = keys`: DeepSeek's latent
// cache, one head [c; k_pe] of kv_lora_rank 512 + qk_rope_head_dim 64 = 576
// per token and layer) on CUDA: one plane of (layers, batch, capacity,
// kv_heads, head row), half the bytes of keys and values stored apart.
// llm.kv_append launches the keys-only append kernel (keys, positions, the
// layer's key rows[, page table]: no values, no value rows); the attention
// kernels take the layer's key view as K and as V, so they read the values
// from the key plane. Contiguous bf16 (27 layers: 27 · 256 · 576 · 2 =
// 7,962,624 bytes, layer 3 at 3 · 294,912) and paged int8 (rows of 576 codes
// + a 4-byte scale: 2 · 256 · 580 = 296,960 bytes, layer 1 at 148,480).
// Every kernel assembles for sm_80 and sm_90 without spills. Numerics:
// simulated-families.test's deepseek cases (whole models on this cache).
// RUN: llmc --compile-to=kernels --target=cuda:sm_80 %s | FileCheck %s --check-prefix=KERNELS
// RUN: llmc --compile-to=ptx --target=cuda:sm_80,sm_90 %s > %t.ptx
// RUN: %python %S/../../lib/ptxas_check.py --arch sm_80 --arch sm_90 < %t.ptx | FileCheck %s --check-prefix=PTXAS

!latent = !llm.kv_cache<layers = 27, batch = 1, kv_heads = 1, head_dim = 576, capacity = 256, element_type = bf16, values = keys>
!latent_i8 = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 576, capacity = 256, element_type = i8, layout = paged, values = keys>

module attributes {llm.model = "t"} {
  func.func private @bf16_prefill(%c: !latent, %q: tensor<1x?x16x576xf32>, %k: tensor<1x?x1x576xbf16>, %p: tensor<1x?xi32>) -> (tensor<1x?x16x576xf32>, !latent) {
    %c1 = llm.kv_append %c[3], %k, %p : !latent, tensor<1x?x1x576xbf16>, tensor<1x?xi32>
    %kv:2 = llm.kv_view %c1[3] : !latent -> tensor<1x256x1x576xbf16>, tensor<1x256x1x576xbf16>
    %0 = llm.attention %q, %kv#0, %kv#1, %p {causal, num_heads = 16 : i64, num_kv_heads = 1 : i64} : tensor<1x?x16x576xf32>, tensor<1x256x1x576xbf16>, tensor<1x256x1x576xbf16>, tensor<1x?xi32> -> tensor<1x?x16x576xf32>
    return %0, %c1 : tensor<1x?x16x576xf32>, !latent
  }
  func.func private @int8_paged_decode(%c: !latent_i8, %t: tensor<1x16xi32>, %q: tensor<1x1x16x576xf32>, %k: tensor<1x1x1x576xf32>, %p: tensor<1x1xi32>) -> (tensor<1x1x16x576xf32>, !latent_i8) {
    %c1 = llm.kv_append %c[1] pages(%t : tensor<1x16xi32>), %k, %p : !latent_i8, tensor<1x1x1x576xf32>, tensor<1x1xi32>
    %kv:2 = llm.kv_view %c1[1] pages(%t : tensor<1x16xi32>) : !latent_i8 -> tensor<1x256x1x576xf32>, tensor<1x256x1x576xf32>
    %0 = llm.attention %q, %kv#0, %kv#1, %p {causal, num_heads = 16 : i64, num_kv_heads = 1 : i64} : tensor<1x1x16x576xf32>, tensor<1x256x1x576xf32>, tensor<1x256x1x576xf32>, tensor<1x1xi32> -> tensor<1x1x16x576xf32>
    return %0, %c1 : tensor<1x1x16x576xf32>, !latent_i8
  }
}

// KERNELS-LABEL: func.func private @bf16_prefill
// KERNELS-SAME: (%[[CACHE:[a-z0-9]+]]: memref<7962624xi8>,
// KERNELS: %[[KV:.*]] = memref.view %[[CACHE]][%c884736][] : memref<7962624xi8> to memref<1x256x1x576xbf16>
// KERNELS-NOT: memref.view %[[CACHE]]
// KERNELS: gpu.launch_func @llmc_kernels::@kv_append_keys_r576_c256_bf16_to_bf16 {{.*}} args(%{{.*}} : memref<?x576xbf16>, %{{.*}} : memref<?xi32>, %{{.*}} : memref<256x576xbf16>)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_prefill_d576_h16_kv1_s256_b1_f32_bf16_causal_posi32 {{.*}} args(%{{.*}} : memref<1x?x16x576xf32>, %[[KV]] : memref<1x256x1x576xbf16>, %[[KV]] : memref<1x256x1x576xbf16>,
// KERNELS-LABEL: func.func private @int8_paged_decode
// KERNELS-SAME: (%[[PCACHE:[a-z0-9]+]]: memref<296960xi8>, %[[TABLE:[a-z0-9]+]]: memref<1x16xi32>,
// KERNELS: %[[PKV:.*]] = memref.view %[[PCACHE]][%c148480][] : memref<296960xi8> to memref<16x16x1x580xi8>
// KERNELS-NOT: memref.view %[[PCACHE]]
// KERNELS: gpu.launch_func @llmc_kernels::@kv_append_keys_r576_c256_pg16_f32_to_i8 {{.*}} args(%{{.*}} : memref<?x576xf32>, %{{.*}} : memref<?xi32>, %{{.*}} : memref<256x580xi8>, %[[TABLE]] : memref<1x16xi32>)
// KERNELS: gpu.launch_func @llmc_kernels::@attention_decode_d576_h16_kv1_s256_pg16_b1_f32_i8_causal_posi32 {{.*}} args(%{{.*}} : memref<1x1x16x576xf32>, %[[PKV]] : memref<16x16x1x580xi8>, %[[PKV]] : memref<16x16x1x580xi8>, %[[TABLE]] : memref<1x16xi32>,
// The append kernels take the keys and store them only: one source, one
// destination.
// KERNELS-LABEL: gpu.func @kv_append_keys_r576_c256_bf16_to_bf16(%{{.*}}: memref<?x576xbf16>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<256x576xbf16>) kernel
// KERNELS: memref.store
// KERNELS-NOT: memref.store
// KERNELS-LABEL: gpu.func @kv_append_keys_r576_c256_pg16_f32_to_i8(%{{.*}}: memref<?x576xf32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<256x580xi8>, %{{.*}}: memref<1x16xi32>) kernel

// PTXAS-DAG: kernel kv_append_keys_r576_c256_bf16_to_bf16 sm_80 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel kv_append_keys_r576_c256_bf16_to_bf16 sm_90 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel kv_append_keys_r576_c256_pg16_f32_to_i8 sm_80 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel kv_append_keys_r576_c256_pg16_f32_to_i8 sm_90 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d576_h16_kv1_s256_b1_f32_bf16_causal_posi32 sm_80 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_prefill_d576_h16_kv1_s256_b1_f32_bf16_causal_posi32 sm_90 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d576_h16_kv1_s256_pg16_b1_f32_i8_causal_posi32 sm_80 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_d576_h16_kv1_s256_pg16_b1_f32_i8_causal_posi32 sm_90 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d576_h16_kv1_s256_b1_f32_i8_causal_posi32 sm_80 {{.*}} spill_stores=0 spill_loads=0
// PTXAS-DAG: kernel attention_decode_combine_d576_h16_kv1_s256_b1_f32_i8_causal_posi32 sm_90 {{.*}} spill_stores=0 spill_loads=0
