"""Writes a tiny random-weight Hugging Face model directory, the same bytes on every run (numpy's PCG64 from a
fixed seed), so that committed goldens made from it by transformers (hf_goldens.py) stay valid without
committing weights. Uses numpy only (CI's /usr/bin/python3).

Usage: make_hf_model.py <family> <out-dir>

Families (what each exercises end to end from a model directory; tokenizers from test/runtime/Inputs/tokenizers,
trained there for llmc's tests, and chat templates written for them in test/runtime/Inputs/chat_templates):
  qwen2     model_type qwen2: q/k/v biases, tied embeddings, GQA 4/2, rope_theta 1e6, sharded safetensors
            (model.safetensors.index.json), eos list [<|im_end|>, <|endoftext|>] in generation_config.json;
            byte-level BPE with Qwen2's pre-tokenizer, ChatML
  llama     model_type llama: untied head, MQA 4/1, llama3 rope scaling in transformers-5 rope_parameters,
            one model.safetensors, bos_token in tokenizer_config.json; Llama 3's pre-tokenizer, ChatML
  mistral   model_type mistral: a sliding window (24) shorter than every prompt, GQA 4/2; Mistral-Nemo's
            tekken pre-tokenizer, a Mistral-style [INST] template that writes bos_token
  deepseek  model_type llama: linear RoPE scaling in the older rope_scaling spelling, tied; DeepSeek-LLM's
            pre-tokenizer, a DeepSeek-style template
  sentencepiece  model_type llama: SentencePiece BPE with byte fallback from tokenizer.json (stories260K's
            vocabulary converted by transformers), untied; ChatML spelled in plain text
  rope-<variant>  the sentencepiece model with one RoPE / attention variant of ROPE_VARIANTS (rope-variants.test;
            goldens by rope_goldens.py): teacher-forced and token-by-token logits, no chat
  qwen3, olmo2, gemma, gemma2, gemma3_text, gpt_neox, gpt_neox-sequential, phi3, phi3-longrope,
  qwen2-window-layers, gptj, deepseek_v3, deepseek_v2
            other architectures on the sentencepiece family's tokenizer, their configs and tensor layouts in
            hf_family_layouts.py (goldens by family_goldens.py, which says what each exercises)
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

from hf_family_layouts import FAMILIES as ARCHITECTURE_FAMILIES

INPUTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "Inputs")
# family: (seed, kv heads, ffn, tokenizer.json, chat template)
FAMILIES = {
    "qwen2": (11, 2, 128, "tokenizers/qwen2.json", "chatml.jinja"),
    "llama": (12, 1, 160, "tokenizers/llama-bpe.json", "chatml.jinja"),
    "mistral": (13, 2, 128, "tokenizers/tekken.json", "mistral.jinja"),
    "deepseek": (14, 4, 96, "tokenizers/deepseek-llm.json", "deepseek.jinja"),
    "sentencepiece": (15, 2, 128, "tokenizers/stories260k/tokenizer.json", "chatml.jinja"),
}
# rope-<variant>: config.json entries over the sentencepiece family's (small vocabulary, small goldens). The
# prompts of rope_goldens.py are 36 tokens: longer than every original_max_position_embeddings here (16 or
# 32), so that dynamic NTK and longrope switch frequencies within a prompt and within a token-by-token decode.
SHORT_ORIGINAL, LONG_ORIGINAL = 16, 32
LONGROPE_SHORT = [1.0, 1.0, 1.1, 1.3, 1.6, 2.0, 2.5, 3.0]
LONGROPE_LONG = [1.0, 1.2, 1.6, 2.4, 3.5, 5.0, 7.0, 9.0]
ROPE_VARIANTS = {
    # transformers' dynamic NTK: max_position_embeddings is the original length; the base grows per call.
    "dynamic": {"max_position_embeddings": SHORT_ORIGINAL, "rope_scaling": {"type": "dynamic", "factor": 4.0}},
    "yarn": {"max_position_embeddings": 4 * LONG_ORIGINAL,
             "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                 "original_max_position_embeddings": LONG_ORIGINAL}},
    # A fractional correction range (1.41 instead of 2 for beta_slow's dimension with these sizes).
    "yarn-untruncated": {"max_position_embeddings": 4 * LONG_ORIGINAL,
                         "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                             "original_max_position_embeddings": LONG_ORIGINAL,
                                             "truncate": False}},
    "yarn-attention-factor": {"max_position_embeddings": 4 * LONG_ORIGINAL,
                              "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                                  "original_max_position_embeddings": LONG_ORIGINAL,
                                                  "attention_factor": 0.7}},
    "yarn-betas": {"max_position_embeddings": 4 * LONG_ORIGINAL,
                   "rope_parameters": {"rope_type": "yarn", "rope_theta": 500.0, "factor": 4.0,
                                       "original_max_position_embeddings": LONG_ORIGINAL,
                                       "beta_fast": 8.0, "beta_slow": 2.0}},
    # DeepSeek-style magnitude: attention factor = mscale(4, 1.0) / mscale(4, 0.5).
    "yarn-mscale": {"max_position_embeddings": 4 * LONG_ORIGINAL,
                    "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                        "original_max_position_embeddings": LONG_ORIGINAL,
                                        "mscale": 1.0, "mscale_all_dim": 0.5}},
    # factor implicit (64 / 16 = 4): attention factor sqrt(1 + ln 4 / ln 16).
    "longrope": {"max_position_embeddings": 4 * SHORT_ORIGINAL,
                 "rope_parameters": {"rope_type": "longrope", "rope_theta": 10000.0,
                                     "short_factor": LONGROPE_SHORT, "long_factor": LONGROPE_LONG,
                                     "original_max_position_embeddings": SHORT_ORIGINAL}},
    "longrope-attention-factor": {"max_position_embeddings": 4 * SHORT_ORIGINAL,
                                  "rope_scaling": {"rope_type": "longrope", "factor": 2.0,
                                                   "attention_factor": 0.9, "short_factor": LONGROPE_SHORT,
                                                   "long_factor": LONGROPE_LONG,
                                                   "original_max_position_embeddings": SHORT_ORIGINAL}},
    # llama's attention_bias (q, k, v and o) and mlp_bias, tied embeddings.
    "biases": {"attention_bias": True, "mlp_bias": True, "tie_word_embeddings": True},
    # transformers' llama ignores partial_rotary_factor with default RoPE (whole heads rotate); llmc warns.
    "partial-rotary-ignored": {"partial_rotary_factor": 0.5},
}
HIDDEN, LAYERS, HEADS, HEAD_DIM = 64, 2, 4, 16
SLIDING_WINDOW = 24
# Weights spread wide enough that logits have clear maxima (greedy replies then do not hinge on rounding).
WEIGHT_STD = 0.25
# The architecture families' tensors by kind (hf_family_layouts.py): matrices scaled by fan in (std 0.25 at
# fan in 64, as WEIGHT_STD), so that activations stay O(1) through wider FFNs and attention widths.
WEIGHT_GAIN = 2.0
WEIGHT_KINDS = {
    "matrix": lambda rng, shape: WEIGHT_GAIN / np.sqrt(shape[-1]) * rng.standard_normal(shape),
    "bias": lambda rng, shape: 0.1 * rng.standard_normal(shape),
    "norm": lambda rng, shape: 1.0 + 0.1 * rng.standard_normal(shape),
    "norm-offset": lambda rng, shape: 0.1 * rng.standard_normal(shape),
}


def family_entry(family):
    """(seed, kv heads, ffn, tokenizer.json, chat template) of a family or a rope-<variant>; the architecture
    families take their sizes from their config."""
    if family in ARCHITECTURE_FAMILIES:
        return (ARCHITECTURE_FAMILIES[family][0], None, None) + FAMILIES["sentencepiece"][3:]
    if family.startswith("rope-"):
        index = sorted(ROPE_VARIANTS).index(family[len("rope-"):])
        return (100 + index,) + FAMILIES["sentencepiece"][1:]
    return FAMILIES[family]


def config(family, vocab):
    if family in ARCHITECTURE_FAMILIES:
        return ARCHITECTURE_FAMILIES[family][1](vocab)
    if family.startswith("rope-"):
        return dict(config("sentencepiece", vocab), **ROPE_VARIANTS[family[len("rope-"):]])
    _, kv_heads, ffn, _, _ = FAMILIES[family]
    common = {"hidden_size": HIDDEN, "intermediate_size": ffn, "num_hidden_layers": LAYERS,
              "num_attention_heads": HEADS, "num_key_value_heads": kv_heads,
              "head_dim": HEAD_DIM, "vocab_size": vocab, "max_position_embeddings": 256,
              "hidden_act": "silu", "dtype": "float32", "bos_token_id": 0, "eos_token_id": 2}
    if family == "qwen2":
        return dict(common, model_type="qwen2", architectures=["Qwen2ForCausalLM"], rms_norm_eps=1e-6,
                    rope_theta=1000000.0, tie_word_embeddings=True, use_sliding_window=False)
    if family == "mistral":
        return dict(common, model_type="mistral", architectures=["MistralForCausalLM"], rms_norm_eps=1e-5,
                    rope_theta=1000000.0, tie_word_embeddings=False, sliding_window=SLIDING_WINDOW)
    if family == "deepseek":
        return dict(common, model_type="llama", architectures=["LlamaForCausalLM"], rms_norm_eps=1e-6,
                    rope_theta=10000.0, tie_word_embeddings=True,
                    rope_scaling={"type": "linear", "factor": 2.0})
    if family == "sentencepiece":
        return dict(common, model_type="llama", architectures=["LlamaForCausalLM"], rms_norm_eps=1e-5,
                    rope_theta=10000.0, tie_word_embeddings=False, bos_token_id=1)
    return dict(common, model_type="llama", architectures=["LlamaForCausalLM"], rms_norm_eps=1e-5,
                tie_word_embeddings=False, attention_bias=False, mlp_bias=False,
                rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                                 "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                 "original_max_position_embeddings": 32})


def layout_weights(family, vocab):
    """An architecture family's tensors, filled by kind in name order."""
    seed, make_config, layout = ARCHITECTURE_FAMILIES[family]
    rng = np.random.default_rng(seed)
    tensors = layout(make_config(vocab))
    return {name: WEIGHT_KINDS[kind](rng, shape).astype(np.float32)
            for name, (shape, kind) in sorted(tensors.items())}


