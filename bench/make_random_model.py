#!/usr/bin/python3
"""Writes a Hugging Face style model directory (config.json + model.safetensors, f32) for the benchmark.

Two sources:
  --shape smollm2-135m | tiny   random weights of that shape (seeded, reproducible)
  --from-llama2c FILE.bin       the weights of a llama2.c checkpoint (e.g. stories260K.bin), with the
                                q_proj/k_proj rows reordered from interleaved to half RoPE order so that
                                Hugging Face code (half rotation) computes the same model.

Only numpy and the standard library are used. Never commit the output: write it under /tmp.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

SHAPES = {
    # SmolLM2-135M's public numbers (tied embedding, GQA 9/3, theta 1e5).
    "smollm2-135m": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                         num_attention_heads=9, num_key_value_heads=3, vocab_size=49152,
                         rope_theta=100000.0, rms_norm_eps=1e-5, tie_word_embeddings=True,
                         max_position_embeddings=8192),
    # A few-MB model for a quick check of the whole benchmark.
    "tiny": dict(hidden_size=128, intermediate_size=344, num_hidden_layers=4,
                 num_attention_heads=4, num_key_value_heads=2, vocab_size=1024,
                 rope_theta=10000.0, rms_norm_eps=1e-5, tie_word_embeddings=True,
                 max_position_embeddings=2048),
}


def hf_config(shape, bos=None, eos=None):
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "attention_bias": False,
        "mlp_bias": False,
        "hidden_act": "silu",
        "head_dim": shape["hidden_size"] // shape["num_attention_heads"],
        "rope_scaling": None,
        "torch_dtype": "float32",
    }
    cfg.update(shape)
    # A random model has no meaningful end token: leave EOS out so that no engine stops early
    # (a benchmark decodes a fixed number of tokens).
    if bos is not None:
        cfg["bos_token_id"] = bos
    if eos is not None:
        cfg["eos_token_id"] = eos
    return cfg


def write_safetensors(path, tensors):
    """tensors: list of (name, float32 C-contiguous array), written in that order."""
    header, offset = {}, 0
    for name, arr in tensors:
        assert arr.dtype == np.float32 and arr.flags.c_contiguous, name
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
    header["__metadata__"] = {"format": "pt"}
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)  # keep the data 8-byte aligned
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        for _, arr in tensors:
            arr.tofile(f)
    os.replace(tmp, path)


def random_tensors(shape, seed):
    rng = np.random.default_rng(seed)
    D, I, L = shape["hidden_size"], shape["intermediate_size"], shape["num_hidden_layers"]
    H, KV, V = shape["num_attention_heads"], shape["num_key_value_heads"], shape["vocab_size"]
    Dh = D // H

    def mat(rows, cols, std=0.05):
        a = rng.standard_normal((rows, cols), dtype=np.float32)
        a *= np.float32(std)
        return a

    def norm():  # around 1, not exactly 1, so that a missing norm weight shows up in the logits
        return (1.0 + 0.1 * rng.standard_normal(D, dtype=np.float32)).astype(np.float32)

    # Projections at std 0.05 (about 1.2/sqrt(hidden)) so that every layer changes the residual stream
    # and the greedy sequence varies from token to token (at HF's 0.02 it repeats one token forever,
    # which makes the engines' token comparison a weak check); the embedding at 0.1.
    out = [("model.embed_tokens.weight", mat(V, D, 0.1))]
    for l in range(L):
        p = f"model.layers.{l}."
        out += [
            (p + "input_layernorm.weight", norm()),
            (p + "self_attn.q_proj.weight", mat(H * Dh, D)),
            (p + "self_attn.k_proj.weight", mat(KV * Dh, D)),
            (p + "self_attn.v_proj.weight", mat(KV * Dh, D)),
            (p + "self_attn.o_proj.weight", mat(D, H * Dh)),
            (p + "post_attention_layernorm.weight", norm()),
            (p + "mlp.gate_proj.weight", mat(I, D)),
            (p + "mlp.up_proj.weight", mat(I, D)),
            (p + "mlp.down_proj.weight", mat(D, I)),
        ]
    out.append(("model.norm.weight", norm()))
    return out


def interleaved_to_half(w, n_heads, head_dim):
    """Rows (2i, 2i+1) of each head move to (i, i + head_dim/2)."""
    w = w.reshape(n_heads, head_dim // 2, 2, -1)
    return np.ascontiguousarray(w.transpose(0, 2, 1, 3).reshape(n_heads * head_dim, -1))


def llama2c_tensors(path):
    with open(path, "rb") as f:
        data = f.read()
    D, I, L, H, KV, V, S = struct.unpack_from("<7i", data, 0)
    shared = V > 0
    V = abs(V)
    Dh = D // H
    floats = np.frombuffer(data, dtype="<f4", offset=28)
    pos = 0

    def take(*shape):
        nonlocal pos
        n = int(np.prod(shape))
        a = floats[pos:pos + n].reshape(shape).astype(np.float32)
        pos += n
        return a

    emb = take(V, D)
    rms_att = take(L, D)
    wq = take(L, H * Dh, D)
    wk = take(L, KV * Dh, D)
    wv = take(L, KV * Dh, D)
    wo = take(L, D, H * Dh)
    rms_ffn = take(L, D)
    w1 = take(L, I, D)
    w2 = take(L, D, I)
    w3 = take(L, I, D)
    rms_final = take(D)
    take(S * Dh // 2)  # freq_cis_real (unused)
    take(S * Dh // 2)  # freq_cis_imag (unused)
    out = [("model.embed_tokens.weight", emb)]
    for l in range(L):
        p = f"model.layers.{l}."
        out += [
            (p + "input_layernorm.weight", rms_att[l]),
            (p + "self_attn.q_proj.weight", interleaved_to_half(wq[l], H, Dh)),
            (p + "self_attn.k_proj.weight", interleaved_to_half(wk[l], KV, Dh)),
            (p + "self_attn.v_proj.weight", np.ascontiguousarray(wv[l])),
            (p + "self_attn.o_proj.weight", np.ascontiguousarray(wo[l])),
            (p + "post_attention_layernorm.weight", rms_ffn[l]),
            (p + "mlp.gate_proj.weight", np.ascontiguousarray(w1[l])),
            (p + "mlp.up_proj.weight", np.ascontiguousarray(w3[l])),
            (p + "mlp.down_proj.weight", np.ascontiguousarray(w2[l])),
        ]
    out.append(("model.norm.weight", rms_final))
    if not shared:
        out.append(("lm_head.weight", take(V, D)))
    shape = dict(hidden_size=D, intermediate_size=I, num_hidden_layers=L, num_attention_heads=H,
                 num_key_value_heads=KV, vocab_size=V, rope_theta=10000.0, rms_norm_eps=1e-5,
                 tie_word_embeddings=shared, max_position_embeddings=S)
    return shape, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--shape", choices=sorted(SHAPES))
    src.add_argument("--from-llama2c", metavar="FILE")
    ap.add_argument("--out", required=True, help="output directory (created)")
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()

    if args.from_llama2c:
        shape, tensors = llama2c_tensors(args.from_llama2c)
        cfg = hf_config(shape, bos=1, eos=2)
    else:
        shape = SHAPES[args.shape]
        tensors = random_tensors(shape, args.seed)
        cfg = hf_config(shape)
    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    text = json.dumps(cfg, indent=2) + "\n"
    cfg_path = os.path.join(args.out, "config.json")
    old = open(cfg_path).read() if os.path.exists(cfg_path) else None
    if old != text:  # unchanged configs keep their mtime: run.sh recompiles when the config is newer
        with open(cfg_path, "w") as f:
            f.write(text)
    n = sum(a.size for _, a in tensors)
    print(f"wrote {args.out}: {len(tensors)} tensors, {n} parameters, {4 * n} bytes (f32)", file=sys.stderr)


if __name__ == "__main__":
    main()
