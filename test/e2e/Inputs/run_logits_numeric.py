"""Teacher-forced logits through the whole product: `llmc compile` on a
random-weight config, the weights written as safetensors, `llmc-run
--dump-logits` over a prompt, compared with the numpy decoder of
decoder_numeric.py (one prefill call over every token).

Usage: run_logits_numeric.py <work dir> <variant>...
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoder_numeric import BASE, VARIANTS, reference_logits  # noqa: E402
from llmc_numeric import expect_close  # noqa: E402

# The dump is exact float32 (no printing); what remains is f32 arithmetic
# in another order than numpy's f64 (measured at most 5.4e-5).
LOGITS_ATOL = 1e-4
LOGITS_RTOL = 1e-4
PROMPT_LEN = 12


def write_safetensors(path, tensors):
    header, blob = {}, b""
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    text = json.dumps(header).encode()
    text += b" " * ((-(8 + len(text))) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob)


def weight_shapes(cfg):
    """Hugging Face names and shapes, written from the model definition."""
    d, ffn, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    heads = cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads", heads)
    hd = d // heads
    bias = cfg["model_type"] == "qwen2"
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
        if bias:
            shapes.update({p + "self_attn.q_proj.bias": (heads * hd,),
                           p + "self_attn.k_proj.bias": (kv * hd,),
                           p + "self_attn.v_proj.bias": (kv * hd,)})
    return shapes


def check(work, name):
    cfg = dict(BASE, **VARIANTS[name])
    cfg.pop("_prompt_len", None)
    model_dir = os.path.join(work, name)
    os.makedirs(model_dir, exist_ok=True)
    with open(os.path.join(model_dir, "config.json"), "w") as f:
        json.dump(cfg, f)
    rng = np.random.default_rng(sum(map(ord, name)) + 7)
    weights = {}
    for wname, shape in weight_shapes(cfg).items():
        norm = wname.endswith("norm.weight")
        weights[wname] = ((1.0 if norm else 0.0)
                          + (1.0 if norm else 0.5) * rng.standard_normal(shape)).astype(np.float32)
    write_safetensors(os.path.join(model_dir, "model.safetensors"), weights)
    tokens = rng.integers(0, cfg["vocab_size"], PROMPT_LEN)
    artifact = os.path.join(model_dir, "artifact")
    subprocess.run(["llmc", "compile", os.path.join(model_dir, "config.json"),
                    "--target=cpu", "-o", artifact], check=True, stdout=subprocess.DEVNULL)
    dump = os.path.join(model_dir, "logits.f32")
    subprocess.run(["llmc-run", artifact, "--weights",
                    os.path.join(model_dir, "model.safetensors"),
                    "--tokens", " ".join(str(t) for t in tokens), "--dump-logits", dump],
                   check=True, stderr=subprocess.DEVNULL)
    got = np.fromfile(dump, dtype=np.float32).reshape(PROMPT_LEN, cfg["vocab_size"])
    want = reference_logits(cfg, {k: v.astype(np.float64) for k, v in weights.items()},
                            tokens, PROMPT_LEN)
    expect_close(name + " llmc-run logits", got, want, LOGITS_ATOL, LOGITS_RTOL)


if __name__ == "__main__":
    for variant in sys.argv[2:]:
        check(sys.argv[1], variant)
