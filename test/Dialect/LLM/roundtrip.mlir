// Every `llm` op, attribute and type prints and parses back unchanged, in the
// custom and in the generic form.
// RUN: llmc-opt %s | llmc-opt | FileCheck %s
// RUN: llmc-opt %s --mlir-print-op-generic | llmc-opt | FileCheck %s

// CHECK: !kv_cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
// CHECK: !kv_cache1 = !llm.kv_cache<layers = 32, batch = 4, kv_heads = 8, head_dim = 128, capacity = 8192, element_type = bf16, layout = paged>
// CHECK: !kv_cache2 = !llm.kv_cache<layers = 1, batch = 1, kv_heads = 1, head_dim = 64, capacity = 4096, element_type = f16, layout = paged, page_size = 64>
// CHECK: !kv_cache3 = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = i8>
// CHECK: !kv_cache4 = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f8E4M3FN, layout = paged>
// A cache whose values are its keys prints `values = keys` (the default,
// `separate`, is not printed).
// CHECK: !kv_cache{{[0-9]+}} = !llm.kv_cache<layers = 27, batch = 1, kv_heads = 1, head_dim = 576, capacity = 64, element_type = bf16, values = keys>
// CHECK: !kv_cache{{[0-9]+}} = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 576, capacity = 64, element_type = i8, layout = paged, values = keys>
!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
!paged = !llm.kv_cache<layers = 32, batch = 4, kv_heads = 8, head_dim = 128, capacity = 8192, element_type = bf16, layout = paged>
!paged64 = !llm.kv_cache<layers = 1, batch = 1, kv_heads = 1, head_dim = 64, capacity = 4096, element_type = f16, layout = paged, page_size = 64>

