"""config.json entries and weight layouts (transformers' own tensor names and shapes) of the model families
beyond the llama layout that make_hf_model.py writes: tiny random-weight models on the sentencepiece family's
vocabulary (stories260K, 512 ids), hidden 64, 4 heads; goldens by family_goldens.py, which loads every
directory with transformers and fails on a missing, unexpected or mis-shaped tensor, so the names and shapes
here are checked by transformers itself.

Each family: (seed, config(vocab), layout(config)). A layout maps tensor names to (shape, kind); the kind
says how make_hf_model.py fills the tensor (see WEIGHT_KINDS there):
  matrix       a projection or embedding, std WEIGHT_GAIN / sqrt(fan in)
  bias         a projection or LayerNorm bias
  norm         an RMSNorm / LayerNorm scale applied as w (near 1)
  norm-offset  a Gemma RMSNorm scale applied as (1 + w) (near 0)
Numpy only (CI runs make_hf_model.py with /usr/bin/python3).
"""

HIDDEN, HEADS = 64, 4
SENTENCEPIECE_IDS = {"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0}
# phi3-longrope: shorter than the 36-id prompts of family_goldens.py, so a prefill of the prompt uses the long
# factors and a token-by-token decode switches from short to long at position 16.
LONGROPE_ORIGINAL = 16
LONGROPE_SHORT = [1.0, 1.0, 1.2, 1.5, 2.0, 2.6]
LONGROPE_LONG = [1.0, 1.3, 2.0, 3.2, 5.0, 8.0]


def base_config(vocab, model_type, architecture, layers, ffn):
    return dict({"model_type": model_type, "architectures": [architecture], "vocab_size": vocab,
                 "hidden_size": HIDDEN, "intermediate_size": ffn, "num_hidden_layers": layers,
                 "num_attention_heads": HEADS, "max_position_embeddings": 256, "dtype": "float32"},
                **SENTENCEPIECE_IDS)


def qwen3(vocab):
    # head_dim 24: the attention width (96) differs from hidden (64); q_norm / k_norm per head (24 wide).
    return dict(base_config(vocab, "qwen3", "Qwen3ForCausalLM", 2, 128), num_key_value_heads=2, head_dim=24,
                hidden_act="silu", rms_norm_eps=1e-6, rope_theta=1000000.0, attention_bias=False,
                tie_word_embeddings=True, use_sliding_window=False, sliding_window=None, max_window_layers=2)


def olmo2(vocab):
    # No head_dim in OLMo-2 configs (hidden / heads = 16); q_norm over 4 x 16, k_norm over 2 x 16.
    return dict(base_config(vocab, "olmo2", "Olmo2ForCausalLM", 2, 128), num_key_value_heads=2,
                hidden_act="silu", rms_norm_eps=1e-6, rope_theta=500000.0, attention_bias=False,
                tie_word_embeddings=False)


def gemma(vocab):
    # hidden_act "gelu" as in google/gemma-2b's config.json: transformers 5.24's GemmaConfig turns it into
    # gelu_pytorch_tanh (hidden_activation, which later Gemma configs add, is not read by GemmaConfig).
    # MQA (1 kv head), head_dim 32: attention width 128, twice hidden.
    return dict(base_config(vocab, "gemma", "GemmaForCausalLM", 2, 128), num_key_value_heads=1, head_dim=32,
                hidden_act="gelu", hidden_activation="gelu_pytorch_tanh", rms_norm_eps=1e-6,
                rope_theta=10000.0, attention_bias=False, tie_word_embeddings=True)


def gemma2(vocab):
    # No layer_types (as in google/gemma-2-*'s config.json): transformers derives sliding, full, sliding.
    return dict(base_config(vocab, "gemma2", "Gemma2ForCausalLM", 3, 128), num_key_value_heads=2, head_dim=16,
                hidden_act="gelu_pytorch_tanh", hidden_activation="gelu_pytorch_tanh", rms_norm_eps=1e-6,
                rope_theta=10000.0, attention_bias=False, tie_word_embeddings=True, query_pre_attn_scalar=24,
                attn_logit_softcapping=5.0, final_logit_softcapping=3.0, sliding_window=8)


def gemma3_text(vocab):
    # Local layers: rope_local_base_freq, unscaled; global layers: rope_theta with linear scaling (rope_scaling
    # applies to full_attention layers only, as google/gemma-3-4b's factor 8).
    return dict(base_config(vocab, "gemma3_text", "Gemma3ForCausalLM", 3, 128), num_key_value_heads=2,
                head_dim=16, hidden_activation="gelu_pytorch_tanh", rms_norm_eps=1e-6, rope_theta=1000000.0,
                rope_local_base_freq=10000.0, rope_scaling={"rope_type": "linear", "factor": 8.0},
                attention_bias=False, tie_word_embeddings=True, query_pre_attn_scalar=20, sliding_window=8,
                layer_types=["sliding_attention", "sliding_attention", "full_attention"],
                attn_logit_softcapping=None, final_logit_softcapping=None)


def gemma2_gguf(vocab):
    # Gemma 2 as llama.cpp's GGUF keeps it: convert_hf_to_gguf.py drops query_pre_attn_scalar and llama.cpp then
    # scales by head_dim^-0.5, which is google/gemma-2-2b's and -9b's query_pre_attn_scalar (256 = head_dim).
    return dict(gemma2(vocab), query_pre_attn_scalar=16)


def gemma3_gguf(vocab):
    # Gemma 3 as llama.cpp's GGUF keeps it: no layer_types (the converter drops them; llama.cpp slides all
    # layers but every sixth), google/gemma-3-1b's sliding_window_pattern 6 over 6 layers (five sliding, then
    # full), query_pre_attn_scalar = head_dim (google/gemma-3-1b to -12b's 256).
    cfg = dict(gemma3_text(vocab), num_hidden_layers=6, query_pre_attn_scalar=16, sliding_window_pattern=6)
    del cfg["layer_types"]
    return cfg


def gpt_neox(vocab):
    # Pythia's spelling: rotary_pct / rotary_emb_base (transformers turns them into partial_rotary_factor /
    # rope_theta), no attention_bias (default true), exact-erf "gelu", untied embed_out.
    return dict(base_config(vocab, "gpt_neox", "GPTNeoXForCausalLM", 2, 256), hidden_act="gelu",
                rotary_pct=0.25, rotary_emb_base=10000, layer_norm_eps=1e-5, use_parallel_residual=True,
                tie_word_embeddings=False)


def gpt_neox_sequential(vocab):
    return dict(gpt_neox(vocab), use_parallel_residual=False)


def phi3(vocab):
    # Phi-3's sliding_window (20, shorter than the prompt) applies to every layer.
    return dict(base_config(vocab, "phi3", "Phi3ForCausalLM", 2, 128), num_key_value_heads=2,
                hidden_act="silu", rms_norm_eps=1e-5, rope_theta=10000.0, partial_rotary_factor=0.5,
                sliding_window=20, tie_word_embeddings=False)


def phi3_longrope(vocab):
    # Phi-3-mini-128k's spelling: original_max_position_embeddings at the top level, rope_scaling "longrope"
    # without a factor (max_position_embeddings / original = 4 gives the attention factor); 12 of 16 head
    # dimensions rotate (as Phi-4-mini's 0.75), so 6 factors each.
    cfg = dict(phi3(vocab), partial_rotary_factor=0.75, sliding_window=None,
               max_position_embeddings=4 * LONGROPE_ORIGINAL, original_max_position_embeddings=LONGROPE_ORIGINAL,
               rope_scaling={"type": "longrope", "short_factor": LONGROPE_SHORT, "long_factor": LONGROPE_LONG})
    return cfg


def qwen2_window_layers(vocab):
    # Qwen2's sliding window on the layers from max_window_layers on: full, sliding, sliding.
    return dict(base_config(vocab, "qwen2", "Qwen2ForCausalLM", 3, 128), num_key_value_heads=2,
                hidden_act="silu", rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=True,
                use_sliding_window=True, sliding_window=8, max_window_layers=1)


def gptj(vocab):
    # GPT-J's spelling (n_embd, n_head, n_layer, n_positions); n_inner null: 4 x n_embd; rotary_dim 8 of 16,
    # interleaved pairs; activation_function gelu_new (the tanh form).
    return dict({"model_type": "gptj", "architectures": ["GPTJForCausalLM"], "vocab_size": vocab,
                 "n_embd": HIDDEN, "n_head": HEADS, "n_layer": 2, "n_inner": None, "n_positions": 256,
                 "rotary_dim": 8, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
                 "tie_word_embeddings": False, "dtype": "float32"}, **SENTENCEPIECE_IDS)


def deepseek_v3(vocab):
    # MLA with a query LoRA (q_a_proj, q_a_layernorm, q_b_proj), the latent kv (kv_lora_rank 32) plus one rope
    # key (8 wide) shared by all heads; every layer dense (first_k_dense_replace = layers); YaRN factor 4 from
    # 16 positions with DeepSeek-V3's mscale / mscale_all_dim 1.0 (softmax scale x mscale^2).
    return dict(base_config(vocab, "deepseek_v3", "DeepseekV3ForCausalLM", 2, 128), num_key_value_heads=4,
                q_lora_rank=32, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16,
                first_k_dense_replace=2, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
                n_group=1, topk_group=1, moe_intermediate_size=32, hidden_act="silu", rms_norm_eps=1e-6,
                rope_interleave=True, attention_bias=False, tie_word_embeddings=False,
                max_position_embeddings=64, rope_theta=10000.0,
                rope_scaling={"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16,
                              "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0})


def deepseek_v2(vocab):
    # DeepSeek-V2-Lite's shape: no query LoRA (q_proj), mscale / mscale_all_dim 0.707.
    return dict(base_config(vocab, "deepseek_v2", "DeepseekV2ForCausalLM", 2, 128), num_key_value_heads=4,
                q_lora_rank=None, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16,
                first_k_dense_replace=2, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
                moe_intermediate_size=32, hidden_act="silu", rms_norm_eps=1e-6, attention_bias=False,
                tie_word_embeddings=False, max_position_embeddings=64, rope_theta=10000.0,
                rope_scaling={"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16,
                              "beta_fast": 32, "beta_slow": 1, "mscale": 0.707, "mscale_all_dim": 0.707})


def deepseek_v3_mscale(vocab):
    # mscale 1 and mscale_all_dim 0.707, which differ: convert_hf_to_gguf.py drops mscale and llama.cpp takes it
    # to be mscale_all_dim, so its GGUF file leaves YaRN's cos/sin unscaled where transformers multiplies them by
    # mscale(4, 1) / mscale(4, 0.707) (llama.cpp's own logits: gguf-deepseek2.test).
    cfg = deepseek_v3(vocab)
    return dict(cfg, rope_scaling=dict(cfg["rope_scaling"], mscale=1.0, mscale_all_dim=0.707))


def deepseek_v3_yarn_default(vocab):
    # YaRN without mscale_all_dim: the file has no yarn_log_multiplier, and llama.cpp scales the attention scores
    # by YaRN's mscale(4)^2 on top of the cos/sin factor, where transformers keeps qk_head_dim^-0.5.
    cfg = deepseek_v3(vocab)
    rope = {k: v for k, v in cfg["rope_scaling"].items() if k not in ("mscale", "mscale_all_dim")}
    return dict(cfg, rope_scaling=rope)


def heads(cfg):
    """(query heads, kv heads, head_dim) as transformers derives them."""
    n = cfg["num_attention_heads"]
    return n, cfg.get("num_key_value_heads", n), cfg.get("head_dim", cfg["hidden_size"] // n)


def llama_like_layout(cfg, layer_norms, attention_norm_width=None, qkv_bias=False):
    """Separate q/k/v/o and gate/up/down projections (qwen3, olmo2, gemma, gemma2, gemma3_text, qwen2).
    layer_norms: {name: kind} of each layer's norms; attention_norm_width: q_norm / k_norm widths."""
    n, kv, hd = heads(cfg)
    hidden, ffn, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    norm_kind = "norm-offset" if cfg["model_type"].startswith("gemma") else "norm"
    w = {"model.embed_tokens.weight": ((vocab, hidden), "matrix"), "model.norm.weight": ((hidden,), norm_kind)}
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        w.update({p + "self_attn.q_proj.weight": ((n * hd, hidden), "matrix"),
                  p + "self_attn.k_proj.weight": ((kv * hd, hidden), "matrix"),
                  p + "self_attn.v_proj.weight": ((kv * hd, hidden), "matrix"),
                  p + "self_attn.o_proj.weight": ((hidden, n * hd), "matrix"),
                  p + "mlp.gate_proj.weight": ((ffn, hidden), "matrix"),
                  p + "mlp.up_proj.weight": ((ffn, hidden), "matrix"),
                  p + "mlp.down_proj.weight": ((hidden, ffn), "matrix")})
        w.update({p + name + ".weight": ((hidden,), kind) for name, kind in layer_norms.items()})
        if qkv_bias:
            w.update({p + "self_attn.%s_proj.bias" % x: ((rows,), "bias")
                      for x, rows in (("q", n * hd), ("k", kv * hd), ("v", kv * hd))})
        if attention_norm_width:
            q_width, k_width = attention_norm_width
            w[p + "self_attn.q_norm.weight"] = ((q_width,), norm_kind)
            w[p + "self_attn.k_norm.weight"] = ((k_width,), norm_kind)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = ((vocab, hidden), "matrix")
    return w


def qwen3_layout(cfg):
    _, _, hd = heads(cfg)
    return llama_like_layout(cfg, {"input_layernorm": "norm", "post_attention_layernorm": "norm"}, (hd, hd))


def olmo2_layout(cfg):
    n, kv, hd = heads(cfg)
    return llama_like_layout(cfg, {"post_attention_layernorm": "norm", "post_feedforward_layernorm": "norm"},
                             (n * hd, kv * hd))


def gemma_layout(cfg):
    return llama_like_layout(cfg, {"input_layernorm": "norm-offset", "post_attention_layernorm": "norm-offset"})


SANDWICH_NORMS = {name: "norm-offset" for name in ("input_layernorm", "post_attention_layernorm",
                                                   "pre_feedforward_layernorm", "post_feedforward_layernorm")}


def gemma2_layout(cfg):
    return llama_like_layout(cfg, SANDWICH_NORMS)


def gemma3_text_layout(cfg):
    _, _, hd = heads(cfg)
    return llama_like_layout(cfg, SANDWICH_NORMS, (hd, hd))


def qwen2_layout(cfg):
    return llama_like_layout(cfg, {"input_layernorm": "norm", "post_attention_layernorm": "norm"}, qkv_bias=True)


def gptj_layout(cfg):
    """One LayerNorm (ln_1) feeding attention and MLP; q/k/v/out_proj without biases; lm_head with a bias."""
    hidden, vocab = cfg["n_embd"], cfg["vocab_size"]
    ffn = cfg["n_inner"] or 4 * hidden
    w = {"transformer.wte.weight": ((vocab, hidden), "matrix"), "lm_head.weight": ((vocab, hidden), "matrix"),
         "lm_head.bias": ((vocab,), "bias"), "transformer.ln_f.weight": ((hidden,), "norm"),
         "transformer.ln_f.bias": ((hidden,), "bias")}
    for i in range(cfg["n_layer"]):
        p = "transformer.h.%d." % i
        w.update({p + "ln_1.weight": ((hidden,), "norm"), p + "ln_1.bias": ((hidden,), "bias"),
                  p + "mlp.fc_in.weight": ((ffn, hidden), "matrix"), p + "mlp.fc_in.bias": ((ffn,), "bias"),
                  p + "mlp.fc_out.weight": ((hidden, ffn), "matrix"), p + "mlp.fc_out.bias": ((hidden,), "bias")})
        w.update({p + "attn.%s.weight" % x: ((hidden, hidden), "matrix")
                  for x in ("q_proj", "k_proj", "v_proj", "out_proj")})
    return w


def mla_layout(cfg):
    """DeepSeek's multi-head latent attention (deepseek_v2, deepseek_v3) with dense MLPs."""
    n, hidden, ffn = cfg["num_attention_heads"], cfg["hidden_size"], cfg["intermediate_size"]
    vocab = cfg["vocab_size"]
    rank, rope, nope, v = cfg["kv_lora_rank"], cfg["qk_rope_head_dim"], cfg["qk_nope_head_dim"], cfg["v_head_dim"]
    w = {"model.embed_tokens.weight": ((vocab, hidden), "matrix"), "model.norm.weight": ((hidden,), "norm"),
         "lm_head.weight": ((vocab, hidden), "matrix")}
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        if cfg["q_lora_rank"]:
            w.update({p + "self_attn.q_a_proj.weight": ((cfg["q_lora_rank"], hidden), "matrix"),
                      p + "self_attn.q_a_layernorm.weight": ((cfg["q_lora_rank"],), "norm"),
                      p + "self_attn.q_b_proj.weight": ((n * (nope + rope), cfg["q_lora_rank"]), "matrix")})
        else:
            w[p + "self_attn.q_proj.weight"] = ((n * (nope + rope), hidden), "matrix")
        w.update({p + "self_attn.kv_a_proj_with_mqa.weight": ((rank + rope, hidden), "matrix"),
                  p + "self_attn.kv_a_layernorm.weight": ((rank,), "norm"),
                  p + "self_attn.kv_b_proj.weight": ((n * (nope + v), rank), "matrix"),
                  p + "self_attn.o_proj.weight": ((hidden, n * v), "matrix"),
                  p + "mlp.gate_proj.weight": ((ffn, hidden), "matrix"),
                  p + "mlp.up_proj.weight": ((ffn, hidden), "matrix"),
                  p + "mlp.down_proj.weight": ((hidden, ffn), "matrix"),
                  p + "input_layernorm.weight": ((hidden,), "norm"),
                  p + "post_attention_layernorm.weight": ((hidden,), "norm")})
    return w


def gpt_neox_layout(cfg):
    """query_key_value: 3 x hidden rows, ordered per head (q, k, v of head 0, then of head 1, ...)."""
    hidden, ffn, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    w = {"gpt_neox.embed_in.weight": ((vocab, hidden), "matrix"), "embed_out.weight": ((vocab, hidden), "matrix"),
         "gpt_neox.final_layer_norm.weight": ((hidden,), "norm"),
         "gpt_neox.final_layer_norm.bias": ((hidden,), "bias")}
    for i in range(cfg["num_hidden_layers"]):
        p = "gpt_neox.layers.%d." % i
        for norm in ("input_layernorm", "post_attention_layernorm"):
            w[p + norm + ".weight"] = ((hidden,), "norm")
            w[p + norm + ".bias"] = ((hidden,), "bias")
        for name, (rows, cols) in {"attention.query_key_value": (3 * hidden, hidden),
                                   "attention.dense": (hidden, hidden),
                                   "mlp.dense_h_to_4h": (ffn, hidden), "mlp.dense_4h_to_h": (hidden, ffn)}.items():
            w[p + name + ".weight"] = ((rows, cols), "matrix")
            w[p + name + ".bias"] = ((rows,), "bias")
    return w


def phi3_layout(cfg):
    """qkv_proj: all query rows, then all key rows, then all value rows; gate_up_proj: gate rows, then up."""
    n, kv, hd = heads(cfg)
    hidden, ffn, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    w = {"model.embed_tokens.weight": ((vocab, hidden), "matrix"), "model.norm.weight": ((hidden,), "norm"),
         "lm_head.weight": ((vocab, hidden), "matrix")}
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        w.update({p + "self_attn.qkv_proj.weight": (((n + 2 * kv) * hd, hidden), "matrix"),
                  p + "self_attn.o_proj.weight": ((hidden, n * hd), "matrix"),
                  p + "mlp.gate_up_proj.weight": ((2 * ffn, hidden), "matrix"),
                  p + "mlp.down_proj.weight": ((hidden, ffn), "matrix"),
                  p + "input_layernorm.weight": ((hidden,), "norm"),
                  p + "post_attention_layernorm.weight": ((hidden,), "norm")})
    return w


# family: (seed, config, layout). gpt_neox-sequential shares gpt_neox's seed, so the two differ only in
# use_parallel_residual.
FAMILIES = {
    "qwen3": (21, qwen3, qwen3_layout),
    "olmo2": (22, olmo2, olmo2_layout),
    "gemma": (23, gemma, gemma_layout),
    "gemma2": (24, gemma2, gemma2_layout),
    "gemma3_text": (25, gemma3_text, gemma3_text_layout),
    "gemma2-gguf": (33, gemma2_gguf, gemma2_layout),
    "gemma3-gguf": (34, gemma3_gguf, gemma3_text_layout),
    "gpt_neox": (26, gpt_neox, gpt_neox_layout),
    "gpt_neox-sequential": (26, gpt_neox_sequential, gpt_neox_layout),
    "phi3": (27, phi3, phi3_layout),
    "phi3-longrope": (28, phi3_longrope, phi3_layout),
    "qwen2-window-layers": (29, qwen2_window_layers, qwen2_layout),
    "gptj": (30, gptj, gptj_layout),
    "deepseek_v3": (31, deepseek_v3, mla_layout),
    "deepseek_v2": (32, deepseek_v2, mla_layout),
    "deepseek_v3-mscale": (35, deepseek_v3_mscale, mla_layout),
    "deepseek_v3-yarn-default": (36, deepseek_v3_yarn_default, mla_layout),
}
