// Every verifier message of the `llm` dialect, one case each.
// RUN: llmc-opt %s -split-input-file -verify-diagnostics

// A RoPE scaling method takes its own parameters only: linear and ntk
// their factor, nothing after it; dynamic its two, in order.
// expected-error @+1 {{expected '>'}}
func.func private @f() attributes {s = #llm.rope_linear<factor = 2.0, original_max_position_embeddings = 10>}

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f() attributes {s = #llm.rope_ntk<factor = 2.0, beta_slow = 2.0>}

// -----

// expected-error @+1 {{duplicate or unknown struct parameter name: truncate}}
func.func private @f() attributes {s = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192, truncate = false>}

// -----

// expected-error @+1 {{expected ','}}
func.func private @f() attributes {s = #llm.rope_dynamic<factor = 2.0>}

// -----

// The methods with defaulted parameters take them in any order.
// expected-error @+1 {{struct is missing required parameter: original_max_position_embeddings}}
func.func private @f() attributes {s = #llm.rope_yarn<factor = 4.0, beta_fast = 16.0>}

// -----

// expected-error @+1 {{duplicate or unknown struct parameter name: beta_fast}}
func.func private @f() attributes {s = #llm.rope_llama3<original_max_position_embeddings = 8192, factor = 8.0, beta_fast = 4.0>}

// -----

// expected-error @+1 {{rope_linear needs factor >= 1, got 5.000000e-01}}
func.func private @f() attributes {s = #llm.rope_linear<factor = 0.5>}

// -----

// expected-error @+1 {{rope_ntk needs factor >= 1, got 0.000000e+00}}
func.func private @f() attributes {s = #llm.rope_ntk<factor = 0.0>}

// -----

// expected-error @+1 {{rope_dynamic needs original_max_position_embeddings > 0}}
func.func private @f() attributes {s = #llm.rope_dynamic<factor = 2.0, original_max_position_embeddings = 0>}

// -----

// expected-error @+1 {{rope_llama3 needs low_freq_factor > 0}}
func.func private @f() attributes {s = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192, low_freq_factor = -1.0>}

// -----

// expected-error @+1 {{rope_llama3 needs high_freq_factor > low_freq_factor}}
func.func private @f() attributes {s = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192, low_freq_factor = 4.0, high_freq_factor = 2.0>}

// -----

// expected-error @+1 {{rope_yarn needs beta_fast > beta_slow > 0}}
func.func private @f() attributes {s = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 4096, beta_fast = 1.0, beta_slow = 2.0>}

// -----

// expected-error @+1 {{rope_yarn needs attention_factor >= 0}}
func.func private @f() attributes {s = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = 4096, attention_factor = -1.0>}

// -----

// expected-error @+1 {{rope_yarn needs original_max_position_embeddings > 0}}
func.func private @f() attributes {s = #llm.rope_yarn<factor = 4.0, original_max_position_embeddings = -1>}

// -----

// expected-error @+1 {{rope_longrope needs short_factor and long_factor of the same non-zero length}}
func.func private @f() attributes {s = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 4096, short_factor = [1.0, 1.0], long_factor = [2.0]>}

// -----

// expected-error @+1 {{rope_longrope needs short_factor and long_factor of the same non-zero length}}
func.func private @f() attributes {s = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 4096, short_factor = [], long_factor = []>}

// -----

// expected-error @+1 {{rope_longrope needs positive short_factor and long_factor entries}}
func.func private @f() attributes {s = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 4096, short_factor = [1.0, 0.0], long_factor = [2.0, 3.0]>}

// -----

// expected-error @+1 {{rope_longrope needs attention_factor >= 0}}
func.func private @f() attributes {s = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 4096, attention_factor = -1.0, short_factor = [1.0], long_factor = [2.0]>}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{longrope needs one short_factor and long_factor entry per rotated pair (4), got 2}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = #llm.rope_longrope<factor = 4.0, original_max_position_embeddings = 16, short_factor = [1.0, 1.0], long_factor = [2.0, 3.0]>} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{'llm.rope' op attribute 'scaling' failed to satisfy constraint: RopeScalingAttrInterface instance}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64, scaling = 2.0 : f64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  return
}

// -----

// expected-error @+1 {{kv_cache layers must be positive, got 0}}
func.func private @f(!llm.kv_cache<layers = 0, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>)

// -----

// expected-error @+1 {{kv_cache batch must be positive, got -1}}
func.func private @f(!llm.kv_cache<layers = 1, batch = -1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>)

// -----

// expected-error @+1 {{kv_cache kv_heads must be positive, got 0}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 0, head_dim = 8, capacity = 512, element_type = f32>)

// -----

// expected-error @+1 {{kv_cache head_dim must be positive, got 0}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 4, head_dim = 0, capacity = 512, element_type = f32>)

// -----

// expected-error @+1 {{kv_cache capacity must be positive, got 0}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 4, head_dim = 8, capacity = 0, element_type = f32>)

// -----

// expected-error @+1 {{kv_cache page_size must be positive, got 0}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged, page_size = 0>)

// -----

// expected-error @+1 {{kv_cache element_type must be f32, f16, bf16 or a quantized code (i8, f8E4M3FN), got 'i4'}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = i4>)

// -----

// expected-error @+1 {{kv_cache element_type must be f32, f16, bf16 or a quantized code (i8, f8E4M3FN), got 'f8E5M2'}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f8E5M2>)

// -----

// expected-error @+1 {{kv_cache page_size applies only to the paged layout}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, page_size = 32>)

// -----

// expected-error @+1 {{kv_cache capacity (500) must be a multiple of page_size (16)}}
func.func private @f(!llm.kv_cache<layers = 1, batch = 1, kv_heads = 4, head_dim = 8, capacity = 500, element_type = f32, layout = paged>)

// -----

func.func @f(%t: tensor<1x?xi32>, %table: tensor<512xf32>) {
  // expected-error @+1 {{table must have rank 2, got 1}}
  %0 = llm.embedding %t, %table : tensor<1x?xi32>, tensor<512xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%t: tensor<1x?xi32>, %table: tensor<512x64xf32>) {
  // expected-error @+1 {{result rank (2) must be tokens rank + 1 (3)}}
  %0 = llm.embedding %t, %table : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x64xf32>
  return
}

// -----

func.func @f(%t: tensor<1x5xi32>, %table: tensor<512x64xf32>) {
  // expected-error @+1 {{result dimension 1 (6) does not match tokens dimension 1 (5)}}
  %0 = llm.embedding %t, %table : tensor<1x5xi32>, tensor<512x64xf32> -> tensor<1x6x64xf32>
  return
}

// -----

func.func @f(%t: tensor<1x?xi32>, %table: tensor<512x64xf32>) {
  // expected-error @+1 {{result last dimension (32) does not match table embedding size (64)}}
  %0 = llm.embedding %t, %table : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x?x32xf32>
  return
}

// -----

func.func @f(%t: tensor<1x?xi32>, %table: tensor<512x64xf32>) {
  // expected-error @+1 {{scale must be positive, got 0}}
  %0 = llm.embedding %t, %table {scale = 0.0 : f64} : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%t: tensor<1x?xi32>, %table: tensor<512x64xf32>) {
  // expected-error @+1 {{attribute 'scale' failed to satisfy constraint: 64-bit float attribute}}
  %0 = llm.embedding %t, %table {scale = 8 : i64} : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{attribute 'weight_offset' failed to satisfy constraint: 64-bit float attribute}}
  %0 = llm.rms_norm %x, %w {eps = 1.0e-6 : f64, weight_offset = 1 : i64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x16xf32>, %w: tensor<128xf32>) {
  // expected-error @+1 {{weight size (128) does not match input last dimension (16)}}
  %0 = llm.rms_norm %x, %w {eps = 1.0e-6 : f64} : tensor<1x?x8x16xf32>, tensor<128xf32> -> tensor<1x?x8x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{eps must be positive, got 0}}
  %0 = llm.rms_norm %x, %w {eps = 0.0 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<f32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = llm.rms_norm %x, %w {eps = 1.0e-5 : f64} : tensor<f32>, tensor<64xf32> -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<1x64xf32>) {
  // expected-error @+1 {{weight must have rank 1, got 2}}
  %0 = llm.rms_norm %x, %w {eps = 1.0e-5 : f64} : tensor<1x?x64xf32>, tensor<1x64xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{weight size (32) does not match input last dimension (64)}}
  %0 = llm.rms_norm %x, %w {eps = 1.0e-5 : f64} : tensor<1x?x64xf32>, tensor<32xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{result type must equal the input type}}
  %0 = llm.rms_norm %x, %w {eps = 1.0e-5 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf16>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<64xf32>, %b: tensor<2x64xf32>) {
  // expected-error @+1 {{bias must have rank 1, got 2}}
  %0 = llm.layer_norm %x, %w, %b {eps = 1.0e-5 : f64} : tensor<1x?x64xf32>, tensor<64xf32>, tensor<2x64xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<64xf32>, %b: tensor<63xf32>) {
  // expected-error @+1 {{bias size (63) does not match input last dimension (64)}}
  %0 = llm.layer_norm %x, %w, %b {eps = 1.0e-5 : f64} : tensor<1x?x64xf32>, tensor<64xf32>, tensor<63xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<128xf32>) {
  // expected-error @+1 {{weight must have rank 2, got 1}}
  %0 = llm.linear %x, %w : tensor<1x?x64xf32>, tensor<128xf32> -> tensor<1x?x128xf32>
  return
}

// -----

func.func @f(%x: tensor<f32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = llm.linear %x, %w : tensor<f32>, tensor<128x64xf32> -> tensor<128xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<128x32xf32>) {
  // expected-error @+1 {{weight input dimension (32) does not match input last dimension (64)}}
  %0 = llm.linear %x, %w : tensor<1x?x64xf32>, tensor<128x32xf32> -> tensor<1x?x128xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<128x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{bias size (64) does not match weight output dimension (128)}}
  %0 = llm.linear %x, %w, %b : tensor<1x?x64xf32>, tensor<128x64xf32>, tensor<64xf32> -> tensor<1x?x128xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<128x64xf32>, %b: tensor<1x128xf32>) {
  // expected-error @+1 {{bias must have rank 1, got 2}}
  %0 = llm.linear %x, %w, %b : tensor<1x?x64xf32>, tensor<128x64xf32>, tensor<1x128xf32> -> tensor<1x?x128xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{result element type must equal the input element type}}
  %0 = llm.linear %x, %w : tensor<1x?x64xf32>, tensor<128x64xf32> -> tensor<1x?x128xf16>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{result rank (2) does not match input rank (3)}}
  %0 = llm.linear %x, %w : tensor<1x?x64xf32>, tensor<128x64xf32> -> tensor<1x128xf32>
  return
}

// -----

func.func @f(%x: tensor<2x?x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{result dimension 0 (3) does not match input dimension 0 (2)}}
  %0 = llm.linear %x, %w : tensor<2x?x64xf32>, tensor<128x64xf32> -> tensor<3x?x128xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<128x64xf32>) {
  // expected-error @+1 {{result last dimension (64) does not match weight output dimension (128)}}
  %0 = llm.linear %x, %w : tensor<1x?x64xf32>, tensor<128x64xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<512x64xf32>) {
  // expected-error @+1 {{result last dimension (500) does not match weight output dimension (512)}}
  %0 = llm.logits %x, %w {tied} : tensor<1x?x64xf32>, tensor<512x64xf32> -> tensor<1x?x500xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<512x64xf32>, %b: tensor<500xf32>) {
  // expected-error @+1 {{bias size (500) does not match weight output dimension (512)}}
  %0 = llm.logits %x, %w, %b : tensor<1x?x64xf32>, tensor<512x64xf32>, tensor<500xf32> -> tensor<1x?x512xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<512x64xf32>) {
  // expected-error @+1 {{softcap must be positive, got -3.000000e+01}}
  %0 = llm.logits %x, %w {tied, softcap = -30.0 : f64} : tensor<1x?x64xf32>, tensor<512x64xf32> -> tensor<1x?x512xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x64xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{input must have rank 4, got 3}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x64xf32>, tensor<1x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<?xi32>) {
  // expected-error @+1 {{positions must have rank 2, got 1}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<2x?xi32>) {
  // expected-error @+1 {{positions batch (2) does not match input batch (1)}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<2x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x4x8x8xf32>, %pos: tensor<1x5xi32>) {
  // expected-error @+1 {{positions length (5) does not match input length (4)}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x4x8x8xf32>, tensor<1x5xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{theta must be positive, got -1}}
  %0 = llm.rope half %x, %pos {theta = -1.0 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{rotary_dim must be positive and even, got 7}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 7 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x9xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{head dimension must be even, got 9}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x9xf32>, tensor<1x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{rotary_dim (16) exceeds the head dimension (8)}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 16 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x?x8x8xf32>, %pos: tensor<1x?xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of signless integer values}}
  %0 = llm.rope half %x, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : tensor<1x?x8x8xf32>, tensor<1x?xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x64xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{q must have rank 4, got 3}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x64xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x32xf32>) {
  // expected-error @+1 {{k must have rank 4, got 3}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x32xf32>, tensor<1x9x32xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>, %v: tensor<1x9x32xf32>) {
  // expected-error @+1 {{v must have rank 4, got 3}}
  %0 = llm.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x32xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>, %v: tensor<1x8x4x8xf32>) {
  // expected-error @+1 {{k and v must have the same type}}
  %0 = llm.attention %q, %k, %v {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x8x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{num_heads (8) and num_kv_heads (0) must be positive}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 0 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x3x8xf32>) {
  // expected-error @+1 {{num_heads (8) must be a multiple of num_kv_heads (3)}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 3 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x3x8xf32>, tensor<1x9x3x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{q heads (8) does not match num_heads (16)}}
  %0 = llm.attention %q, %k, %k {num_heads = 16 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{k heads (4) does not match num_kv_heads (2)}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 2 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<2x9x4x8xf32>) {
  // expected-error @+1 {{k batch (2) does not match q batch (1)}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<2x9x4x8xf32>, tensor<2x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x16xf32>) {
  // expected-error @+1 {{k head dimension (16) does not match q head dimension (8)}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x4x16xf32>, tensor<1x9x4x16xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x3x8x8xf32>, %k: tensor<1x9x4x8xf32>, %pos: tensor<1x4xi32>) {
  // expected-error @+1 {{positions length (4) does not match q length (3)}}
  %0 = llm.attention %q, %k, %k, %pos {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x3x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32>, tensor<1x4xi32> -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{sliding_window must be positive, got 0}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal, sliding_window = 0 : i64} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{sliding_window requires causal attention}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, sliding_window = 4 : i64} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{scale must be positive, got -5.000000e-01}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal, scale = -0.5 : f64} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{softcap must be positive, got -5.000000e+01}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal, softcap = -50.0 : f64} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{softcap must be positive, got 0}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal, softcap = 0.0 : f64} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf32>
  return
}