// CHECK-LABEL: func @embedding
func.func @embedding(%tokens: tensor<1x?xi32>, %table: tensor<512x64xf32>, %bf16: tensor<32000x4096xbf16>, %t2: tensor<4x7xi64>) {
  // CHECK: llm.embedding %{{.*}}, %{{.*}} : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x?x64xf32>
  %0 = llm.embedding %tokens, %table : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x?x64xf32>
  // CHECK: llm.embedding %{{.*}}, %{{.*}} : tensor<4x7xi64>, tensor<32000x4096xbf16> -> tensor<4x7x4096xf32>
  %1 = llm.embedding %t2, %bf16 : tensor<4x7xi64>, tensor<32000x4096xbf16> -> tensor<4x7x4096xf32>
  // Gemma's scaled embedding.
  // CHECK: llm.embedding %{{.*}}, %{{.*}} {scale = 6.400000e+01 : f64} : tensor<4x7xi64>, tensor<32000x4096xbf16> -> tensor<4x7x4096xf32>
  %2 = llm.embedding %t2, %bf16 {scale = 64.0 : f64} : tensor<4x7xi64>, tensor<32000x4096xbf16> -> tensor<4x7x4096xf32>
  return
}

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<1x?x64xf32>, %w: tensor<64xf32>, %b: tensor<64xf32>, %wbf: tensor<64xbf16>) {
  // CHECK: llm.rms_norm %{{.*}}, %{{.*}} {eps = 9.9999999999999995E-7 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  %0 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  // CHECK: llm.rms_norm %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64} : tensor<1x?x64xf32>, tensor<64xbf16> -> tensor<1x?x64xf32>
  %1 = llm.rms_norm %x, %wbf {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xbf16> -> tensor<1x?x64xf32>
  // CHECK: llm.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  %2 = llm.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  // CHECK: llm.layer_norm %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  %3 = llm.layer_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  // Gemma's (1 + w) norm; an offset of 0 (the default) is elided.
  // CHECK: llm.rms_norm %{{.*}}, %{{.*}} {eps = 9.9999999999999995E-7 : f64, weight_offset = 1.000000e+00 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  %4 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  // CHECK: llm.rms_norm %{{.*}}, %{{.*}} {eps = 9.9999999999999995E-7 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  %5 = llm.rms_norm %x, %w {eps = 1.0e-06 : f64, weight_offset = 0.0 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  return
}

// Per-head (Qwen3's q/k norm: weight of Dh) and whole-projection (OLMo2:
// weight of H·Dh) RMSNorms.
// CHECK-LABEL: func @norms_of_heads
func.func @norms_of_heads(%qh: tensor<1x?x8x16xf32>, %wh: tensor<16xf32>, %q: tensor<1x1x128xf32>, %wq: tensor<128xbf16>) {
  // CHECK: llm.rms_norm %{{.*}}, %{{.*}} {eps = 9.9999999999999995E-7 : f64} : tensor<1x?x8x16xf32>, tensor<16xf32> -> tensor<1x?x8x16xf32>
  %0 = llm.rms_norm %qh, %wh {eps = 1.0e-06 : f64} : tensor<1x?x8x16xf32>, tensor<16xf32> -> tensor<1x?x8x16xf32>
  // CHECK: llm.rms_norm %{{.*}}, %{{.*}} {eps = 9.9999999999999995E-7 : f64} : tensor<1x1x128xf32>, tensor<128xbf16> -> tensor<1x1x128xf32>
  %1 = llm.rms_norm %q, %wq {eps = 1.0e-06 : f64} : tensor<1x1x128xf32>, tensor<128xbf16> -> tensor<1x1x128xf32>
  return
}

// CHECK-LABEL: func @head_linear
func.func @head_linear(%latent: tensor<1x?x4x32xf32>, %wuv: tensor<64x32xf32>, %qnope: tensor<1x?x4x16xf32>, %wuk: tensor<64x32xbf16>) {
  // CHECK: llm.head_linear %{{.*}}, %{{.*}} : tensor<1x?x4x32xf32>, tensor<64x32xf32> -> tensor<1x?x4x16xf32>
  %0 = llm.head_linear %latent, %wuv : tensor<1x?x4x32xf32>, tensor<64x32xf32> -> tensor<1x?x4x16xf32>
  // CHECK: llm.head_linear %{{.*}}, %{{.*}} {transpose_weight} : tensor<1x?x4x16xf32>, tensor<64x32xbf16> -> tensor<1x?x4x32xf32>
  %1 = llm.head_linear %qnope, %wuk {transpose_weight} : tensor<1x?x4x16xf32>, tensor<64x32xbf16> -> tensor<1x?x4x32xf32>
  return
}

// CHECK-LABEL: func @projections
func.func @projections(%x: tensor<1x?x896xf32>, %wk: tensor<128x896xbf16>, %bk: tensor<128xbf16>, %table: tensor<151936x896xbf16>, %h: tensor<3x896xf32>, %vb: tensor<151936xf32>) {
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x896xf32>, tensor<128x896xbf16> -> tensor<1x?x128xf32>
  %0 = llm.linear %x, %wk : tensor<1x?x896xf32>, tensor<128x896xbf16> -> tensor<1x?x128xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x?x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> -> tensor<1x?x128xf32>
  %1 = llm.linear %x, %wk, %bk : tensor<1x?x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> -> tensor<1x?x128xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}}, %{{.*}} residual %{{.*}} : tensor<1x?x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> residual tensor<1x?x128xf32> -> tensor<1x?x128xf32>
  %r = llm.linear %x, %wk, %bk residual %1 : tensor<1x?x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> residual tensor<1x?x128xf32> -> tensor<1x?x128xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} residual %{{.*}} : tensor<1x?x896xf32>, tensor<128x896xbf16> residual tensor<1x?x128xf32> -> tensor<1x?x128xf32>
  %r2 = llm.linear %x, %wk residual %r : tensor<1x?x896xf32>, tensor<128x896xbf16> residual tensor<1x?x128xf32> -> tensor<1x?x128xf32>
  // CHECK: llm.logits %{{.*}}, %{{.*}} {tied} : tensor<1x?x896xf32>, tensor<151936x896xbf16> -> tensor<1x?x151936xf32>
  %2 = llm.logits %x, %table {tied} : tensor<1x?x896xf32>, tensor<151936x896xbf16> -> tensor<1x?x151936xf32>
  // CHECK: llm.logits %{{.*}}, %{{.*}} : tensor<3x896xf32>, tensor<151936x896xbf16> -> tensor<3x151936xf32>
  %3 = llm.logits %h, %table : tensor<3x896xf32>, tensor<151936x896xbf16> -> tensor<3x151936xf32>
  // Gemma-2's final logit softcapping.
  // CHECK: llm.logits %{{.*}}, %{{.*}} {softcap = 3.000000e+01 : f64, tied} : tensor<3x896xf32>, tensor<151936x896xbf16> -> tensor<3x151936xf32>
  %c = llm.logits %h, %table {tied, softcap = 30.0 : f64} : tensor<3x896xf32>, tensor<151936x896xbf16> -> tensor<3x151936xf32>
  // GPT-J's LM head bias.
  // CHECK: llm.logits %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x896xf32>, tensor<151936x896xbf16>, tensor<151936xf32> -> tensor<3x151936xf32>
  %lb = llm.logits %h, %table, %vb : tensor<3x896xf32>, tensor<151936x896xbf16>, tensor<151936xf32> -> tensor<3x151936xf32>
  // CHECK: llm.add %{{.*}}, %{{.*}} : tensor<1x?x896xf32>
  %4 = llm.add %x, %x : tensor<1x?x896xf32>
  return
}

