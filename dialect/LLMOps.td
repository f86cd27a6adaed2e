// Ops of the `llm` dialect. Shapes in comments: B batch, T new tokens, S key
// positions, D model dim, H/Hkv query/KV heads, Dh head dim, V vocab.
#ifndef LLMC_DIALECT_LLMOPS_TD
#define LLMC_DIALECT_LLMOPS_TD

include "dialect/LLMTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def LLM_FloatTensor : RankedTensorOf<[AnyFloat]>;
/// A weight matrix: float elements, GGUF blocks (`!llm.block<...>`), or
/// float rows in interleaved groups (`!llm.interleaved<...>`).
def LLM_WeightTensor
    : RankedTensorOf<[AnyFloat, LLM_BlockQuantType, LLM_InterleavedFloatType]>;
def LLM_IntTensor : RankedTensorOf<[AnySignlessInteger]>;
def LLM_PageTable : RankedTensorOf<[I32]>;

//===----------------------------------------------------------------------===//
// Embedding, norms, projections
//===----------------------------------------------------------------------===//

def LLM_EmbeddingOp : LLM_Op<"embedding", [Pure]> {
  let summary = "token embedding lookup";
  let description = [{
    Gathers row `tokens[b, t]` of `table` (V, D) for every token. Token ids
    outside [0, V) are undefined behaviour here; the runtime checks them.
    With `scale` every gathered element is multiplied by it, in f32 (Gemma
    scales its embeddings by √hidden_size); the table itself is unchanged,
    so a tied `llm.logits` reading it stays unscaled.

    ```mlir
    %h = llm.embedding %tokens, %table : tensor<1x?xi32>, tensor<512x64xf32> -> tensor<1x?x64xf32>
    %g = llm.embedding %tokens, %table {scale = 8.0 : f64} : tensor<1x?xi32>, tensor<512x64xbf16> -> tensor<1x?x64xf32>
    ```
  }];
  let arguments = (ins LLM_IntTensor:$tokens, LLM_WeightTensor:$table,
                       OptionalAttr<F64Attr>:$scale);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $tokens `,` $table attr-dict `:` type($tokens) `,` type($table) `->` type($result)
  }];
  /// Without a scale (most families).
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$tokens, "Value":$table), [{
      build($_builder, $_state, result, tokens, table, FloatAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def LLM_RMSNormOp : LLM_Op<"rms_norm", [Pure]> {
  let summary = "root-mean-square normalization over the last dimension";
  let description = [{
    `result = (weight + weight_offset) · x / sqrt(mean(x², last dim) + eps)`,
    computed in f32. `weight_offset` (default 0, elided when 0) is Gemma's
    `(1 + w)` RMSNorm: Hugging Face checkpoints store w − 1 (GGUF files bake
    the 1 into the weight and need no offset). x may have any rank: the
    per-head q/k norm of Qwen3 normalizes (B, T, H, Dh) with a weight of Dh,
    OLMo2's norm of a whole projection (B, T, H·Dh) with a weight of H·Dh.
    `llm-fuse-norm-into-projections` leaves a norm with an offset unfused.

    ```mlir
    %n = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
    %g = llm.rms_norm %x, %w {eps = 1.0e-06 : f64, weight_offset = 1.0 : f64} : tensor<1x?x64xf32>, tensor<64xf32> -> tensor<1x?x64xf32>
    %k = llm.rms_norm %kh, %wk {eps = 1.0e-06 : f64} : tensor<1x?x8x128xf32>, tensor<128xf32> -> tensor<1x?x8x128xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$x, LLM_FloatTensor:$weight, F64Attr:$eps,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_offset);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $weight attr-dict `:` type($x) `,` type($weight) `->` type($result)
  }];
  /// Without a weight offset (every family but Gemma's).
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$x, "Value":$weight, "FloatAttr":$eps), [{
      build($_builder, $_state, result, x, weight, eps, FloatAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def LLM_LayerNormOp : LLM_Op<"layer_norm", [Pure]> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    `result = weight · (x − mean) / sqrt(var + eps) + bias`, statistics over
    the last dimension, computed in f32; `bias` is optional.

    ```mlir
    %n = llm.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x64xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$x, LLM_WeightTensor:$weight,
                       Optional<LLM_FloatTensor>:$bias, F64Attr:$eps);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $weight (`,` $bias^)? attr-dict `:` type($x) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def LLM_LinearOp : LLM_Op<"linear", [Pure, AttrSizedOperandSegments]> {
  let summary = "x · Wᵀ (+ bias) (+ residual) with W stored (N, K)";
  let description = [{
    Projects the last dimension: `result[..., n] = Σ_k x[..., k] · weight[n, k]
    (+ bias[n]) (+ residual[..., n])`. The weight is stored output-major as in
    Hugging Face checkpoints; its element type may be narrower than the
    activations (accumulation is in the result's element type or wider).
    The `residual` operand (of the result's type) is the residual connection
    that `llm-fuse-residual-add` folds into the projection's epilogue.

    ```mlir
    %q = llm.linear %x, %wq : tensor<1x?x64xf32>, tensor<64x64xf32> -> tensor<1x?x64xf32>
    %k = llm.linear %x, %wk, %bk : tensor<1x?x896xf32>, tensor<128x896xbf16>, tensor<128xbf16> -> tensor<1x?x128xf32>
    %h = llm.linear %a, %wo residual %h0 : tensor<1x1x64xf32>, tensor<64x64xf32> residual tensor<1x1x64xf32> -> tensor<1x1x64xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$x, LLM_WeightTensor:$weight,
                       Optional<LLM_FloatTensor>:$bias,
                       Optional<LLM_FloatTensor>:$residual);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $weight (`,` $bias^)? (`residual` $residual^)? attr-dict `:`
    type($x) `,` type($weight) (`,` type($bias)^)?
    (`residual` type($residual)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def LLM_HeadLinearOp : LLM_Op<"head_linear", [Pure]> {
  let summary = "one projection per head: x[..., h, :] · W_hᵀ with W = [W_0; W_1; ...]";
  let description = [{
    Projects every head with its own matrix, the heads' matrices stacked in
    one 2-D weight as a checkpoint stores them (multi-head latent attention's
    absorbed up-projections, DeepSeek's `kv_b_proj` split per head):
    `result[b, t, h, n] = Σ_k x[b, t, h, k] · weight[h·N + n, k]`, or with
    `transpose_weight` (the head's rows are (K, N): the key up-projection
    applied to a query, which maps it into the latent space)
    `result[b, t, h, n] = Σ_k x[b, t, h, k] · weight[h·K + k, n]`.
    x is (B, T, H, K), the result (B, T, H, N); the weight is a float tensor
    (narrower element types are widened, accumulation is in f32).

    ```mlir
    // W_UV: v_head_dim 16 rows per head over a 32-wide latent.
    %o = llm.head_linear %latent, %wuv : tensor<1x?x4x32xf32>, tensor<64x32xf32> -> tensor<1x?x4x16xf32>
    // W_UKᵀ: 16 key rows per head, applied to the queries' nope part.
    %ql = llm.head_linear %qnope, %wuk {transpose_weight} : tensor<1x?x4x16xf32>, tensor<64x32xbf16> -> tensor<1x?x4x32xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$x, LLM_FloatTensor:$weight,
                       UnitAttr:$transpose_weight);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $weight attr-dict `:` type($x) `,` type($weight) `->` type($result)
  }];
  let hasVerifier = 1;
}

def LLM_AddOp : LLM_Op<"add", [Pure, SameOperandsAndResultType]> {
  let summary = "residual addition";
  let description = [{
    Element-wise sum of two tensors of one type; kept as its own op so that
    fusion can merge it with the following normalization.

    ```mlir
    %h2 = llm.add %h, %attn : tensor<1x?x64xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$lhs, LLM_FloatTensor:$rhs);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def LLM_LogitsOp : LLM_Op<"logits", [Pure]> {
  let summary = "final projection from hidden states to vocabulary logits";
  let description = [{
    `result[..., v] = Σ_d x[..., d] · weight[v, d] (+ bias[v])`. With `tied`
    the weight is the token-embedding table (no separate `lm_head`), which the
    runtime uses to bind one buffer to both arguments. An LM head may carry a
    bias of the vocabulary's size (GPT-J). With `softcap = c` (c > 0) each
    logit z (bias included) becomes `c · tanh(z / c)`, in f32 (Gemma-2's
    final_logit_softcapping).

    ```mlir
    %logits = llm.logits %h, %table {tied} : tensor<1x?x64xf32>, tensor<512x64xf32> -> tensor<1x?x512xf32>
    %capped = llm.logits %h, %table {tied, softcap = 30.0 : f64} : tensor<1x?x64xf32>, tensor<512x64xf32> -> tensor<1x?x512xf32>
    %biased = llm.logits %h, %head, %b : tensor<1x?x64xf32>, tensor<512x64xf32>, tensor<512xf32> -> tensor<1x?x512xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$x, LLM_WeightTensor:$weight,
                       Optional<LLM_FloatTensor>:$bias, UnitAttr:$tied,
                       OptionalAttr<F64Attr>:$softcap);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $weight (`,` $bias^)? attr-dict `:` type($x) `,` type($weight)
    (`,` type($bias)^)? `->` type($result)
  }];
  /// Without a bias or softcapping.
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$x, "Value":$weight, "bool":$tied), [{
      build($_builder, $_state, result, x, weight, Value(), tied, FloatAttr());
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// RoPE and attention
//===----------------------------------------------------------------------===//

def LLM_RopeOp : LLM_Op<"rope", [Pure, AllTypesMatch<["x", "result"]>]> {
  let summary = "rotary position embedding";
  let description = [{
    Rotates the first `rotary_dim` elements of every head of `x` (B, T, H, Dh)
    by angle `positions[b, t] · inv_freq[i]` with
    `inv_freq[i] = theta^(-2i/rotary_dim)` modified by the context-extension
    method `scaling` (`#llm.rope_linear`, `#llm.rope_ntk`, `#llm.rope_dynamic`,
    `#llm.rope_yarn`, `#llm.rope_llama3`, `#llm.rope_longrope`; none for plain
    RoPE); elements past
    `rotary_dim` pass through (partial rotary). `half` pairs element i with
    i + rotary_dim/2 (Hugging Face rotate_half); `interleaved` pairs 2i with
    2i+1 (Meta, llama2.c and GGUF checkpoints, whose Q/K rows are permuted to
    match).

    ```mlir
    %qr = llm.rope interleaved %q, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64}
        : tensor<1x?x8x8xf32>, tensor<1x?xi32>
    %kr = llm.rope half %k, %pos {theta = 5.0e+05 : f64, rotary_dim = 128 : i64,
        scaling = #llm.rope_llama3<factor = 8.0, original_max_position_embeddings = 8192>}
        : tensor<1x?x8x128xf32>, tensor<1x?xi32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$x, LLM_IntTensor:$positions,
                       LLM_RopeStyleAttr:$style, F64Attr:$theta, I64Attr:$rotary_dim,
                       OptionalAttr<LLM_RopeScalingAttrInterface>:$scaling);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $style $x `,` $positions attr-dict `:` type($x) `,` type($positions)
  }];
  let hasVerifier = 1;
}

def LLM_AttentionOp : LLM_Op<"attention", [Pure]> {
  let summary = "scaled dot-product attention (MHA, GQA, MQA; causal, sliding window)";
  let description = [{
    `result[b, t, h] = Σ_s softmax_s(scale · q[b, t, h] · k[b, s, g]) · v[b, s, g]`
    with `g = ⌊h · num_kv_heads / num_heads⌋`: query heads share KV heads in
    groups of num_heads / num_kv_heads (1 group member: MHA; num_kv_heads = 1:
    MQA). The softmax is computed in f32. `scale` defaults to 1/√Dh.

    Masking. Query t sits at position `p = positions[b, t]` when `positions`
    is given (keys then come from a cache view indexed by position), else at
    `p = t + S − T`. With `causal`, key s is visible iff `s ≤ p`; with
    `sliding_window = W` additionally iff `p − s < W`.

    Softcapping. With `softcap = c` (c > 0) each score z = scale · q · k
    becomes `c · tanh(z / c)` before the mask and the softmax (Gemma-2's
    attn_logit_softcapping, applied as Hugging Face does: before the mask).

    ```mlir
    %o = llm.attention %q, %k, %v, %pos {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal}
        : tensor<1x?x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x?xi32> -> tensor<1x?x8x8xf32>
    %g = llm.attention %q, %k, %v, %pos {num_heads = 8 : i64, num_kv_heads = 4 : i64, causal,
        sliding_window = 4096 : i64, softcap = 50.0 : f64}
        : tensor<1x?x8x8xf32>, tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>, tensor<1x?xi32> -> tensor<1x?x8x8xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$q, LLM_FloatTensor:$k, LLM_FloatTensor:$v,
                       Optional<LLM_IntTensor>:$positions,
                       I64Attr:$num_heads, I64Attr:$num_kv_heads, UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$sliding_window, OptionalAttr<F64Attr>:$scale,
                       OptionalAttr<F64Attr>:$softcap);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`,` $positions^)? attr-dict `:` type($q) `,` type($k) `,` type($v)
    (`,` type($positions)^)? `->` type($result)
  }];
  /// Without softcapping.
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$q, "Value":$k, "Value":$v,
                   "Value":$positions, "int64_t":$num_heads,
                   "int64_t":$num_kv_heads, "bool":$causal,
                   "IntegerAttr":$sliding_window, "FloatAttr":$scale), [{
      build($_builder, $_state, result, q, k, v, positions, num_heads,
            num_kv_heads, causal, sliding_window, scale, FloatAttr());
    }]>
  ];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The softmax scale: the `scale` attribute, else 1/√Dh.
    double getEffectiveScale();
  }];
}

//===----------------------------------------------------------------------===//
// Feed-forward
//===----------------------------------------------------------------------===//

def LLM_GLUOp : LLM_Op<"glu", [Pure, SameOperandsAndResultType]> {
  let summary = "gated linear unit: act(gate) · up";
  let description = [{
    The gated FFN's element-wise core: SwiGLU with `silu`, GeGLU with `gelu`
    or `gelu_tanh`, ReGLU with `relu`.

    ```mlir
    %a = llm.glu silu %gate, %up : tensor<1x?x172xf32>
    ```
  }];
  let arguments = (ins LLM_ActivationAttr:$activation, LLM_FloatTensor:$gate,
                       LLM_FloatTensor:$up);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = "$activation $gate `,` $up attr-dict `:` type($result)";
}

def LLM_ActivationOp : LLM_Op<"activation", [Pure, SameOperandsAndResultType]> {
  let summary = "element-wise activation of a non-gated FFN";
  let description = [{
    ```mlir
    %a = llm.activation gelu_tanh %x : tensor<1x?x256xf32>
    ```
  }];
  let arguments = (ins LLM_ActivationAttr:$activation, LLM_FloatTensor:$x);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = "$activation $x attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Fused projections (made by the fusion passes of the `fused` phase)
//===----------------------------------------------------------------------===//

def LLM_MultiLinearOp : LLM_Op<"multi_linear", [Pure, AttrSizedOperandSegments]> {
  let summary = "several projections of one input, optionally RMS-normalized first";
  let description = [{
    `results[i] = llm.linear(n, weights[i], biases[i])` for every weight,
    where `n = llm.rms_norm(x, norm_weight, norm_eps)` when `norm` is given
    and `n = x` otherwise. Every weight has x's last dimension as its input
    dimension; `biases` is empty or has one bias per weight. Made by
    `llm-fuse-sibling-linears` (the query, key and value projections of an
    attention block) and `llm-fuse-norm-into-projections`; one kernel reads
    the input once for all of them, and a fused norm is never written out.

    ```mlir
    %q, %k, %v = llm.multi_linear %h norm(%g : tensor<64xf32>)
        weights(%wq, %wk, %wv : tensor<64x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>)
        {norm_eps = 1.0e-05 : f64}
        : tensor<1x1x64xf32> -> tensor<1x1x64xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
    ```
  }];
  let arguments = (ins LLM_FloatTensor:$x,
                       Optional<LLM_FloatTensor>:$norm_weight,
                       Variadic<LLM_WeightTensor>:$weights,
                       Variadic<LLM_FloatTensor>:$biases,
                       OptionalAttr<F64Attr>:$norm_eps);
  let results = (outs Variadic<LLM_FloatTensor>:$results);
  let assemblyFormat = [{
    $x (`norm` `(` $norm_weight^ `:` type($norm_weight) `)`)?
    `weights` `(` $weights `:` type($weights) `)`
    (`biases` `(` $biases^ `:` type($biases) `)`)?
    attr-dict `:` type($x) `->` type($results)
  }];
  let hasVerifier = 1;
}

def LLM_GLULinearOp : LLM_Op<"glu_linear", [Pure]> {
  let summary = "gate and up projections of one input and their gated linear unit";
  let description = [{
    `result = llm.glu(activation, llm.linear(n, gate_weight),
    llm.linear(n, up_weight))`, with `n` the input RMS-normalized by
    `norm_weight` and `norm_eps` when `norm` is given, else `x`. Made by
    `llm-fuse-sibling-linears` (a gated FFN's first half) and
    `llm-fuse-norm-into-projections`: one kernel computes both dot products
    of a row and stores only act(gate) · up.

    ```mlir
    %a = llm.glu_linear silu %h norm(%g : tensor<64xf32>), %wg, %wu {norm_eps = 1.0e-05 : f64}
        : tensor<1x1x64xf32>, tensor<172x64xf32>, tensor<172x64xf32> -> tensor<1x1x172xf32>
    ```
  }];
  let arguments = (ins LLM_ActivationAttr:$activation, LLM_FloatTensor:$x,
                       Optional<LLM_FloatTensor>:$norm_weight,
                       LLM_WeightTensor:$gate_weight, LLM_WeightTensor:$up_weight,
                       OptionalAttr<F64Attr>:$norm_eps);
  let results = (outs LLM_FloatTensor:$result);
  let assemblyFormat = [{
    $activation $x (`norm` `(` $norm_weight^ `:` type($norm_weight) `)`)? `,`
    $gate_weight `,` $up_weight attr-dict `:` type($x) `,` type($gate_weight)
    `,` type($up_weight) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// KV cache
//===----------------------------------------------------------------------===//

def LLM_KVAppendOp : LLM_Op<"kv_append", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["cache", "result"]>]> {
  let summary = "write new keys and values of one layer into the cache";
  let description = [{
    Stores `keys[b, t]` and `values[b, t]` (B, T, Hkv, Dh) at position
    `positions[b, t]` of the layer and yields the updated cache. The layer is
    a constant (`%c[3]`) or an `index` value (`%c[%layer]`), so that one
    function can serve every decoder layer. After bufferization the cache is
    updated in place. Positions outside [0, capacity) and a dynamic layer
    outside [0, layers) are undefined here; the runtime checks context length.

    A paged cache (and only a paged cache) takes its page table, `pages(%t)`
    (B, capacity / page_size) i32: position p of sequence b lives in slot
    p mod page_size of page `%t[b, p / page_size]` (see `!llm.kv_cache`).

    A cache whose values are its keys (`values = keys`) takes the keys
    only, `%c[l], %k, %pos`, and stores them once; every other cache takes
    both, `%c[l], %k, %v, %pos`.

    Keys and values come in the cache's element type (its value type, f32,
    for a quantized cache) or in f32, which the append rounds to the
    element type on the way in (as `arith.truncf`), so that the graph
    never narrows them itself: a bf16 or f16 cache takes the projections'
    f32 results as they are.

    ```mlir
    %c1 = llm.kv_append %c0[0], %k, %v, %pos
        : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>,
          tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
    %c2 = llm.kv_append %c1[%layer], %k, %v, %pos : ...
    %p1 = llm.kv_append %p0[%layer] pages(%table : tensor<1x32xi32>), %k, %v, %pos
        : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32, layout = paged>,
          tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?xi32>
    %l1 = llm.kv_append %l0[%layer], %kl, %pos
        : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 1, head_dim = 576, capacity = 512, element_type = bf16, values = keys>,
          tensor<1x?x1x576xf32>, tensor<1x?xi32>
    ```
  }];
  let arguments = (ins LLM_KVCacheType:$cache, LLM_FloatTensor:$keys,
                       Optional<LLM_FloatTensor>:$values, LLM_IntTensor:$positions,
                       Optional<Index>:$layer_index,
                       Optional<LLM_PageTable>:$page_table,
                       OptionalAttr<I64Attr>:$layer);
  let results = (outs LLM_KVCacheType:$result);
  let assemblyFormat = [{
    $cache `[` custom<LayerIndex>($layer_index, $layer) `]`
    (`pages` `(` $page_table^ `:` type($page_table) `)`)? `,`
    custom<AppendedRows>($keys, $values, $positions) attr-dict `:`
    type($cache) `,`
    custom<AppendedRows>(type($keys), type($values), type($positions))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The layer as a constant or as the `index` value.
    ::mlir::OpFoldResult getLayerValue();
  }];
}

def LLM_RopeAppendOp : LLM_Op<"rope_append", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["q", "rotated_q"]>, AllTypesMatch<["keys", "values"]>,
    AllTypesMatch<["cache", "result"]>]> {
  let summary = "RoPE on queries and keys, then keys and values appended to the cache";
  let description = [{
    `rotated_q = llm.rope(q)` and `result = llm.kv_append(cache[layer],
    llm.rope(keys), values, positions)` with one set of RoPE attributes (as
    `llm.rope`) for both; like `llm.kv_append`, it rounds f32 keys and
    values to the cache's element type. Made by `llm-fuse-rope-append` from the queries'
    and keys' `llm.rope` and the `llm.kv_append` that stores the keys: one
    kernel rotates the queries and writes the rotated keys and the values
    straight into the cache. A paged cache takes its page table as
    `llm.kv_append` does; a cache whose values are its keys (`values =
    keys`) is refused (it would store rotated keys as the values: append
    its keys with `llm.kv_append`).

    ```mlir
    %qr, %c1 = llm.rope_append half %c0[%layer], %q, %k, %v, %pos {theta = 1.0e+04 : f64, rotary_dim = 8 : i64}
        : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = bf16>,
          tensor<1x1x8x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1xi32>
    ```
  }];
  let arguments = (ins LLM_KVCacheType:$cache, LLM_FloatTensor:$q,
                       LLM_FloatTensor:$keys, LLM_FloatTensor:$values,
                       LLM_IntTensor:$positions, Optional<Index>:$layer_index,
                       Optional<LLM_PageTable>:$page_table,
                       OptionalAttr<I64Attr>:$layer,
                       LLM_RopeStyleAttr:$style, F64Attr:$theta, I64Attr:$rotary_dim,
                       OptionalAttr<LLM_RopeScalingAttrInterface>:$scaling);
  let results = (outs LLM_FloatTensor:$rotated_q, LLM_KVCacheType:$result);
  let assemblyFormat = [{
    $style $cache `[` custom<LayerIndex>($layer_index, $layer) `]`
    (`pages` `(` $page_table^ `:` type($page_table) `)`)? `,` $q `,`
    $keys `,` $values `,` $positions attr-dict `:`
    type($cache) `,` type($q) `,` type($keys) `,` type($positions)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The layer as a constant or as the `index` value.
    ::mlir::OpFoldResult getLayerValue();
  }];
}

def LLM_KVViewOp : LLM_Op<"kv_view", [Pure, AttrSizedOperandSegments]> {
  let summary = "one layer's cached keys and values as tensors";
  let description = [{
    Returns the keys and values of the layer (a constant or an `index`
    value, as for `llm.kv_append`), each (B, capacity, Hkv, Dh). Slots not
    yet written hold unspecified values; `llm.attention` with `causal` and
    `positions` never reads them. The view of a paged cache (which takes
    its page table as `llm.kv_append` does) is in logical order: element
    [b, p] comes from page `table[b, p / page_size]`. Its lowerings read
    through the table where `llm.attention` consumes the view, so the
    logical tensors are not materialized there. Of a cache whose values are
    its keys (`values = keys`) both results are the keys, read from the one
    stored plane.

    ```mlir
    %k, %v = llm.kv_view %c1[0]
        : !llm.kv_cache<layers = 5, batch = 1, kv_heads = 4, head_dim = 8, capacity = 512, element_type = f32>
          -> tensor<1x512x4x8xf32>, tensor<1x512x4x8xf32>
    ```
  }];
  let arguments = (ins LLM_KVCacheType:$cache, Optional<Index>:$layer_index,
                       Optional<LLM_PageTable>:$page_table,
                       OptionalAttr<I64Attr>:$layer);
  let results = (outs LLM_FloatTensor:$keys, LLM_FloatTensor:$values);
  let assemblyFormat = [{
    $cache `[` custom<LayerIndex>($layer_index, $layer) `]`
    (`pages` `(` $page_table^ `:` type($page_table) `)`)? attr-dict `:`
    type($cache) `->` type($keys) `,` type($values)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$cache, "::mlir::OpFoldResult":$layer,
                   "::mlir::Value":$pageTable)>
  ];
  let extraClassDeclaration = [{
    /// The layer as a constant or as the `index` value.
    ::mlir::OpFoldResult getLayerValue();
  }];
}

#endif // LLMC_DIALECT_LLMOPS_TD
