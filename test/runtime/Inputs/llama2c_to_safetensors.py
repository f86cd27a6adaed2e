"""Converts a llama2.c checkpoint into a Hugging Face-style safetensors file.

Usage: llama2c_to_safetensors.py <in.bin> <out.safetensors>
Tensors get HF names, and q_proj/k_proj rows are reordered from llama2.c's
interleaved RoPE layout to HF's half layout (half row i + h*Dh/2 = interleaved
row 2i + h), as a real HF checkpoint of the same model would hold them. A
shared classifier is left out (tied, as in HF). Standard library only.
"""
import json
import struct
import sys


def half_rows(rows, n_heads):
    """rows: list of row lists for n_heads heads; interleaved -> half order."""
    hd = len(rows) // n_heads
    out = []
    for h in range(n_heads):
        head = rows[h * hd:(h + 1) * hd]
        out += head[0::2] + head[1::2]
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    data = open(src, "rb").read()
    dim, hidden, layers, heads, kv_heads, vocab, seq = struct.unpack_from("<7i", data, 0)
    shared = vocab > 0
    vocab = abs(vocab)
    hd = dim // heads
    off = 28

    def take(n):
        nonlocal off
        vals = list(struct.unpack_from("<%df" % n, data, off))
        off += 4 * n
        return vals

    def matrix(vals, rows):
        cols = len(vals) // rows
        return [vals[r * cols:(r + 1) * cols] for r in range(rows)]

    emb = take(vocab * dim)
    arrays = {}
    for name, per in [("rms_att", dim), ("wq", dim * dim), ("wk", kv_heads * hd * dim),
                      ("wv", kv_heads * hd * dim), ("wo", dim * dim), ("rms_ffn", dim),
                      ("w1", hidden * dim), ("w2", dim * hidden), ("w3", hidden * dim)]:
        arrays[name] = [take(per) for _ in range(layers)]
    norm = take(dim)
    take(seq * hd // 2)
    take(seq * hd // 2)
    wcls = None if shared else take(vocab * dim)

    tensors = [("model.embed_tokens.weight", [vocab, dim], emb)]
    hf = {"rms_att": "input_layernorm", "wq": "self_attn.q_proj", "wk": "self_attn.k_proj",
          "wv": "self_attn.v_proj", "wo": "self_attn.o_proj",
          "rms_ffn": "post_attention_layernorm", "w1": "mlp.gate_proj",
          "w2": "mlp.down_proj", "w3": "mlp.up_proj"}
    shapes = {"rms_att": [dim], "wq": [dim, dim], "wk": [kv_heads * hd, dim],
              "wv": [kv_heads * hd, dim], "wo": [dim, dim], "rms_ffn": [dim],
              "w1": [hidden, dim], "w2": [dim, hidden], "w3": [hidden, dim]}
    for l in range(layers):
        for name in hf:
            vals = arrays[name][l]
            if name in ("wq", "wk"):
                rows = half_rows(matrix(vals, shapes[name][0]), heads if name == "wq" else kv_heads)
                vals = [v for r in rows for v in r]
            tensors.append(("model.layers.%d.%s.weight" % (l, hf[name]), shapes[name], vals))
    tensors.append(("model.norm.weight", [dim], norm))
    if wcls is not None:
        tensors.append(("lm_head.weight", [vocab, dim], wcls))

    header, body, pos = {}, b"", 0
    for name, shape, vals in tensors:
        blob = struct.pack("<%df" % len(vals), *vals)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [pos, pos + len(blob)]}
        body += blob
        pos += len(blob)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(dst, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + body)


if __name__ == "__main__":
    main()