// CHECK-LABEL: func @rope
func.func @rope(%q: tensor<1x?x8x8xf32>, %k: tensor<2x?x8x128xf32>, %pos: tensor<1x?xi32>, %pos2: tensor<2x?xi64>) {
  // CHECK: llm.rope interleaved %{{.*}}, %{{.*}} {rotary_dim = 8 : i64, theta = 1.000000e+04 : f64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  %0 = llm.rope interleaved %q, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  // A method's defaults are elided when spelled out.
  // CHECK: llm.rope half %{{.*}}, %{{.*}} {rotary_dim = 4 : i64, scaling = #llm.rope_yarn<factor = 4.000000e+00, original_max_position_embeddings = 32>, theta = 1.000000e+04 : f64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  %1 = llm.rope half %q, %pos {theta = 1.0e+04 : f64, rotary_dim = 4 : i64, scaling = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 32, beta_fast = 32.0, beta_slow = 1.0, attention_factor = 0.0, truncate = true>} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  // CHECK: scaling = #llm.rope_linear<factor = 4.000000e+00>
  %2 = llm.rope half %k, %pos2 {theta = 1.0e+04 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_linear<factor = 4.0>} : tensor<2x?x8x128xf32>, tensor<2x?xi64>
  // CHECK: scaling = #llm.rope_ntk<factor = 2.000000e+00>
  %3 = llm.rope half %k, %pos2 {theta = 1.0e+04 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_ntk<factor = 2.0>} : tensor<2x?x8x128xf32>, tensor<2x?xi64>
  // CHECK: scaling = #llm.rope_dynamic<factor = 2.000000e+00, original_max_position_embeddings = 4096>
  %4 = llm.rope half %k, %pos2 {theta = 1.0e+04 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_dynamic<factor = 2.0, original_max_position_embeddings = 4096>} : tensor<2x?x8x128xf32>, tensor<2x?xi64>
  // CHECK: scaling = #llm.rope_yarn<factor = 4.000000e+00, original_max_position_embeddings = 32768, beta_fast = 1.600000e+01, beta_slow = 2.000000e+00, attention_factor = 1.100000e+00>
  %5 = llm.rope half %k, %pos2 {theta = 1.0e+06 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 32768, beta_fast = 16.0, beta_slow = 2.0, attention_factor = 1.1>} : tensor<2x?x8x128xf32>, tensor<2x?xi64>
  // CHECK: scaling = #llm.rope_llama3<factor = 8.000000e+00, original_max_position_embeddings = 8192, low_freq_factor = 2.000000e+00, high_freq_factor = 6.000000e+00>
  %6 = llm.rope half %k, %pos2 {theta = 5.0e+05 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192, low_freq_factor = 2.0, high_freq_factor = 6.0>} : tensor<2x?x8x128xf32>, tensor<2x?xi64>
  // CHECK: scaling = #llm.rope_yarn<factor = 4.000000e+00, original_max_position_embeddings = 32768, truncate = false>
  %7 = llm.rope half %k, %pos2 {theta = 1.0e+06 : f64, rotary_dim = 128 : i64, scaling = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 32768, truncate = false>} : tensor<2x?x8x128xf32>, tensor<2x?xi64>
  // CHECK: scaling = #llm.rope_longrope<factor = 4.000000e+00, original_max_position_embeddings = 16, attention_factor = 1.200000e+00, short_factor = [1.000000e+00, 1.500000e+00, 2.000000e+00, 2.500000e+00], long_factor = [1.000000e+00, 2.000000e+00, 4.000000e+00, 8.000000e+00]>
  %8 = llm.rope half %q, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 16, attention_factor = 1.2, short_factor = [1.0, 1.5, 2.0, 2.5], long_factor = [1.0, 2.0, 4.0, 8.0]>} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  return
}

