"""Random-weight LLaMA-family checkpoints for the GPU integration tests,
written with the standard library only (the GPU machine may lack numpy).

Usage: random_model.py <out dir> <variant>
Writes <out dir>/config.json, model.safetensors (float32) and prompt.tokens
(one line of token ids), and prints the variant's prompt length.

The sizes are chosen for the CUDA kernels rather than for speed: head_dim 64
(128 in head128), an intermediate size and a vocabulary that are not
multiples of the usual tile sizes (688 = 43 * 16, 1000), so the edges of
every tiled kernel are exercised. Weights have standard deviation
1/sqrt(fan_in), as in trained models, so activations and logits stay O(1)
and absolute error bounds mean the same thing for every variant.
"""
import json
import math
import os
import random
import struct
import sys

BASE = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000,
    "max_position_embeddings": 512, "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0, "tie_word_embeddings": False,
    "torch_dtype": "float32", "hidden_act": "silu",
    "bos_token_id": 1, "eos_token_id": 2,
}

# name: (config changes, prompt length). A prompt of 40 spans several
# 16-position windows and, for the scaled RoPE variants, passes the
# original context.
VARIANTS = {
    "gqa": ({}, 40),
    "mha": ({"num_key_value_heads": 4}, 40),
    "mqa": ({"num_key_value_heads": 1}, 40),
    "tied": ({"tie_word_embeddings": True}, 40),
    "qwen2-bias": ({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"],
                    "tie_word_embeddings": True}, 40),
    "mistral-window": ({"model_type": "mistral",
                        "architectures": ["MistralForCausalLM"],
                        "sliding_window": 16}, 40),
    "llama3-rope": ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                                      "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                      "original_max_position_embeddings": 32}}, 40),
    "yarn-rope": ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                    "original_max_position_embeddings": 32,
                                    "beta_fast": 32.0, "beta_slow": 1.0}}, 40),
    # transformers scales dynamic NTK past max_position_embeddings (not
    # original_max_position_embeddings): 32, so the 40-token prompt passes it.
    "dynamic-rope": ({"rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
                      "max_position_embeddings": 32}, 40),
    "head128": ({"num_attention_heads": 2, "num_key_value_heads": 1}, 40),
    # Several key tiles of the attention kernels (tiles of 64 or 128 keys),
    # the last one partial.
    "long-prefill": ({}, 300),
}


def weight_shapes(cfg):
    """Hugging Face names and shapes of the model's tensors."""
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
            p + "input_layernorm.weight": (d,),
            p + "post_attention_layernorm.weight": (d,),
            p + "self_attn.q_proj.weight": (heads * hd, d),
            p + "self_attn.k_proj.weight": (kv * hd, d),
            p + "self_attn.v_proj.weight": (kv * hd, d),
            p + "self_attn.o_proj.weight": (d, heads * hd),
            p + "mlp.gate_proj.weight": (ffn, d),
            p + "mlp.up_proj.weight": (ffn, d),
            p + "mlp.down_proj.weight": (d, ffn)})
        if cfg["model_type"] == "qwen2":
            shapes.update({p + "self_attn.q_proj.bias": (heads * hd,),
                           p + "self_attn.k_proj.bias": (kv * hd,),
                           p + "self_attn.v_proj.bias": (kv * hd,)})
    return shapes


def random_tensor(rng, name, shape):
    count = 1
    for extent in shape:
        count *= extent
    if name.endswith("norm.weight"):
        return [1.0 + 0.1 * rng.gauss(0.0, 1.0) for _ in range(count)]
    if name.endswith(".bias"):
        return [0.5 * rng.gauss(0.0, 1.0) for _ in range(count)]
    # Projections: 1/sqrt(fan_in). The classifier (lm_head, or the
    # embedding when tied) 4x that, so that the logits spread over a few
    # units (the largest about 20) whether or not the embedding is tied; the
    # first RMSNorm makes the embedding's scale irrelevant to the layers.
    classifier = name in ("lm_head.weight", "model.embed_tokens.weight")
    scale = (4.0 if classifier else 1.0) / shape[-1] ** 0.5
    if not classifier:
        return [scale * rng.gauss(0.0, 1.0) for _ in range(count)]
    # Classifier rows of unequal norms (log-normal, as token frequencies make
    # them in trained models): the top logits are then usually well apart,
    # so that argmax comparisons are not dominated by near ties.
    values = []
    for _ in range(shape[0]):
        row_scale = scale * math.exp(0.5 * rng.gauss(0.0, 1.0))
        values.extend(row_scale * rng.gauss(0.0, 1.0) for _ in range(shape[1]))
    return values


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, (shape, values) in tensors.items():
        data = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": "F32", "shape": list(shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((-(8 + len(text))) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            f.write(blob)


def main():
    out, name = sys.argv[1], sys.argv[2]
    changes, prompt_len = VARIANTS[name]
    cfg = dict(BASE, **changes)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    rng = random.Random("llmc-gpu-" + name)
    tensors = {wname: (shape, random_tensor(rng, wname, shape))
               for wname, shape in weight_shapes(cfg).items()}
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    # The prompt plus 8 more tokens for the decode steps after it.
    tokens = [rng.randrange(cfg["vocab_size"]) for _ in range(prompt_len + 8)]
    with open(os.path.join(out, "prompt.tokens"), "w") as f:
        f.write(" ".join(str(t) for t in tokens[:prompt_len]) + "\n")
    with open(os.path.join(out, "all.tokens"), "w") as f:
        f.write(" ".join(str(t) for t in tokens) + "\n")
    print(prompt_len)


if __name__ == "__main__":
    main()
