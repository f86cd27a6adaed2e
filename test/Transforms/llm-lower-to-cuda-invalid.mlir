// Every error of llm-lower-to-cuda: the view of a paged or quantized KV
// cache has no buffer in its logical (batch, capacity) f32 order, so it
// lowers only as the keys and values of llm.attention (whose kernels read
// the pages through the table and decode the codes); any other user is reported once, on the view, before the
// conversion. A block-quantized weight used outside the projections and the
// embedding is reported likewise.
// RUN: llmc-opt %s -split-input-file --llm-lower-to-cuda --verify-diagnostics

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged, page_size = 16>
module {
  // The view returned.
  func.func private @returned(%c: !paged, %t: tensor<1x32xi32>) -> tensor<1x512x4x8xf32> {
    // expected-error @+1 {{'llm.kv_view' op of a paged KV cache: the CUDA lowering reads it only as the keys and values (in that order) of llm.attention, through the page table; here it is used by 'func.return'}}
    %kv:2 = llm.kv_view %c[1] pages(%t : tensor<1x32xi32>) : !paged -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
    return %kv#0 : tensor<1x512x4x8xf32>
  }
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16, layout = paged, page_size = 16>
module {
  // An element-wise op on the view.
  func.func private @added(%c: !paged, %t: tensor<1x32xi32>) -> tensor<1x512x4x8xbf16> {
    // expected-error @+1 {{here it is used by 'llm.add'}}
    %kv:2 = llm.kv_view %c[0] pages(%t : tensor<1x32xi32>) : !paged -> tensor<1x512x4x8xbf16>, tensor<1x512x4x8xbf16>
    %0 = llm.add %kv#0, %kv#1 : tensor<1x512x4x8xbf16>
    return %0 : tensor<1x512x4x8xbf16>
  }
}

// -----

!paged = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged, page_size = 16>
module {
  // Attention reading the keys as its values too: not the view's keys and
  // values.
  func.func private @keys_twice(%c: !paged, %t: tensor<1x32xi32>, %q: tensor<1x1x8x8xf32>, %pos: tensor<1x1xi32>) -> tensor<1x1x8x8xf32> {
    // expected-error @+1 {{here it is used by 'llm.attention'}}
    %kv:2 = llm.kv_view %c[0] pages(%t : tensor<1x32xi32>) : !paged -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
    %0 = llm.attention %q, %kv#0, %kv#0, %pos {causal, num_heads = 8 : i64, num_kv_heads = 4 : i64} : tensor<1x1x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x1xi32> -> tensor<1x1x8x8xf32>
    return %0 : tensor<1x1x8x8xf32>
  }
}

// -----

// Block-quantized weights: the CUDA kernels decode them in the projections
// and the embedding; a block weight reaching any other op (a layer norm's
// weight, which the dialect allows) is reported on that op, naming the weight.
module {
  func.func private @decode(%x: tensor<1x1x256xf32>, %w: tensor<256x!llm.block<q8_0>> {llm.weight = "model.norm.weight"}) -> tensor<1x1x256xf32> {
    // expected-error @+1 {{the CUDA kernels decode block-quantized weights in projections and the embedding only; weight model.norm.weight ('tensor<256x!llm.block<q8_0>>') is used by 'llm.layer_norm' (dequantize it at load: --weight-type=f16)}}
    %y = llm.layer_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x1x256xf32>, tensor<256x!llm.block<q8_0>> -> tensor<1x1x256xf32>
    return %y : tensor<1x1x256xf32>
  }
}

// -----

// The view of a quantized cache has no f32 buffer either: the attention
// kernels decode its codes and scales.
!int8 = !llm.kv_cache<layers = 2, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = i8>
module {
  func.func private @returned(%c: !int8) -> tensor<1x512x4x8xf32> {
    // expected-error @+1 {{'llm.kv_view' op of a quantized KV cache: the CUDA lowering reads it only as the keys and values (in that order) of llm.attention, decoding its codes and scales; here it is used by 'func.return'}}
    %kv:2 = llm.kv_view %c[1] : !int8 -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
    return %kv#0 : tensor<1x512x4x8xf32>
  }
}

// -----

// The CUDA kernels read planar block weights (llm-cuda-planar-weights runs
// before this pass in the CUDA pipeline): interleaved rows are the CPU
// kernels' layout (llm-cpu-interleave-weights runs in the CPU pipeline
// only), and the file's rows are not read either.
module {
  // expected-error @+1 {{argument #1 ('tensor<64x256x!llm.block<q4_0, interleave = 8>>') has interleaved rows, the CPU kernels' layout; the CUDA kernels read planar blocks (llm-cuda-planar-weights) and float rows}}
  func.func private @decode(%x: tensor<1x1x256xf32>, %w: tensor<64x256x!llm.block<q4_0, interleave = 8>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
    %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<64x256x!llm.block<q4_0, interleave = 8>> -> tensor<1x1x64xf32>
    return %y : tensor<1x1x64xf32>
  }
}

// -----

module {
  // expected-error @+1 {{argument #1 ('tensor<64x256x!llm.block<q4_k>>') has the file's rows; the CUDA kernels read planar blocks (llm-cuda-planar-weights) and float rows}}
  func.func private @decode(%x: tensor<1x1x256xf32>, %w: tensor<64x256x!llm.block<q4_k>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
    %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<64x256x!llm.block<q4_k>> -> tensor<1x1x64xf32>
    return %y : tensor<1x1x64xf32>
  }
}

// -----

// Float rows in interleaved groups are the CPU kernels' layout too.
module {
  // expected-error @+1 {{argument #1 ('tensor<64x256x!llm.interleaved<f16, rows = 16>>') has float rows in interleaved groups, the CPU kernels' layout; the CUDA kernels read planar blocks (llm-cuda-planar-weights) and float rows}}
  func.func private @decode(%x: tensor<1x1x256xf32>, %w: tensor<64x256x!llm.interleaved<f16, rows = 16>> {llm.weight = "w"}) -> tensor<1x1x64xf32> {
    %y = llm.linear %x, %w : tensor<1x1x256xf32>, tensor<64x256x!llm.interleaved<f16, rows = 16>> -> tensor<1x1x64xf32>
    return %y : tensor<1x1x64xf32>
  }
}