// CHECK-LABEL: func @attention
func.func @attention(%q: tensor<1x?x8x8xf32>, %k: tensor<1x512x4x8xf32>, %pos: tensor<1x?xi32>, %q32: tensor<2x16x32x64xf32>, %k1: tensor<2x16x1x64xf16>, %kself: tensor<1x?x8x8xf32>) {
  // GQA over a cache view, queries placed by position.
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64} : tensor<1x?x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x?xi32> -> tensor<1x?x8x8xf32>
  %0 = llm.attention %q, %k, %k, %pos {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x?xi32> -> tensor<1x?x8x8xf32>
  // MQA, sliding window, explicit scale, f16 keys.
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, num_heads = 32 : i64, num_kv_heads = 1 : i64, scale = 1.250000e-01 : f64, sliding_window = 4096 : i64} : tensor<2x16x32x64xf32>, tensor<2x16x1x64xf16>, tensor<2x16x1x64xf16> -> tensor<2x16x32x64xf32>
  %1 = llm.attention %q32, %k1, %k1 {num_heads = 32 : i64, num_kv_heads = 1 : i64, causal, sliding_window = 4096 : i64, scale = 0.125 : f64} : tensor<2x16x32x64xf32>, tensor<2x16x1x64xf16>, tensor<2x16x1x64xf16> -> tensor<2x16x32x64xf32>
  // MHA, bidirectional.
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}} {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?x8x8xf32>, tensor<1x?x8x8xf32> -> tensor<1x?x8x8xf32>
  %2 = llm.attention %kself, %kself, %kself {num_heads = 8 : i64, num_kv_heads = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?x8x8xf32>, tensor<1x?x8x8xf32> -> tensor<1x?x8x8xf32>
  // Gemma-2: softcapped scores, a sliding window.
  // CHECK: llm.attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64, sliding_window = 4 : i64, softcap = 5.000000e+01 : f64} : tensor<1x?x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x?xi32> -> tensor<1x?x8x8xf32>
  %3 = llm.attention %q, %k, %k, %pos {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal, sliding_window = 4 : i64, softcap = 50.0 : f64} : tensor<1x?x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x?xi32> -> tensor<1x?x8x8xf32>
  return
}

// CHECK-LABEL: func @ffn
func.func @ffn(%g: tensor<1x?x172xf32>, %u: tensor<1x?x172xf32>) {
  // CHECK: llm.glu silu %{{.*}}, %{{.*}} : tensor<1x?x172xf32>
  %0 = llm.glu silu %g, %u : tensor<1x?x172xf32>
  // CHECK: llm.glu gelu %{{.*}}, %{{.*}} : tensor<1x?x172xf32>
  %1 = llm.glu gelu %g, %u : tensor<1x?x172xf32>
  // CHECK: llm.glu gelu_tanh %{{.*}}, %{{.*}} : tensor<1x?x172xf32>
  %2 = llm.glu gelu_tanh %g, %u : tensor<1x?x172xf32>
  // CHECK: llm.glu relu %{{.*}}, %{{.*}} : tensor<1x?x172xf32>
  %3 = llm.glu relu %g, %u : tensor<1x?x172xf32>
  // CHECK: llm.activation gelu_tanh %{{.*}} : tensor<1x?x172xf32>
  %4 = llm.activation gelu_tanh %g : tensor<1x?x172xf32>
  // CHECK: llm.activation relu %{{.*}} : tensor<1x?x172xf32>
  %5 = llm.activation relu %g : tensor<1x?x172xf32>
  return
}

// CHECK-LABEL: func @kv_cache
// A paged cache's ops take its page table, (batch, capacity / page_size).
func.func @kv_cache(%c: !cache, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>, %p: !paged, %kb: tensor<4x1x8x128xbf16>, %pos4: tensor<4x1xi32>, %p64: !paged64, %table: tensor<4x512xi32>) -> (!cache, !paged, !paged64) {
  // CHECK: %[[C1:.*]] = llm.kv_append %{{.*}}[1], %{{.*}}, %{{.*}}, %{{.*}} : !kv_cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %c1 = llm.kv_append %c[1], %k, %k, %pos : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  // CHECK: llm.kv_view %[[C1]][1] : !kv_cache -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  %kv:2 = llm.kv_view %c1[1] : !cache -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  // CHECK: llm.kv_append %{{.*}}[31] pages(%{{.*}} : tensor<4x512xi32>), %{{.*}}, %{{.*}}, %{{.*}} : !kv_cache1, tensor<4x1x8x128xbf16>, tensor<4x1x8x128xbf16>, tensor<4x1xi32>
  %p1 = llm.kv_append %p[31] pages(%table : tensor<4x512xi32>), %kb, %kb, %pos4 : !paged, tensor<4x1x8x128xbf16>, tensor<4x1x8x128xbf16>, tensor<4x1xi32>
  // CHECK: llm.kv_view %{{.*}}[0] pages(%{{.*}} : tensor<4x512xi32>) : !kv_cache1 -> tensor<4x8192x8x128xbf16>, tensor<4x8192x8x128xbf16>
  %pv:2 = llm.kv_view %p1[0] pages(%table : tensor<4x512xi32>) : !paged -> tensor<4x8192x8x128xbf16>, tensor<4x8192x8x128xbf16>
  return %c1, %p1, %p64 : !cache, !paged, !paged64
}

// A layer given as an index value: one function serves every layer.
// CHECK-LABEL: func @kv_cache_dynamic_layer
// CHECK-SAME: %[[L:[a-z0-9]+]]: index
func.func @kv_cache_dynamic_layer(%c: !cache, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>, %layer: index) -> !cache {
  // CHECK: llm.kv_append %{{.*}}[%[[L]]], %{{.*}}, %{{.*}}, %{{.*}} : !kv_cache
  %c1 = llm.kv_append %c[%layer], %k, %k, %pos : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  // CHECK: llm.kv_view %{{.*}}[%[[L]]] : !kv_cache -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  %kv:2 = llm.kv_view %c1[%layer] : !cache -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  return %c1 : !cache
}

// Quantized caches: f32 keys and values in, f32 views out; the codes and
// scales stay inside the cache.
// CHECK-LABEL: func @kv_cache_quantized
func.func @kv_cache_quantized(%c8: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = i8>, %cf8: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f8E4M3FN, layout = paged>, %table: tensor<1x32xi32>, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>) {
  // CHECK: llm.kv_append %{{.*}}[1], %{{.*}}, %{{.*}}, %{{.*}} : !kv_cache3, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %c1 = llm.kv_append %c8[1], %k, %k, %pos : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = i8>, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  // CHECK: llm.kv_view %{{.*}}[1] : !kv_cache3 -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  %kv:2 = llm.kv_view %c1[1] : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = i8> -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  // CHECK: llm.kv_view %{{.*}}[0] pages(%{{.*}} : tensor<1x32xi32>) : !kv_cache4 -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  %pv:2 = llm.kv_view %cf8[0] pages(%table : tensor<1x32xi32>) : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f8E4M3FN, layout = paged> -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  return
}

// CHECK-LABEL: func @fused_projections
func.func @fused_projections(%h: tensor<1x1x64xf32>, %g: tensor<64xbf16>, %wq: tensor<64x64xbf16>, %wk: tensor<32x64xbf16>, %bq: tensor<64xf32>, %bk: tensor<32xf32>, %wg: tensor<172x64xbf16>, %wu: tensor<172x64xbf16>, %x: tensor<2x?x64xf32>) {
  // CHECK: llm.multi_linear %{{.*}} norm(%{{.*}} : tensor<64xbf16>) weights(%{{.*}}, %{{.*}} : tensor<64x64xbf16>, tensor<32x64xbf16>) {norm_eps = 1.000000e-05 : f64} : tensor<1x1x64xf32> -> tensor<1x1x64xf32>, tensor<1x1x32xf32>
  %0:2 = llm.multi_linear %h norm(%g : tensor<64xbf16>) weights(%wq, %wk : tensor<64x64xbf16>, tensor<32x64xbf16>) {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32> -> tensor<1x1x64xf32>, tensor<1x1x32xf32>
  // CHECK: llm.multi_linear %{{.*}} weights(%{{.*}}, %{{.*}} : tensor<64x64xbf16>, tensor<32x64xbf16>) biases(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<32xf32>) : tensor<2x?x64xf32> -> tensor<2x?x64xf32>, tensor<2x?x32xf32>
  %1:2 = llm.multi_linear %x weights(%wq, %wk : tensor<64x64xbf16>, tensor<32x64xbf16>) biases(%bq, %bk : tensor<64xf32>, tensor<32xf32>) : tensor<2x?x64xf32> -> tensor<2x?x64xf32>, tensor<2x?x32xf32>
  // CHECK: llm.multi_linear %{{.*}} weights(%{{.*}} : tensor<32x64xbf16>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  %2 = llm.multi_linear %h weights(%wk : tensor<32x64xbf16>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  // CHECK: llm.glu_linear silu %{{.*}} norm(%{{.*}} : tensor<64xbf16>), %{{.*}}, %{{.*}} {norm_eps = 1.000000e-05 : f64} : tensor<1x1x64xf32>, tensor<172x64xbf16>, tensor<172x64xbf16> -> tensor<1x1x172xf32>
  %3 = llm.glu_linear silu %h norm(%g : tensor<64xbf16>), %wg, %wu {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32>, tensor<172x64xbf16>, tensor<172x64xbf16> -> tensor<1x1x172xf32>
  // CHECK: llm.glu_linear gelu_tanh %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x?x64xf32>, tensor<172x64xbf16>, tensor<172x64xbf16> -> tensor<2x?x172xf32>
  %4 = llm.glu_linear gelu_tanh %x, %wg, %wu : tensor<2x?x64xf32>, tensor<172x64xbf16>, tensor<172x64xbf16> -> tensor<2x?x172xf32>
  return
}

// CHECK-LABEL: func @rope_append
func.func @rope_append(%c0: !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>, %layer: index) {
  // CHECK: llm.rope_append half %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {rotary_dim = 8 : i64, theta = 1.000000e+04 : f64} : !{{.*}}, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %qr, %c1 = llm.rope_append half %c0[%layer], %q, %k, %v, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  // CHECK: llm.rope_append interleaved %{{.*}}[2], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {rotary_dim = 4 : i64, scaling = #llm.rope_linear<factor = 2.000000e+00>, theta = 5.000000e+05 : f64}
  %qr2, %c2 = llm.rope_append interleaved %c1[2], %q, %k, %v, %pos {theta = 5.0e+05 : f64, rotary_dim = 4 : i64, scaling = #llm.rope_linear<factor = 2.0>} : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return
}

// CHECK-LABEL: func @rope_append_paged
func.func @rope_append_paged(%c0: !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16, layout = paged, page_size = 32>, %t: tensor<1x16xi32>, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>, %layer: index) {
  // CHECK: llm.rope_append half %{{.*}}[%{{.*}}] pages(%{{.*}} : tensor<1x16xi32>), %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {rotary_dim = 8 : i64, theta = 1.000000e+04 : f64} : !{{.*}}, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %qr, %c1 = llm.rope_append half %c0[%layer] pages(%t : tensor<1x16xi32>), %q, %k, %k, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16, layout = paged, page_size = 32>, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return
}

// Block-quantized weights: every format as a weight of the ops that take
// weights (the embedding table, linear, logits, the fused projections).
// CHECK-LABEL: func @block_quantized_weights
func.func @block_quantized_weights(%tokens: tensor<1x?xi32>, %x: tensor<1x?x256xf32>,
    %q8: tensor<512x256x!llm.block<q8_0>>, %q40: tensor<64x256x!llm.block<q4_0>>,
    %q41: tensor<64x256x!llm.block<q4_1>>, %q50: tensor<64x256x!llm.block<q5_0>>,
    %q51: tensor<64x256x!llm.block<q5_1>>, %q4k: tensor<64x256x!llm.block<q4_k>>,
    %q5k: tensor<64x256x!llm.block<q5_k>>, %q6k: tensor<64x256x!llm.block<q6_k>>,
    %norm: tensor<256xf32>) {
  // CHECK: llm.embedding %{{.*}}, %{{.*}} : tensor<1x?xi32>, tensor<512x256x!llm.block<q8_0>> -> tensor<1x?x256xf32>
  %h = llm.embedding %tokens, %q8 : tensor<1x?xi32>, tensor<512x256x!llm.block<q8_0>> -> tensor<1x?x256xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_0>> -> tensor<1x?x64xf32>
  %0 = llm.linear %x, %q40 : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_0>> -> tensor<1x?x64xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_1>> -> tensor<1x?x64xf32>
  %1 = llm.linear %x, %q41 : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_1>> -> tensor<1x?x64xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q5_0>> -> tensor<1x?x64xf32>
  %2 = llm.linear %x, %q50 : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q5_0>> -> tensor<1x?x64xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q5_1>> -> tensor<1x?x64xf32>
  %3 = llm.linear %x, %q51 : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q5_1>> -> tensor<1x?x64xf32>
  // CHECK: llm.multi_linear %{{.*}} norm(%{{.*}} : tensor<256xf32>) weights(%{{.*}}, %{{.*}} : tensor<64x256x!llm.block<q4_k>>, tensor<64x256x!llm.block<q5_k>>) {norm_eps = 1.000000e-05 : f64} : tensor<1x?x256xf32> -> tensor<1x?x64xf32>, tensor<1x?x64xf32>
  %4:2 = llm.multi_linear %x norm(%norm : tensor<256xf32>) weights(%q4k, %q5k : tensor<64x256x!llm.block<q4_k>>, tensor<64x256x!llm.block<q5_k>>) {norm_eps = 1.0e-05 : f64} : tensor<1x?x256xf32> -> tensor<1x?x64xf32>, tensor<1x?x64xf32>
  // CHECK: llm.glu_linear silu %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q6_k>>, tensor<64x256x!llm.block<q4_k>> -> tensor<1x?x64xf32>
  %5 = llm.glu_linear silu %x, %q6k, %q4k : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q6_k>>, tensor<64x256x!llm.block<q4_k>> -> tensor<1x?x64xf32>
  // CHECK: llm.logits %{{.*}}, %{{.*}} {tied} : tensor<1x?x256xf32>, tensor<512x256x!llm.block<q8_0>> -> tensor<1x?x512xf32>
  %6 = llm.logits %x, %q8 {tied} : tensor<1x?x256xf32>, tensor<512x256x!llm.block<q8_0>> -> tensor<1x?x512xf32>
  return
}

// Interleaved rows (groups of 8) for the projections; the plain form prints
// without the parameter.
// CHECK-LABEL: func @interleaved_block_weights
func.func @interleaved_block_weights(%x: tensor<1x?x256xf32>,
    %q40: tensor<64x256x!llm.block<q4_0, interleave = 8>>,
    %q8: tensor<512x256x!llm.block<q8_0, interleave = 8>>,
    %plain: tensor<64x256x!llm.block<q4_0, interleave = 1>>) {
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_0, interleave = 8>> -> tensor<1x?x64xf32>
  %0 = llm.linear %x, %q40 : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_0, interleave = 8>> -> tensor<1x?x64xf32>
  // CHECK: llm.logits %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<512x256x!llm.block<q8_0, interleave = 8>> -> tensor<1x?x512xf32>
  %1 = llm.logits %x, %q8 : tensor<1x?x256xf32>, tensor<512x256x!llm.block<q8_0, interleave = 8>> -> tensor<1x?x512xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_0>> -> tensor<1x?x64xf32>
  %2 = llm.linear %x, %plain : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q4_0, interleave = 1>> -> tensor<1x?x64xf32>
  return
}

// Float rows in interleaved groups of 16 (f16, bf16, f32; bf16 also in
// pairs of columns, `columns = 1` being the default) for the projections.
// CHECK-LABEL: func @interleaved_float_weights
func.func @interleaved_float_weights(%x: tensor<1x?x256xf32>,
    %h: tensor<64x256x!llm.interleaved<f16, rows = 16>>,
    %b: tensor<512x256x!llm.interleaved<bf16, rows = 16>>,
    %f: tensor<32x256x!llm.interleaved<f32, rows = 16>>,
    %p: tensor<48x256x!llm.interleaved<bf16, rows = 16, columns = 2>>,
    %one: tensor<32x256x!llm.interleaved<f16, rows = 16, columns = 1>>) {
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.interleaved<f16, rows = 16>> -> tensor<1x?x64xf32>
  %0 = llm.linear %x, %h : tensor<1x?x256xf32>, tensor<64x256x!llm.interleaved<f16, rows = 16>> -> tensor<1x?x64xf32>
  // CHECK: llm.logits %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<512x256x!llm.interleaved<bf16, rows = 16>> -> tensor<1x?x512xf32>
  %1 = llm.logits %x, %b : tensor<1x?x256xf32>, tensor<512x256x!llm.interleaved<bf16, rows = 16>> -> tensor<1x?x512xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<32x256x!llm.interleaved<f32, rows = 16>> -> tensor<1x?x32xf32>
  %2 = llm.linear %x, %f : tensor<1x?x256xf32>, tensor<32x256x!llm.interleaved<f32, rows = 16>> -> tensor<1x?x32xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<48x256x!llm.interleaved<bf16, rows = 16, columns = 2>> -> tensor<1x?x48xf32>
  %3 = llm.linear %x, %p : tensor<1x?x256xf32>, tensor<48x256x!llm.interleaved<bf16, rows = 16, columns = 2>> -> tensor<1x?x48xf32>
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<32x256x!llm.interleaved<f16, rows = 16>> -> tensor<1x?x32xf32>
  %4 = llm.linear %x, %one : tensor<1x?x256xf32>, tensor<32x256x!llm.interleaved<f16, rows = 16, columns = 1>> -> tensor<1x?x32xf32>
  return
}

// Planar storage (the CUDA kernels' layout) for every op that takes block
// weights: projections, fused projections and the embedding gather.
// CHECK-LABEL: func @planar_block_weights
func.func @planar_block_weights(%x: tensor<1x?x256xf32>, %ids: tensor<1x?xi32>,
    %q6: tensor<64x256x!llm.block<q6_k, planar>>,
    %q51: tensor<128x256x!llm.block<q5_1, planar>>,
    %table: tensor<512x256x!llm.block<q8_0, planar>>) {
  // CHECK: llm.linear %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q6_k, planar>> -> tensor<1x?x64xf32>
  %0 = llm.linear %x, %q6 : tensor<1x?x256xf32>, tensor<64x256x!llm.block<q6_k, planar>> -> tensor<1x?x64xf32>
  // CHECK: llm.glu_linear silu %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x?x256xf32>, tensor<128x256x!llm.block<q5_1, planar>>, tensor<128x256x!llm.block<q5_1, planar>> -> tensor<1x?x128xf32>
  %1 = llm.glu_linear silu %x, %q51, %q51 : tensor<1x?x256xf32>, tensor<128x256x!llm.block<q5_1, planar>>, tensor<128x256x!llm.block<q5_1, planar>> -> tensor<1x?x128xf32>
  // CHECK: llm.embedding %{{.*}}, %{{.*}} : tensor<1x?xi32>, tensor<512x256x!llm.block<q8_0, planar>> -> tensor<1x?x256xf32>
  %2 = llm.embedding %ids, %table : tensor<1x?xi32>, tensor<512x256x!llm.block<q8_0, planar>> -> tensor<1x?x256xf32>
  return
}

// A cache whose values are its keys (MLA's latent cache): kv_append takes
// the keys only, kv_view yields them as both results; contiguous, paged and
// quantized alike. `values = separate` is the default and parses as such.
// CHECK-LABEL: func @kv_cache_values_are_keys
// CHECK-SAME: %[[L:[a-z0-9]+]]: index
// CHECK-SAME: %{{[a-z0-9]+}}: !kv_cache) ->
!latent = !llm.kv_cache<layers = 27, batch = 1, kv_heads = 1, head_dim = 576, capacity = 64, element_type = bf16, values = keys>
!latent_i8 = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 576, capacity = 64, element_type = i8, layout = paged, values = keys>
func.func @kv_cache_values_are_keys(%c: !latent, %k: tensor<1x?x1x576xbf16>, %pos: tensor<1x?xi32>, %layer: index, %q: !latent_i8, %kq: tensor<1x?x1x576xf32>, %table: tensor<1x4xi32>, %s: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, values = separate>) -> (!latent, !latent_i8) {
  // CHECK: %[[C1:.*]] = llm.kv_append %{{.*}}[%[[L]]], %{{.*}}, %{{.*}} : !kv_cache{{[0-9]+}}, tensor<1x?x1x576xbf16>, tensor<1x?xi32>
  %c1 = llm.kv_append %c[%layer], %k, %pos : !latent, tensor<1x?x1x576xbf16>, tensor<1x?xi32>
  // CHECK: llm.kv_view %[[C1]][3] : !kv_cache{{[0-9]+}} -> tensor<1x64x1x576xbf16>, tensor<1x64x1x576xbf16>
  %kv:2 = llm.kv_view %c1[3] : !latent -> tensor<1x64x1x576xbf16>, tensor<1x64x1x576xbf16>
  // CHECK: %[[Q1:.*]] = llm.kv_append %{{.*}}[1] pages(%{{.*}} : tensor<1x4xi32>), %{{.*}}, %{{.*}} : !kv_cache{{[0-9]+}}, tensor<1x?x1x576xf32>, tensor<1x?xi32>
  %q1 = llm.kv_append %q[1] pages(%table : tensor<1x4xi32>), %kq, %pos : !latent_i8, tensor<1x?x1x576xf32>, tensor<1x?xi32>
  // CHECK: llm.kv_view %[[Q1]][1] pages(%{{.*}} : tensor<1x4xi32>) : !kv_cache{{[0-9]+}} -> tensor<1x64x1x576xf32>, tensor<1x64x1x576xf32>
  %qv:2 = llm.kv_view %q1[1] pages(%table : tensor<1x4xi32>) : !latent_i8 -> tensor<1x64x1x576xf32>, tensor<1x64x1x576xf32>
  return %c1, %q1 : !latent, !latent_i8
}

// A bf16 cache takes f32 keys and values too (kv_append rounds them).
// CHECK-LABEL: func @kv_cache_rounding
func.func @kv_cache_rounding(%c: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>) {
  // CHECK: llm.kv_append %{{.*}}[0], %{{.*}}, %{{.*}}, %{{.*}} : !kv_cache{{[0-9]*}}, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  %c1 = llm.kv_append %c[0], %k, %k, %pos : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return
}