def weights(family, vocab):
    if family in ARCHITECTURE_FAMILIES:
        return layout_weights(family, vocab)
    seed, kv_heads, ffn, _, _ = family_entry(family)
    cfg = config(family, vocab)
    rng = np.random.default_rng(seed)
    kv = kv_heads * HEAD_DIM
    w = {"model.embed_tokens.weight": (vocab, HIDDEN)}
    for i in range(LAYERS):
        p = "model.layers.%d." % i
        w.update({p + "self_attn.q_proj.weight": (HEADS * HEAD_DIM, HIDDEN),
                  p + "self_attn.k_proj.weight": (kv, HIDDEN),
                  p + "self_attn.v_proj.weight": (kv, HIDDEN),
                  p + "self_attn.o_proj.weight": (HIDDEN, HEADS * HEAD_DIM),
                  p + "mlp.gate_proj.weight": (ffn, HIDDEN),
                  p + "mlp.up_proj.weight": (ffn, HIDDEN),
                  p + "mlp.down_proj.weight": (HIDDEN, ffn),
                  p + "input_layernorm.weight": (HIDDEN,),
                  p + "post_attention_layernorm.weight": (HIDDEN,)})
        if family == "qwen2" or cfg.get("attention_bias"):
            w.update({p + "self_attn.q_proj.bias": (HEADS * HEAD_DIM,),
                      p + "self_attn.k_proj.bias": (kv,), p + "self_attn.v_proj.bias": (kv,)})
        if cfg.get("attention_bias"):
            w[p + "self_attn.o_proj.bias"] = (HIDDEN,)
        if cfg.get("mlp_bias"):
            w.update({p + "mlp.gate_proj.bias": (ffn,), p + "mlp.up_proj.bias": (ffn,),
                      p + "mlp.down_proj.bias": (HIDDEN,)})
    w["model.norm.weight"] = (HIDDEN,)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = (vocab, HIDDEN)
    out = {}
    for name in sorted(w):
        shape = w[name]
        if name.endswith("norm.weight"):
            out[name] = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            out[name] = (WEIGHT_STD * rng.standard_normal(shape)).astype(np.float32)
    return out


