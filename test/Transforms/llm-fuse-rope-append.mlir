// RUN: llmc-opt %s -split-input-file --llm-fuse-rope-append | FileCheck %s

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = bf16>

// A decode layer with a bf16 cache (the append takes f32 keys and values and
// rounds them): both rotations and the append become one op; the attention
// reads its rotated queries.
// CHECK-LABEL: func @layer
// CHECK-SAME: (%[[C:.*]]: !{{.*}}, %[[Q:.*]]: tensor<1x1x8x8xf32>, %[[K:.*]]: tensor<1x1x4x8xf32>, %[[V:.*]]: tensor<1x1x4x8xf32>, %[[P:.*]]: tensor<1x1xi32>, %[[L:.*]]: index)
func.func @layer(%c: !cache, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %p: tensor<1x1xi32>, %l: index) -> (tensor<1x1x8x8xf32>, !cache) {
  // CHECK-NOT: llm.rope
  // CHECK: %[[QR:.*]], %[[C1:.*]] = llm.rope_append half %[[C]][%[[L]]], %[[Q]], %[[K]], %[[V]], %[[P]] {rotary_dim = 8 : i64, scaling = #llm.rope_llama3<factor = 8.000000e+00, original_max_position_embeddings = 8192>, theta = 5.000000e+05 : f64}
  %qr = llm.rope half %q, %p {theta = 5.0e+05 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_llama3<factor = 8.0, low_freq_factor = 1.0, high_freq_factor = 4.0, original_max_position_embeddings = 8192>} : tensor<1x1x8x8xf32>, tensor<1x1xi32>
  %kr = llm.rope half %k, %p {theta = 5.0e+05 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_llama3<factor = 8.0, low_freq_factor = 1.0, high_freq_factor = 4.0, original_max_position_embeddings = 8192>} : tensor<1x1x4x8xf32>, tensor<1x1xi32>
  %c1 = llm.kv_append %c[%l], %kr, %v, %p : !cache, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1xi32>
  // CHECK: %[[KEYS:.*]], %[[VALUES:.*]] = llm.kv_view %[[C1]][%[[L]]]
  // CHECK: llm.attention %[[QR]], %[[KEYS]], %[[VALUES]]
  %keys, %values = llm.kv_view %c1[%l] : !cache -> tensor<1x16x4x8xbf16>, tensor<1x16x4x8xbf16>
  %o = llm.attention %qr, %keys, %values, %p {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64} : tensor<1x1x8x8xf32>, tensor<1x16x4x8xbf16>, tensor<1x16x4x8xbf16>, tensor<1x1xi32> -> tensor<1x1x8x8xf32>
  return %o, %c1 : tensor<1x1x8x8xf32>, !cache
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 32, element_type = f32, layout = paged>

// A paged cache: the fused op takes the append's page table.
// CHECK-LABEL: func @paged
// CHECK-SAME: %[[T:[^:]*]]: tensor<1x2xi32>
// CHECK: llm.rope_append half %{{.*}}[1] pages(%[[T]] : tensor<1x2xi32>), %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}
// CHECK: llm.kv_view %{{.*}}[1] pages(%[[T]] : tensor<1x2xi32>)
func.func @paged(%c: !paged, %t: tensor<1x2xi32>, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x8x8xf32>, tensor<1x32x4x8xf32>) {
  %q1 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  %k1 = llm.rope half %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %c1 = llm.kv_append %c[1] pages(%t : tensor<1x2xi32>), %k1, %v, %p : !paged, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %keys, %values = llm.kv_view %c1[1] pages(%t : tensor<1x2xi32>) : !paged -> tensor<1x32x4x8xf32>, tensor<1x32x4x8xf32>
  return %q1, %keys : tensor<1x?x8x8xf32>, tensor<1x32x4x8xf32>
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>

// Left alone: queries rotated another way (interleaved).
// CHECK-LABEL: func @other_rotation
// CHECK-NOT: llm.rope_append
func.func @other_rotation(%c: !cache, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x8x8xf32>, !cache) {
  %q1 = llm.rope interleaved %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  %k1 = llm.rope half %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %c1 = llm.kv_append %c[0], %k1, %v, %p : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return %q1, %c1 : tensor<1x?x8x8xf32>, !cache
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>

// Left alone: the queries' rotation used before the append.
// CHECK-LABEL: func @used_before
// CHECK-NOT: llm.rope_append
func.func @used_before(%c: !cache, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x8x8xf32>, !cache) {
  %q1 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  %u = llm.add %q1, %q1 : tensor<1x?x8x8xf32>
  %k1 = llm.rope half %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %c1 = llm.kv_append %c[0], %k1, %v, %p : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return %u, %c1 : tensor<1x?x8x8xf32>, !cache
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>

// Left alone: rotated keys with another use.
// CHECK-LABEL: func @keys_used_twice
// CHECK-NOT: llm.rope_append
func.func @keys_used_twice(%c: !cache, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x8x8xf32>, !cache, tensor<1x?x4x8xf32>) {
  %q1 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  %k1 = llm.rope half %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %c1 = llm.kv_append %c[0], %k1, %v, %p : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return %q1, %c1, %k1 : tensor<1x?x8x8xf32>, !cache, tensor<1x?x4x8xf32>
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = bf16>

// Left alone: keys and values narrowed before the append (an arith.truncf
// between the keys' rotation and the append): the fused op takes the
// rotation's f32 keys only.
// CHECK-LABEL: func @narrowed_before_append
// CHECK-NOT: llm.rope_append
func.func @narrowed_before_append(%c: !cache, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %p: tensor<1x?xi32>) -> (tensor<1x?x8x8xf32>, !cache) {
  %q1 = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  %k1 = llm.rope half %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %kb = arith.truncf %k1 : tensor<1x?x4x8xf32> to tensor<1x?x4x8xbf16>
  %vb = arith.truncf %v : tensor<1x?x4x8xf32> to tensor<1x?x4x8xbf16>
  %c1 = llm.kv_append %c[0], %kb, %vb, %p : !cache, tensor<1x?x4x8xbf16>, tensor<1x?x4x8xbf16>, tensor<1x?xi32>
  return %q1, %c1 : tensor<1x?x8x8xf32>, !cache
}

// -----

!latent = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32, values = keys>

// A cache whose values are its keys takes no values: its append of rotated
// keys stays an llm.kv_append (llm.rope_append stores values apart), and
// both rotations stay.
// CHECK-LABEL: func @values_are_keys
// CHECK: %[[QR:.*]] = llm.rope half
// CHECK: %[[KR:.*]] = llm.rope half
// CHECK: llm.kv_append %{{.*}}[%{{.*}}], %[[KR]], %{{.*}} : !{{.*}}, tensor<1x1x1x8xf32>, tensor<1x1xi32>
// CHECK-NOT: llm.rope_append
func.func @values_are_keys(%c: !latent, %q: tensor<1x1x2x8xf32>, %k: tensor<1x1x1x8xf32>, %p: tensor<1x1xi32>, %l: index) -> (tensor<1x1x2x8xf32>, !latent) {
  %qr = llm.rope half %q, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x1x2x8xf32>, tensor<1x1xi32>
  %kr = llm.rope half %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x1x1x8xf32>, tensor<1x1xi32>
  %c1 = llm.kv_append %c[%l], %kr, %p : !latent, tensor<1x1x1x8xf32>, tensor<1x1xi32>
  %keys, %values = llm.kv_view %c1[%l] : !latent -> tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>
  %o = llm.attention %qr, %keys, %values, %p {causal, num_heads = 2 : i64, num_kv_heads = 1 : i64} : tensor<1x1x2x8xf32>, tensor<1x16x1x8xf32>, tensor<1x16x1x8xf32>, tensor<1x1xi32> -> tensor<1x1x2x8xf32>
  return %o, %c1 : tensor<1x1x2x8xf32>, !latent
}