// -----

func.func @f(%q: tensor<1x?x8x8xf32>, %k: tensor<1x9x4x8xf32>) {
  // expected-error @+1 {{result type must equal the type of q}}
  %0 = llm.attention %q, %k, %k {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal} : tensor<1x?x8x8xf32>, tensor<1x9x4x8xf32>, tensor<1x9x4x8xf32> -> tensor<1x?x8x8xf16>
  return
}

// -----

func.func @f(%g: tensor<1x?x172xf32>) {
  // expected-error @+2 {{expected one of [silu, gelu, gelu_tanh, relu] for FFN activation function, got: swish}}
  // expected-error @+1 {{failed to parse LLM_ActivationAttr parameter 'value'}}
  %0 = llm.glu swish %g, %g : tensor<1x?x172xf32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{layer 2 is out of range [0, 2)}}
  %0 = llm.kv_append %c[2], %k, %k, %pos : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x4x8xf32>, %v: tensor<1x?x4x8xf16>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{keys and values must have the same type}}
  %0 = llm.kv_append %c[0], %k, %v, %pos : !cache, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf16>, tensor<1x?xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x32xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{keys must have rank 4, got 3}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<1x?x32xf32>, tensor<1x?x32xf32>, tensor<1x?xi32>
  return
}

// -----