def write_safetensors(path, tensors):
    header, offset = {}, 0
    for name, t in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + t.nbytes]}
        offset += t.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for t in tensors.values():
            f.write(t.tobytes())


def write_model(family, out):
    _, _, _, tokenizer_file, template_file = family_entry(family)
    tokenizer_json = os.path.join(INPUTS, tokenizer_file)
    template = os.path.join(INPUTS, "chat_templates", template_file)
    os.makedirs(out, exist_ok=True)
    tok = json.load(open(tokenizer_json))
    vocab = max([len(tok["model"]["vocab"])] + [a["id"] + 1 for a in tok.get("added_tokens", [])])
    shutil.copyfile(tokenizer_json, os.path.join(out, "tokenizer.json"))
    json.dump(config(family, vocab), open(os.path.join(out, "config.json"), "w"), indent=1)
    tensors = weights(family, vocab)
    if family == "qwen2":
        names = list(tensors)
        half = len(names) // 2
        shards = {"model-00001-of-00002.safetensors": names[:half],
                  "model-00002-of-00002.safetensors": names[half:]}
        index = {"metadata": {}, "weight_map": {}}
        for shard, members in shards.items():
            write_safetensors(os.path.join(out, shard), {n: tensors[n] for n in members})
            index["weight_map"].update({n: shard for n in members})
        json.dump(index, open(os.path.join(out, "model.safetensors.index.json"), "w"), indent=1)
        generation = {"eos_token_id": [2, 0], "do_sample": False}
        tok_config = {"eos_token": "<|im_end|>", "bos_token": None, "add_bos_token": False}
    else:
        write_safetensors(os.path.join(out, "model.safetensors"), tensors)
        generation = {"eos_token_id": 2, "do_sample": False}
        if family == "sentencepiece" or family.startswith("rope-") or family in ARCHITECTURE_FAMILIES:
            tok_config = {"eos_token": "</s>", "bos_token": "<s>", "unk_token": "<unk>", "add_bos_token": False}
        else:
            tok_config = {"eos_token": "<|im_end|>", "bos_token": "<|endoftext|>", "add_bos_token": False}
    tok_config["chat_template"] = open(template).read()
    json.dump(tok_config, open(os.path.join(out, "tokenizer_config.json"), "w"), indent=1)
    json.dump(generation, open(os.path.join(out, "generation_config.json"), "w"), indent=1)


if __name__ == "__main__":
    write_model(*sys.argv[1:3])
