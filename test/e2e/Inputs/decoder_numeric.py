"""Whole-decoder numerics: llmc's compiled prefill/decode vs a numpy decoder, for what no Hugging Face
transformers model expresses (every other variant is checked against transformers' own logits:
test/e2e/hf-dir.test and rope-variants.test).

For a tiny random-weight model of the requested variant, builds the `llm` module with `llmc --compile-to=llm`,
lowers it, calls @prefill on a prompt (teacher forcing) and @decode on one more token with the updated KV cache,
and compares every logit with a numpy implementation written from the published formulas (RMSNorm, RoPE, GQA
causal attention, SwiGLU). The reference reads nothing from llmc: its weight table (names, shapes, whether the
head is tied) comes from the variant's own description (weight_shapes); llmc's lowered signature only orders the
arguments, and a weight set that differs from the reference's fails the check.

Variants:
  interleaved-rope, interleaved-partial, long-prefill  GGUF files of architecture llama: llmc rotates adjacent
      pairs (2i, 2i+1) (Meta's / llama.cpp's interleaved RoPE), which no Hugging Face config selects, and the
      reference does the same; whole and partial rotary dimensions (rope.dimension_count), and a prompt longer
      than one attention key tile;
  ntk-rope  static NTK-aware scaling (theta * factor^(d/(d-2))): llmc's own "ntk" rope type, which transformers
      does not have.
  kv-int8, kv-fp8, kv-int8-long  quantized KV caches (--kv-type): every key and value row of one position and KV head is
      stored as codes times one scale, max |x| / 127 with codes rounded to nearest even (int8) or max |x| / 448 with
      codes rounded to the nearest e4m3 value (fp8); the reference rounds its own float64 keys and values the same
      way before attending, so what is left is f32 against float64 (the same bounds as an f32 cache). A prompt
      longer than one key tile reads full tiles and a tail.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np
from llmc_numeric import PRINT_DECL, dense, expect_close, print_tensor, run

# f32 end to end; the printed logits carry 6 significant digits.
LOGITS_ATOL = 1e-4
LOGITS_RTOL = 1e-4

BASE = {
    "model_type": "llama", "hidden_size": 16, "intermediate_size": 24,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "vocab_size": 32, "max_position_embeddings": 16, "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0, "tie_word_embeddings": False, "torch_dtype": "float32",
    "hidden_act": "silu",
}
VARIANTS = {
    "ntk-rope": {"rope_scaling": {"rope_type": "ntk", "factor": 4.0}},
    # GGUF llama files: interleaved RoPE. head_dim 8 (four pairs per head).
    "interleaved-rope": {"_format": "gguf", "hidden_size": 32},
    "interleaved-partial": {"_format": "gguf", "hidden_size": 32,
                            "partial_rotary_factor": 0.5},
    # A prompt longer than one attention key tile, then decode after it.
    "long-prefill": {"_format": "gguf", "max_position_embeddings": 160,
                     "_prompt_len": 150},
    "kv-int8": {"_kv_type": "int8", "hidden_size": 32},
    "kv-fp8": {"_kv_type": "fp8", "hidden_size": 32},
    "kv-int8-long": {"_kv_type": "int8", "max_position_embeddings": 160,
                     "_prompt_len": 150},
}

# The largest code of each quantized cache format.
MAX_CODE = {"int8": 127.0, "fp8": 448.0}


def round_e4m3(y):
    """Nearest e4m3 (OCP FP8, finite-only) value of each element, ties to even: 3 mantissa bits, exponents down
    to -6, below that multiples of 2^-9; |y| <= 448."""
    magnitude = np.abs(y)
    exponent = np.floor(np.log2(np.maximum(magnitude, 2.0 ** -6)))
    step = 2.0 ** (exponent - 3)
    return np.minimum(np.rint(magnitude / step) * step, 448.0) * np.sign(y)


def quantize_rows(x, kv_type):
    """x (S, Hkv, Dh) as a quantized cache stores it: per (position, head), scale = max |x| / max code (an f32)
    and codes of x / scale."""
    if kv_type is None:
        return x
    largest = np.abs(x).max(axis=-1, keepdims=True)
    scale = (largest / MAX_CODE[kv_type]).astype(np.float32).astype(np.float64)
    scaled = np.where(largest > 0, x * (MAX_CODE[kv_type] / np.where(largest > 0, largest, 1.0)), 0.0)
    codes = np.clip(np.rint(scaled), -127, 127) if kv_type == "int8" else round_e4m3(scaled)
    return codes * scale


def rope_style(cfg):
    """How llmc rotates this variant: GGUF llama files are interleaved."""
    return "interleaved" if cfg.get("_format") == "gguf" else "half"


def weight_shapes(cfg):
    """Hugging Face names and shapes, written from the model definition."""
    d, ffn, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    heads = cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads", heads)
    hd = d // heads
    shapes = {"model.embed_tokens.weight": (vocab, d), "model.norm.weight": (d,)}
    if not cfg.get("tie_word_embeddings", False):
        shapes["lm_head.weight"] = (vocab, d)
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        shapes.update({
            p + "input_layernorm.weight": (d,), p + "post_attention_layernorm.weight": (d,),
            p + "self_attn.q_proj.weight": (heads * hd, d),
            p + "self_attn.k_proj.weight": (kv * hd, d),
            p + "self_attn.v_proj.weight": (kv * hd, d),
            p + "self_attn.o_proj.weight": (d, heads * hd),
            p + "mlp.gate_proj.weight": (ffn, d), p + "mlp.up_proj.weight": (ffn, d),
            p + "mlp.down_proj.weight": (d, ffn)})
    return shapes


# GGUF tensor names (llama.cpp's llama architecture) of the HF names.
GGUF_GLOBAL = {"model.embed_tokens": "token_embd", "model.norm": "output_norm",
               "lm_head": "output"}
GGUF_BLOCK = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
              "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
              "input_layernorm": "attn_norm", "mlp.gate_proj": "ffn_gate",
              "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
              "post_attention_layernorm": "ffn_norm",
              # deepseek2's multi-head latent attention
              "self_attn.q_a_proj": "attn_q_a", "self_attn.q_a_layernorm": "attn_q_a_norm",
              "self_attn.q_b_proj": "attn_q_b",
              "self_attn.kv_a_proj_with_mqa": "attn_kv_a_mqa",
              "self_attn.kv_a_layernorm": "attn_kv_a_norm",
              "self_attn.k_b_proj": "attn_k_b", "self_attn.v_b_proj": "attn_v_b"}


def gguf_name(hf_name):
    stem, suffix = hf_name.rsplit(".", 1)
    if stem in GGUF_GLOBAL:
        return GGUF_GLOBAL[stem] + "." + suffix
    m = re.match(r"model\.layers\.(\d+)\.(.*)$", stem)
    return "blk.%s.%s.%s" % (m.group(1), GGUF_BLOCK[m.group(2)], suffix)


def write_gguf(path, cfg, weights):
    """A GGUF v3 file of architecture llama: cfg's hyperparameters as
    metadata, `weights` (HF name -> f32 array, stored as is: no Q/K row
    permutation) as F32 tensors under their GGUF names, ggml dims reversed."""
    def s(text):
        b = text.encode()
        return struct.pack("<Q", len(b)) + b

    def kv(key, fmt, code, value):
        return s(key) + struct.pack("<I", code) + (
            s(value) if code == 8 else struct.pack("<" + fmt, value))

    unsupported = set(cfg) - set(BASE) - {"_format", "partial_rotary_factor"}
    if cfg["model_type"] != "llama" or cfg.get("tie_word_embeddings") or unsupported:
        raise ValueError("write_gguf: %s not expressible here" % sorted(unsupported))
    heads = cfg["num_attention_heads"]
    head_dim = cfg["hidden_size"] // heads
    a = "llama."
    kvs = [kv("general.architecture", "", 8, "llama"),
           kv(a + "block_count", "I", 4, cfg["num_hidden_layers"]),
           kv(a + "embedding_length", "I", 4, cfg["hidden_size"]),
           kv(a + "feed_forward_length", "I", 4, cfg["intermediate_size"]),
           kv(a + "attention.head_count", "I", 4, heads),
           kv(a + "attention.head_count_kv", "I", 4, cfg["num_key_value_heads"]),
           kv(a + "context_length", "I", 4, cfg["max_position_embeddings"]),
           kv(a + "attention.layer_norm_rms_epsilon", "f", 6, cfg["rms_norm_eps"]),
           kv(a + "rope.freq_base", "f", 6, cfg["rope_theta"]),
           kv(a + "rope.dimension_count", "I", 4,
              int(head_dim * cfg.get("partial_rotary_factor", 1.0))),
           kv(a + "vocab_size", "I", 4, cfg["vocab_size"])]
    alignment = 32
    infos, blobs, offset = [], [], 0
    for name, array in weights.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        ne = list(reversed(array.shape))
        infos.append(s(gguf_name(name)) + struct.pack("<I", len(ne))
                     + b"".join(struct.pack("<Q", n) for n in ne)
                     + struct.pack("<IQ", 0, offset))  # type 0: F32
        data += b"\0" * ((-len(data)) % alignment)
        blobs.append(data)
        offset += len(data)
    header = b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kvs))
    header += b"".join(kvs) + b"".join(infos)
    header += b"\0" * ((-len(header)) % alignment)
    with open(path, "wb") as f:
        f.write(header + b"".join(blobs))


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def inv_freq(cfg, rotary_dim):
    """(inverse frequencies, cos/sin scale): theta^(-2i/d), with static NTK's
    theta * factor^(d/(d-2)) for the ntk variant."""
    theta = cfg["rope_theta"]
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    d = rotary_dim
    if kind == "ntk":
        theta = theta * scaling["factor"] ** (d / (d - 2))
    elif kind != "default":
        raise ValueError(kind)
    return 1.0 / theta ** (np.arange(0, d, 2) / d), 1.0


def rope_half(x, positions, freqs, scale):
    # x: (T, H, Dh); freqs: (T, d/2), the call's frequencies for each token;
    # rotates the first d elements as two halves, cos/sin times `scale`.
    half = freqs.shape[1]
    angle = positions[:, None] * freqs
    cos = scale * np.cos(angle)[:, None, :]
    sin = scale * np.sin(angle)[:, None, :]
    out = x.copy()
    a, b = x[..., :half], x[..., half:2 * half]
    out[..., :half] = a * cos - b * sin
    out[..., half:2 * half] = b * cos + a * sin
    return out


def rope_interleaved(x, positions, freqs, scale):
    # The same rotation of adjacent pairs (x[2i], x[2i+1]) by angle
    # position * freqs[i] (Meta's complex-number form: (x[2i] + j x[2i+1]) *
    # e^(j angle)); elements past the 2 * len(freqs) rotated ones pass through.
    pairs = freqs.shape[1]
    angle = positions[:, None] * freqs
    cos = scale * np.cos(angle)[:, None, :]
    sin = scale * np.sin(angle)[:, None, :]
    out = x.copy()
    even, odd = x[..., 0:2 * pairs:2], x[..., 1:2 * pairs:2]
    out[..., 0:2 * pairs:2] = even * cos - odd * sin
    out[..., 1:2 * pairs:2] = odd * cos + even * sin
    return out


def attention(q, k, v, positions):
    # q: (T, H, Dh) at `positions`; k, v: (S, Hkv, Dh) at positions 0..S-1.
    heads, kv_heads, head_dim = q.shape[1], k.shape[1], q.shape[2]
    out = np.zeros_like(q)
    for h in range(heads):
        g = h // (heads // kv_heads)
        scores = q[:, h, :] @ k[:, g, :].T / np.sqrt(head_dim)
        s = np.arange(k.shape[0])[None, :]
        p = positions[:, None]
        visible = s <= p
        scores = np.where(visible, scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        out[:, h, :] = weights @ v[:, g, :]
    return out


def reference_logits(cfg, w, tokens):
    """Logits of every position of `tokens` (teacher forcing), numpy f64.
    RoPE rotates halves or, for GGUF llama variants, adjacent pairs; the
    frequencies of these variants do not depend on the call."""
    d, heads, kv_heads = (cfg["hidden_size"], cfg["num_attention_heads"],
                          cfg.get("num_key_value_heads", cfg["num_attention_heads"]))
    head_dim = d // heads
    rotary_dim = int(head_dim * cfg.get("partial_rotary_factor", 1.0))
    call_freqs, call_scale = inv_freq(cfg, rotary_dim)
    freqs = np.tile(call_freqs, (len(tokens), 1))
    scale = call_scale
    rope = rope_interleaved if rope_style(cfg) == "interleaved" else rope_half
    positions = np.arange(len(tokens), dtype=np.float64)
    x = w["model.embed_tokens.weight"][tokens]
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        def proj(inp, name):
            return inp @ w[p + name + ".weight"].T
        n = rms_norm(x, w[p + "input_layernorm.weight"], cfg["rms_norm_eps"])
        q = proj(n, "self_attn.q_proj").reshape(len(tokens), heads, head_dim)
        k = proj(n, "self_attn.k_proj").reshape(len(tokens), kv_heads, head_dim)
        v = proj(n, "self_attn.v_proj").reshape(len(tokens), kv_heads, head_dim)
        q, k = rope(q, positions, freqs, scale), rope(k, positions, freqs, scale)
        k, v = quantize_rows(k, cfg.get("_kv_type")), quantize_rows(v, cfg.get("_kv_type"))
        a = attention(q, k, v, positions).reshape(len(tokens), heads * head_dim)
        x = x + proj(a, "self_attn.o_proj")
        n = rms_norm(x, w[p + "post_attention_layernorm.weight"], cfg["rms_norm_eps"])
        gate, up = proj(n, "mlp.gate_proj"), proj(n, "mlp.up_proj")
        x = x + proj(gate / (1 + np.exp(-gate)) * up, "mlp.down_proj")
    x = rms_norm(x, w["model.norm.weight"], cfg["rms_norm_eps"])
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    return x @ head.T


def check_variant(name):
    cfg = dict(BASE, **VARIANTS[name])
    prompt_len = cfg.pop("_prompt_len", 6)
    kv_type = cfg.get("_kv_type")
    kv_flags = ["--kv-type=" + kv_type] if kv_type else []
    with tempfile.TemporaryDirectory() as tmp:
        if cfg.get("_format") == "gguf":
            # Only metadata and tensor names are read: zero weights.
            path = os.path.join(tmp, "model.gguf")
            write_gguf(path, cfg, {n: np.zeros(shape, np.float32)
                                   for n, shape in weight_shapes(cfg).items()})
        else:
            path = os.path.join(tmp, "config.json")
            with open(path, "w") as f:
                json.dump({k: v for k, v in cfg.items() if not k.startswith("_")}, f)
        module = subprocess.run(["llmc", "--compile-to=llm", path] + kv_flags,
                                capture_output=True, text=True, check=True).stdout
    lowered = subprocess.run(["llmc-opt", "--llm-lower-to-linalg"], input=module,
                             capture_output=True, text=True, check=True).stdout

    # The reference's own weight table; llmc's signature only orders the arguments.
    rng = np.random.default_rng(sum(map(ord, name)))
    weights = {}
    for wname, shape in sorted(weight_shapes(cfg).items()):
        scale = 1.0 if wname.endswith("norm.weight") else 0.5
        base = 1.0 if wname.endswith("norm.weight") else 0.0
        weights[wname] = (base + scale * rng.standard_normal(shape)).astype(np.float32)
    signature = re.search(r"func.func (?:private )?@prefill\((.*?)\) ->", lowered).group(1)
    weight_args = [(shape, wname) for shape, wname in
                   re.findall(r'tensor<([0-9x]+)xf32> \{llm.weight = "([^"]+)"\}', signature)]
    llmc_names = sorted(wname for _, wname in weight_args)
    if llmc_names != sorted(weights):
        sys.exit("%s: FAILED, llmc's weights differ from the model's: extra %s, missing %s" % (
            name, sorted(set(llmc_names) - set(weights)), sorted(set(weights) - set(llmc_names))))
    for shape, wname in weight_args:
        if tuple(int(x) for x in shape.split("x")) != weights[wname].shape:
            sys.exit("%s: FAILED, llmc's %s is %s, the model's %s" % (
                name, wname, shape, weights[wname].shape))
    cache_type = re.search(r"%arg2: (tensor<[0-9x]+x(?:f32|i8)>)", signature).group(1)
    prefill_result = re.search(r"func.func (?:private )?@prefill\(.*?\) -> \((tensor<[^>]+>)",
                               lowered).group(1)
    vocab = cfg["vocab_size"]
    tokens = rng.integers(0, vocab, prompt_len + 1)

    lines = [lowered.rsplit("}", 1)[0], PRINT_DECL]
    main = ["func.func @main() {"]
    weight_values, weight_types = [], []
    for i, (shape, wname) in enumerate(weight_args):
        literal, ty = dense(weights[wname])
        main.append("  %%w%d = arith.constant %s" % (i, literal))
        weight_values.append("%%w%d" % i)
        weight_types.append(ty)
    zero = "0" if cache_type.endswith("i8>") else "0.0"
    main.append("  %%cache0 = arith.constant dense<%s> : %s" % (zero, cache_type))
    for tag, toks, first in (("p", tokens[:prompt_len], 0),
                             ("d", tokens[prompt_len:], prompt_len)):
        n = len(toks)
        tok_lit, tok_ty = dense(toks.reshape(1, n).astype(np.int32), "i32")
        pos_lit, _ = dense(np.arange(first, first + n, dtype=np.int32).reshape(1, n), "i32")
        main.append("  %%%stok = arith.constant %s" % (tag, tok_lit))
        main.append("  %%%spos = arith.constant %s" % (tag, pos_lit))
    # Prefill: dynamic T, so cast in and out.
    main.append("  %%ptokd = tensor.cast %%ptok : tensor<1x%dxi32> to tensor<1x?xi32>" % prompt_len)
    main.append("  %%pposd = tensor.cast %%ppos : tensor<1x%dxi32> to tensor<1x?xi32>" % prompt_len)
    # The logits of every prompt token: logit_rows (the last argument) = T.
    main.append("  %%prows = arith.constant %d : index" % prompt_len)
    args = ", ".join(["%ptokd", "%pposd", "%cache0"] + weight_values + ["%prows"])
    arg_types = ", ".join(["tensor<1x?xi32>", "tensor<1x?xi32>", cache_type] + weight_types
                          + ["index"])
    main.append("  %%pre:2 = call @prefill(%s) : (%s) -> (%s, %s)"
                % (args, arg_types, prefill_result, cache_type))
    static_logits = "tensor<1x%dx%dxf32>" % (prompt_len, vocab)
    main.append("  %%plog = tensor.cast %%pre#0 : %s to %s" % (prefill_result, static_logits))
    main.append(print_tensor("%plog", static_logits).rstrip("\n"))
    args = ", ".join(["%dtok", "%dpos", "%pre#1"] + weight_values)
    arg_types = ", ".join(["tensor<1x1xi32>", "tensor<1x1xi32>", cache_type] + weight_types)
    decode_logits = "tensor<1x1x%dxf32>" % vocab
    main.append("  %%dec:2 = call @decode(%s) : (%s) -> (%s, %s)"
                % (args, arg_types, decode_logits, cache_type))
    main.append(print_tensor("%dec#0", decode_logits).rstrip("\n"))
    main.append("  return\n}\n}\n")
    prefill_logits, decode_logits_value = run("\n".join(lines + main))

    want = reference_logits(cfg, {k: v.astype(np.float64) for k, v in weights.items()}, tokens)
    expect_close(name + " prefill logits", prefill_logits[0], want[:prompt_len],
                 LOGITS_ATOL, LOGITS_RTOL)
    expect_close(name + " decode logits", decode_logits_value[0, 0], want[prompt_len],
                 LOGITS_ATOL, LOGITS_RTOL)


if __name__ == "__main__":
    for variant in sys.argv[1:] or sorted(VARIANTS):
        check_variant(variant)