// A bf16 cache takes bf16 keys and values, or f32 ones (which kv_append
// rounds); not f16 ones.
!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>
func.func @f(%c: !cache, %k: tensor<1x?x4x8xf16>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{keys element type 'f16' does not match the cache element type 'bf16' and is not f32}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<1x?x4x8xf16>, tensor<1x?x4x8xf16>, tensor<1x?xi32>
  return
}

// -----

// A quantized cache takes f32 keys and values (kv_append quantizes them).
!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = i8>
func.func @f(%c: !cache, %k: tensor<1x?x4x8xf16>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{keys element type 'f16' does not match the cache value type 'f32'}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<1x?x4x8xf16>, tensor<1x?x4x8xf16>, tensor<1x?xi32>
  return
}

// -----

// A quantized cache's view is f32 (dequantized), not its codes.
!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f8E4M3FN>
func.func @f(%c: !cache) {
  // expected-error @+1 {{results must both be 'tensor<1x512x4x8xf32>'}}
  %k, %v = llm.kv_view %c[0] : !cache -> tensor<1x512x4x8xf8E4M3FN>, tensor<1x512x4x8xf8E4M3FN>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %k: tensor<2x?x4x8xf32>, %pos: tensor<2x?xi32>) {
  // expected-error @+1 {{keys batch (2) does not match cache batch (1)}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<2x?x4x8xf32>, tensor<2x?x4x8xf32>, tensor<2x?xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x2x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{keys heads (2) does not match cache kv_heads (4)}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x4x16xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{keys head dimension (16) does not match cache head_dim (8)}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<1x?x4x16xf32>, tensor<1x?x4x16xf32>, tensor<1x?xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x3x4x8xf32>, %pos: tensor<1x2xi32>) {
  // expected-error @+1 {{positions length (2) does not match keys length (3)}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<1x3x4x8xf32>, tensor<1x3x4x8xf32>, tensor<1x2xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache) {
  // expected-error @+1 {{layer -1 is out of range [0, 2)}}
  %k, %v = llm.kv_view %c[-1] : !cache -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache) {
  // expected-error @+1 {{results must both be 'tensor<1x512x4x8xf32>'}}
  %k, %v = llm.kv_view %c[0] : !cache -> tensor<1x256x4x8xf32>, tensor<1x512x4x8xf32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache) {
  // expected-error @+1 {{needs exactly one layer: a constant or an index operand}}
  %k, %v = "llm.kv_view"(%c) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!cache) -> (tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>)
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %i: index) {
  // expected-error @+1 {{needs exactly one layer: a constant or an index operand}}
  %k, %v = "llm.kv_view"(%c, %i) <{layer = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 0>}> : (!cache, index) -> (tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>)
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %w: tensor<128x64xf32>, %r: tensor<1x1x64xf32>) {
  // expected-error @+1 {{residual type must equal the result type}}
  %0 = llm.linear %x, %w residual %r : tensor<1x1x64xf32>, tensor<128x64xf32> residual tensor<1x1x64xf32> -> tensor<1x1x128xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %g: tensor<64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{norm weight and norm_eps must be given together}}
  %0 = llm.multi_linear %x norm(%g : tensor<64xf32>) weights(%w : tensor<32x64xf32>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %g: tensor<64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{norm_eps must be positive, got 0}}
  %0 = llm.multi_linear %x norm(%g : tensor<64xf32>) weights(%w : tensor<32x64xf32>) {norm_eps = 0.0 : f64} : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %g: tensor<2x64xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{norm weight must have rank 1, got 2}}
  %0 = llm.multi_linear %x norm(%g : tensor<2x64xf32>) weights(%w : tensor<32x64xf32>) {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %g: tensor<32xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{norm weight size (32) does not match input last dimension (64)}}
  %0 = llm.multi_linear %x norm(%g : tensor<32xf32>) weights(%w : tensor<32x64xf32>) {norm_eps = 1.0e-05 : f64} : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>) {
  // expected-error @+1 {{needs at least one weight}}
  %0 = "llm.multi_linear"(%x) {operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<1x1x64xf32>) -> tensor<1x1x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %w: tensor<32x64xf32>, %v: tensor<16x64xf32>) {
  // expected-error @+1 {{has 1 results for 2 weights}}
  %0 = llm.multi_linear %x weights(%w, %v : tensor<32x64xf32>, tensor<16x64xf32>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %w: tensor<32x64xf32>, %v: tensor<16x64xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{has 1 biases for 2 weights}}
  %0:2 = llm.multi_linear %x weights(%w, %v : tensor<32x64xf32>, tensor<16x64xf32>) biases(%b : tensor<32xf32>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>, tensor<1x1x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %w: tensor<32x64xf32>, %v: tensor<16x64xf32>) {
  // expected-error @+1 {{result last dimension (32) does not match weight output dimension (16)}}
  %0:2 = llm.multi_linear %x weights(%w, %v : tensor<32x64xf32>, tensor<16x64xf32>) : tensor<1x1x64xf32> -> tensor<1x1x32xf32>, tensor<1x1x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %wg: tensor<172x64xf32>, %wu: tensor<171x64xf32>) {
  // expected-error @+1 {{gate and up weights must have the same shape}}
  %0 = llm.glu_linear silu %x, %wg, %wu : tensor<1x1x64xf32>, tensor<172x64xf32>, tensor<171x64xf32> -> tensor<1x1x172xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %wg: tensor<172x32xf32>, %wu: tensor<172x32xf32>) {
  // expected-error @+1 {{weight input dimension (32) does not match input last dimension (64)}}
  %0 = llm.glu_linear silu %x, %wg, %wu : tensor<1x1x64xf32>, tensor<172x32xf32>, tensor<172x32xf32> -> tensor<1x1x172xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %g: tensor<64xf32>, %wg: tensor<172x64xf32>, %wu: tensor<172x64xf32>) {
  // expected-error @+1 {{norm weight and norm_eps must be given together}}
  %0 = llm.glu_linear silu %x norm(%g : tensor<64xf32>), %wg, %wu : tensor<1x1x64xf32>, tensor<172x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
  return
}

// -----

func.func @f(%c: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = bf16>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x4x8xf16>, %p: tensor<1x1xi32>) {
  // expected-error @+1 {{keys element type 'f16' does not match the cache element type 'bf16' and is not f32}}
  %qr, %c1 = llm.rope_append half %c[0], %q, %k, %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = bf16>, tensor<1x1x8x8xf32>, tensor<1x1x4x8xf16>, tensor<1x1xi32>
  return
}

// -----

func.func @f(%c: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x4x8xf32>, %p: tensor<1x1xi32>) {
  // expected-error @+1 {{rotary_dim (16) exceeds the head dimension (8)}}
  %qr, %c1 = llm.rope_append half %c[0], %q, %k, %k, %p {theta = 1.0e+04 : f64, rotary_dim = 16 : i64} : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, tensor<1x1x8x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1xi32>
  return
}

// -----

func.func @f(%c: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, %q: tensor<1x2x8x8xf32>, %k: tensor<1x1x4x8xf32>, %p: tensor<1x1xi32>) {
  // expected-error @+1 {{positions length (1) does not match q length (2)}}
  %qr, %c1 = llm.rope_append half %c[0], %q, %k, %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, tensor<1x2x8x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1xi32>
  return
}

// -----

func.func @f(%c: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 4, capacity = 16, element_type = f32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x4x4xf32>, %p: tensor<1x1xi32>) {
  // expected-error @+1 {{keys head dimension (4) does not match q head dimension (8)}}
  %qr, %c1 = llm.rope_append half %c[0], %q, %k, %k, %p {theta = 1.0e+04 : f64, rotary_dim = 4 : i64} : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 4, capacity = 16, element_type = f32>, tensor<1x1x8x8xf32>, tensor<1x1x4x4xf32>, tensor<1x1xi32>
  return
}

// -----

func.func @f(%c: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x2x8xf32>, %p: tensor<1x1xi32>) {
  // expected-error @+1 {{keys heads (2) does not match cache kv_heads (4)}}
  %qr, %c1 = llm.rope_append half %c[0], %q, %k, %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, tensor<1x1x8x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1xi32>
  return
}

// -----

func.func @f(%c: !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, %q: tensor<1x1x8x8xf32>, %k: tensor<1x1x4x8xf32>, %p: tensor<1x1xi32>) {
  // expected-error @+1 {{layer 2 is out of range [0, 2)}}
  %qr, %c1 = llm.rope_append half %c[2], %q, %k, %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 16, element_type = f32>, tensor<1x1x8x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1xi32>
  return
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged>
func.func @f(%c: !paged, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>) -> !paged {
  // expected-error @+1 {{'llm.kv_append' op needs the page table of its paged cache: pages(%t : 'tensor<1x32xi32>')}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !paged, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return %0 : !paged
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
func.func @f(%c: !cache, %t: tensor<1x32xi32>) {
  // expected-error @+1 {{'llm.kv_view' op takes a page table only for a paged cache}}
  %k, %v = llm.kv_view %c[0] pages(%t : tensor<1x32xi32>) : !cache -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
  return
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16, layout = paged, page_size = 64>
func.func @f(%c: !paged, %t: tensor<1x32xi32>, %q: tensor<1x?x8x8xf32>, %k: tensor<1x?x4x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{'llm.rope_append' op page table must be 'tensor<1x8xi32>', got 'tensor<1x32xi32>'}}
  %qr, %c1 = llm.rope_append half %c[0] pages(%t : tensor<1x32xi32>), %q, %k, %k, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !paged, tensor<1x?x8x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
  return
}

// -----

func.func @f(%x: tensor<1x1x48xf32>, %w: tensor<64x48x!llm.block<q4_0>>) {
  // expected-error @+1 {{'llm.linear' op weight row length (48) must be a multiple of the q4_0 block (32 elements)}}
  %0 = llm.linear %x, %w : tensor<1x1x48xf32>, tensor<64x48x!llm.block<q4_0>> -> tensor<1x1x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x128xf32>, %w: tensor<64x128x!llm.block<q6_k>>) {
  // expected-error @+1 {{'llm.logits' op weight row length (128) must be a multiple of the q6_k block (256 elements)}}
  %0 = llm.logits %x, %w : tensor<1x1x128xf32>, tensor<64x128x!llm.block<q6_k>> -> tensor<1x1x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x?xf32>, %w: tensor<64x?x!llm.block<q8_0>>) {
  // expected-error @+1 {{'llm.linear' op weight row length (?) must be a multiple of the q8_0 block (32 elements)}}
  %0 = llm.linear %x, %w : tensor<1x1x?xf32>, tensor<64x?x!llm.block<q8_0>> -> tensor<1x1x64xf32>
  return
}

// -----

func.func @f(%t: tensor<1x1xi32>, %table: tensor<512x40x!llm.block<q5_1>>) {
  // expected-error @+1 {{'llm.embedding' op table row length (40) must be a multiple of the q5_1 block (32 elements)}}
  %0 = llm.embedding %t, %table : tensor<1x1xi32>, tensor<512x40x!llm.block<q5_1>> -> tensor<1x1x40xf32>
  return
}

// -----

// Blocks are a weight format only: activations, norms and biases are floats.
func.func @f(%x: tensor<1x1x32x!llm.block<q8_0>>, %w: tensor<64x32xf32>) {
  // expected-error @+1 {{'llm.linear' op operand #0 must be ranked tensor of floating-point values}}
  %0 = llm.linear %x, %w : tensor<1x1x32x!llm.block<q8_0>>, tensor<64x32xf32> -> tensor<1x1x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x32xf32>, %g: tensor<32x!llm.block<q8_0>>) {
  // expected-error @+1 {{'llm.rms_norm' op operand #1 must be ranked tensor of floating-point values}}
  %0 = llm.rms_norm %x, %g {eps = 1.0e-05 : f64} : tensor<1x1x32xf32>, tensor<32x!llm.block<q8_0>> -> tensor<1x1x32xf32>
  return
}

// -----

// Interleaved rows: groups of 8, of a 32-element format, never gathered, a
// row count that fills whole groups.
// expected-error @+1 {{interleave must be 1 or 8 rows, got 4}}
func.func @f(%w: tensor<64x256x!llm.block<q4_0, interleave = 4>>)

// -----

// expected-error @+1 {{only the 32-element block formats can be interleaved, not q4_k}}
func.func @f(%w: tensor<64x256x!llm.block<q4_k, interleave = 8>>)

// -----

func.func @f(%t: tensor<1x1xi32>, %table: tensor<512x64x!llm.block<q4_0, interleave = 8>>) {
  // expected-error @+1 {{'llm.embedding' op table must not be interleaved: its rows are gathered one at a time}}
  %0 = llm.embedding %t, %table : tensor<1x1xi32>, tensor<512x64x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %w: tensor<60x64x!llm.block<q4_0, interleave = 8>>) {
  // expected-error @+1 {{'llm.linear' op weight row count (60) must be a multiple of its interleaved groups (8 rows)}}
  %0 = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<60x64x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x60xf32>
  return
}

// -----

// Interleaved float rows: f32, f16 or bf16 elements in groups of 16, never
// gathered, a static row length and a row count that fills whole groups.
// expected-error @+1 {{interleaved float rows come in groups of 16, got 8}}
func.func @f(%w: tensor<64x256x!llm.interleaved<f16, rows = 8>>)

// -----

// expected-error @+1 {{interleaved rows hold f32, f16 or bf16, not 'i8'}}
func.func @f(%w: tensor<64x256x!llm.interleaved<i8, rows = 16>>)

// -----

// Runs of 2 columns (VDPBF16PS's pairs) are bf16's alone, and nothing
// wider; a row length that splits a run is refused.
// expected-error @+1 {{interleaved 'f16' rows stand in runs of 1 column, got 2}}
func.func @f(%w: tensor<64x256x!llm.interleaved<f16, rows = 16, columns = 2>>)

// -----

// expected-error @+1 {{interleaved 'bf16' rows stand in runs of 1 column or 2, got 4}}
func.func @f(%w: tensor<64x256x!llm.interleaved<bf16, rows = 16, columns = 4>>)

// -----

func.func @f(%x: tensor<1x1x65xf32>, %w: tensor<64x65x!llm.interleaved<bf16, rows = 16, columns = 2>>) {
  // expected-error @+1 {{'llm.linear' op weight row length (65) must be a multiple of its interleaved runs (2 columns)}}
  %0 = llm.linear %x, %w : tensor<1x1x65xf32>, tensor<64x65x!llm.interleaved<bf16, rows = 16, columns = 2>> -> tensor<1x1x64xf32>
  return
}

// -----

func.func @f(%t: tensor<1x1xi32>, %table: tensor<512x64x!llm.interleaved<f16, rows = 16>>) {
  // expected-error @+1 {{'llm.embedding' op table must not be interleaved: its rows are gathered one at a time}}
  %0 = llm.embedding %t, %table : tensor<1x1xi32>, tensor<512x64x!llm.interleaved<f16, rows = 16>> -> tensor<1x1x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x64xf32>, %w: tensor<40x64x!llm.interleaved<f16, rows = 16>>) {
  // expected-error @+1 {{'llm.linear' op weight row count (40) must be a multiple of its interleaved groups (16 rows)}}
  %0 = llm.linear %x, %w : tensor<1x1x64xf32>, tensor<40x64x!llm.interleaved<f16, rows = 16>> -> tensor<1x1x40xf32>
  return
}

// -----

func.func @f(%x: tensor<1x1x?xf32>, %w: tensor<32x?x!llm.interleaved<f16, rows = 16>>) {
  // expected-error @+1 {{'llm.linear' op weight in interleaved rows must have a static row length}}
  %0 = llm.linear %x, %w : tensor<1x1x?xf32>, tensor<32x?x!llm.interleaved<f16, rows = 16>> -> tensor<1x1x32xf32>
  return
}

// -----

// A block weight is interleaved or planar, not both.
// expected-error @+1 {{a block weight is either interleaved or planar}}
func.func @f(%w: tensor<64x256x!llm.block<q4_0, interleave = 8, planar>>)

// -----

// expected-error @+1 {{expected 'interleave'}}
func.func @f(%w: tensor<64x256x!llm.block<q4_0, planer>>)

// -----

// Q3_K (and the other GGUF formats without block kernels) is no block format of the dialect.
// expected-error @+2 {{expected one of [q8_0, q4_0, q4_1, q5_0, q5_1, q4_k, q5_k, q6_k] for block-quantized weight format, got: q3_k}}
// expected-error @+1 {{failed to parse LLM_BlockQuantType parameter 'format'}}
func.func @f(%w: tensor<64x256x!llm.block<q3_k>>)

// -----

func.func @f(%x: tensor<1x?x64xf32>, %w: tensor<64x32xf32>) {
  // expected-error @+1 {{x must have rank 4, got 3}}
  %0 = llm.head_linear %x, %w : tensor<1x?x64xf32>, tensor<64x32xf32> -> tensor<1x?x4x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x4x32xf32>, %w: tensor<64x32x1xf32>) {
  // expected-error @+1 {{weight must have rank 2, got 3}}
  %0 = llm.head_linear %x, %w : tensor<1x?x4x32xf32>, tensor<64x32x1xf32> -> tensor<1x?x4x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x4x32xf32>, %w: tensor<64x32xf32>) {
  // expected-error @+1 {{result must have rank 4, got 3}}
  %0 = llm.head_linear %x, %w : tensor<1x?x4x32xf32>, tensor<64x32xf32> -> tensor<1x?x64xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x4x32xf32>, %w: tensor<64x32xf32>) {
  // expected-error @+1 {{result dimension 2 (2) does not match x dimension 2 (4)}}
  %0 = llm.head_linear %x, %w : tensor<1x?x4x32xf32>, tensor<64x32xf32> -> tensor<1x?x2x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x?x32xf32>, %w: tensor<64x32xf32>) {
  // expected-error @+1 {{needs static heads and head widths}}
  %0 = llm.head_linear %x, %w : tensor<1x?x?x32xf32>, tensor<64x32xf32> -> tensor<1x?x?x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x4x32xf32>, %w: tensor<48x32xf32>) {
  // expected-error @+1 {{weight rows (48) does not match heads x output width (64)}}
  %0 = llm.head_linear %x, %w : tensor<1x?x4x32xf32>, tensor<48x32xf32> -> tensor<1x?x4x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x4x16xf32>, %w: tensor<48x32xf32>) {
  // expected-error @+1 {{weight rows (48) does not match heads x input width (64)}}
  %0 = llm.head_linear %x, %w {transpose_weight} : tensor<1x?x4x16xf32>, tensor<48x32xf32> -> tensor<1x?x4x32xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x4x32xf32>, %w: tensor<64x24xf32>) {
  // expected-error @+1 {{weight columns (24) does not match input width (32)}}
  %0 = llm.head_linear %x, %w : tensor<1x?x4x32xf32>, tensor<64x24xf32> -> tensor<1x?x4x16xf32>
  return
}

// -----

func.func @f(%x: tensor<1x?x4x16xf32>, %w: tensor<64x24xf32>) {
  // expected-error @+1 {{weight columns (24) does not match output width (32)}}
  %0 = llm.head_linear %x, %w {transpose_weight} : tensor<1x?x4x16xf32>, tensor<64x24xf32> -> tensor<1x?x4x32xf32>
  return
}

// -----

// A cache whose values are its keys stores the keys only.
!latent = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32, values = keys>
func.func @f(%c: !latent, %k: tensor<1x?x1x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{'llm.kv_append' op takes no values: the values of a cache with `values = keys` are its keys}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !latent, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x1x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{'llm.kv_append' op needs values: the cache stores them apart from the keys}}
  %0 = llm.kv_append %c[0], %k, %pos : !cache, tensor<1x?x1x8xf32>, tensor<1x?xi32>
  return
}

// -----

!latent = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32, values = keys>
func.func @f(%c: !latent, %q: tensor<1x1x2x8xf32>, %k: tensor<1x1x1x8xf32>, %p: tensor<1x1xi32>) {
  // expected-error @+1 {{'llm.rope_append' op needs a cache with separate values: one with `values = keys` would store the rotated keys as its values (append them with llm.kv_append)}}
  %qr, %c1 = llm.rope_append half %c[0], %q, %k, %k, %p {theta = 1.0e+04 : f64, rotary_dim = 8 : i64} : !latent, tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1xi32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x1x8xf32>) {
  // expected-error @+1 {{expected keys, [values,] positions}}
  %0 = llm.kv_append %c[0], %k : !cache, tensor<1x?x1x8xf32>
  return
}

// -----

!cache = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32>
func.func @f(%c: !cache, %k: tensor<1x?x1x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{expected the types of keys, [values,] positions}}
  %0 = llm.kv_append %c[0], %k, %k, %pos : !cache, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?xi32>
  return
}

// -----

// `values` is `separate` or `keys`.
// expected-error @+2 {{expected one of [separate, keys] for storage of the KV cache's values, got: queries}}
// expected-error @+1 {{failed to parse LLM_KVCacheType parameter 'values'}}
func.func private @f(!llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32, values = queries>)

// -----

// As many types as operands.
!latent = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 1, head_dim = 8, capacity = 16, element_type = f32, values = keys>
func.func @f(%c: !latent, %k: tensor<1x?x1x8xf32>, %pos: tensor<1x?xi32>) {
  // expected-error @+1 {{number of operands and types do not match: got 0 operands and 1 types}}
  %0 = llm.kv_append %c[0], %k, %pos : !latent, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?xi32>
  return
}
