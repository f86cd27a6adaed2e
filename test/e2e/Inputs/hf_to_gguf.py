"""Writes a GGUF file from one of make_hf_model.py's tiny family directories (f32, model.safetensors) the way
llama.cpp's convert_hf_to_gguf.py lays such a model out, with the gguf package (the reference venv): tensor
names from the package's own HF -> GGUF table (gguf.get_tensor_name_map: llama.cpp's tensor_mapping.py),
metadata under "<arch>." with GGUFWriter's key helpers, and the converter's per-family tensor edits that change
values: Gemma's RMSNorm weights get the + 1 baked in (GemmaModel.modify_tensors). The families here are
converted without permuting Q/K rows (llama.cpp runs them with NEOX RoPE). Phi-3 as Phi3MiniModel writes it:
the fused qkv_proj / gate_up_proj kept (attn_qkv, ffn_up), the rotated width int(partial_rotary_factor *
hidden) // heads as rope.dimension_count, the window as attention.sliding_window (0 without one),
rope.scaling.original_context_length, and longrope's factors as the rope_factors_long / _short tensors (f32) with
rope.scaling.attn_factor sqrt(1 + ln(s) / ln(original)), s = max_position_embeddings / original (1 when s <= 1).
GPT-NeoX as GPTNeoXModel writes it: query_key_value reordered from per head ([H][q, k, v][Dh]) to [q; k; v],
rope.dimension_count int(rotary_pct * head_dim), use_parallel_residual, the LayerNorm epsilon; no KV head count
or key length (llama.cpp's GPT-NeoX has as many KV heads as heads).
Gemma and Gemma 2 as GemmaModel / Gemma2Model write them: no rope.freq_base (their set_gguf_parameters do not
call TextModel's, so llama.cpp takes its default 10000); Gemma 2 adds attn_logit_softcapping,
final_logit_softcapping and attention.sliding_window, and drops query_pre_attn_scalar and layer_types. Gemma 3
(model_type gemma3_text) as Gemma3Model writes it: TextModel's keys (rope.freq_base of the full-attention layers,
linear rope scaling, rope.freq_base_swa from rope_local_base_freq), final_logit_softcapping when the config has
a nonzero one, attention.sliding_window unless sliding_window_pattern is 1; query_pre_attn_scalar and
layer_types are dropped; every tensor named *norm.weight (q_norm / k_norm included) gets the + 1. Gemma3Model
also cuts token_embd to the tokenizer's size, which is the vocabulary size here.
DeepSeek-V2/V3 (model_type deepseek_v2 / deepseek_v3, dense layers) as DeepseekV2Model writes them, "deepseek2"
files, from the config as the converter reads it (transformers' AutoConfig: DeepseekV2Config's / V3Config's
defaults filled in, rope_scaling moved into rope_parameters): MLA as MQA (head_count_kv 1, key_length
kv_lora_rank + qk_rope_head_dim, value_length kv_lora_rank, the per-head widths as key_length_mla /
value_length_mla), q_lora_rank when the config has one, YaRN's mscale_all_dim as yarn_log_multiplier 0.1 x it
(mscale is dropped), the expert keys of the config's mixture-of-experts description, and kv_b_proj split per head
into attn_k_b (each head's key rows transposed: [H][kv_lora_rank][qk_nope_head_dim]) and attn_v_b
([H][v_head_dim][kv_lora_rank]); no Q/K permutation (llama.cpp rotates adjacent pairs, as DeepSeek does).
llama_cpp_converter_layouts.py checks that these files are the converter's own (test/e2e/Inputs/llama-cpp/
layout_*.json).
No tokenizer is written unless --tokenizer is given (the tests pass token ids); with it, the directory's
SentencePiece-style tokenizer.json vocabulary as tokenizer.ggml.* of model "llama", which llama.cpp needs to
load a file (llama_cpp_family_goldens.py). (llama.cpp's own converter imports torch, which CI's reference venv
does not have.) --outtype q8_0 stores the tensors as the converter's --outtype q8_0 does: 1-D tensors and norms
F32, every other tensor Q8_0, or F16 when its rows are not whole Q8_0 blocks (gguf.quants, as the converter).

Usage: hf_to_gguf.py <model dir> <out.gguf> [--tokenizer] [--outtype q8_0]
       model_type: qwen3, olmo2, gemma, gemma2, gemma3_text, phi3, gpt_neox, deepseek_v2, deepseek_v3
"""
import json
import math
import os
import struct
import sys

import gguf
import numpy as np

ARCHS = {"qwen3": gguf.MODEL_ARCH.QWEN3, "olmo2": gguf.MODEL_ARCH.OLMO2, "gemma": gguf.MODEL_ARCH.GEMMA,
         "gemma2": gguf.MODEL_ARCH.GEMMA2, "gemma3_text": gguf.MODEL_ARCH.GEMMA3, "phi3": gguf.MODEL_ARCH.PHI3,
         "gpt_neox": gguf.MODEL_ARCH.GPTNEOX, "deepseek_v2": gguf.MODEL_ARCH.DEEPSEEK2,
         "deepseek_v3": gguf.MODEL_ARCH.DEEPSEEK2}
# Families whose converter class writes no rope.freq_base (it does not call TextModel.set_gguf_parameters).
NO_ROPE_BASE = ("gemma", "gemma2")
GEMMAS = ("gemma", "gemma2", "gemma3_text")
DEEPSEEKS = ("deepseek_v2", "deepseek_v3")


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    length = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + length])
    header.pop("__metadata__", None)
    tensors = {}
    for name, entry in header.items():
        assert entry["dtype"] == "F32", (name, entry["dtype"])
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data[8 + length + begin:8 + length + end], np.float32).reshape(entry["shape"])
    return tensors


def write_phi3_metadata(writer, config):
    """What Phi3MiniModel.set_gguf_parameters / generate_extra_tensors add for Phi-3."""
    rope = config.get("rope_scaling") or {}
    rotary = config.get("partial_rotary_factor", 1.0)
    writer.add_rope_dimension_count(int(rotary * config["hidden_size"]) // config["num_attention_heads"])
    writer.add_rope_scaling_orig_ctx_len(config.get("original_max_position_embeddings",
                                                    config["max_position_embeddings"]))
    writer.add_sliding_window(config.get("sliding_window") or 0)
    if rope.get("long_factor"):
        original = config.get("original_max_position_embeddings", config["max_position_embeddings"])
        scale = config["max_position_embeddings"] / original
        writer.add_rope_scaling_attn_factors(math.sqrt(1 + math.log(scale) / math.log(original)) if scale > 1 else 1.0)
        for kind in ("long", "short"):
            writer.add_tensor("rope_factors_%s.weight" % kind,
                              np.asarray(rope[kind + "_factor"], dtype=np.float32))


def write_gemma2_metadata(writer, config):
    """What Gemma2Model.set_gguf_parameters adds: both softcaps and the window (query_pre_attn_scalar and
    layer_types are not written)."""
    writer.add_attn_logit_softcapping(config["attn_logit_softcapping"])
    writer.add_final_logit_softcapping(config["final_logit_softcapping"])
    writer.add_sliding_window(config["sliding_window"])


def write_gemma3_metadata(writer, config):
    """What TextModel.set_gguf_parameters and Gemma3Model.set_gguf_parameters add for Gemma 3, from the
    config.json spelling of google/gemma-3-*: rope_theta (full-attention layers) with rope_scaling, and
    rope_local_base_freq (sliding layers)."""
    assert "rope_parameters" not in config, "only the rope_theta / rope_scaling spelling is converted here"
    assert config.get("attn_logit_softcapping") is None  # as Gemma3Model asserts
    rope = config.get("rope_scaling") or {}
    if rope.get("rope_type", rope.get("type")) == "linear":
        writer.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        writer.add_rope_scaling_factor(rope["factor"])
    else:
        assert not rope, rope
    writer.add_rope_freq_base(config["rope_theta"])
    if config.get("rope_local_base_freq") is not None:
        writer.add_rope_freq_base_swa(config["rope_local_base_freq"])
    if config.get("final_logit_softcapping"):
        writer.add_final_logit_softcapping(config["final_logit_softcapping"])
    if config.get("sliding_window_pattern") != 1:
        writer.add_sliding_window(config["sliding_window"])


def write_deepseek2_metadata(writer, config):
    """What TextModel.set_gguf_parameters and DeepseekV2Model.set_gguf_parameters write after the sizes, from
    AutoConfig's dict: the rope keys, the MQA view of MLA, the widths and the experts."""
    rope = config.get("rope_parameters") or {}
    writer.add_head_count_kv(1)
    if rope.get("rope_type") == "yarn" and rope.get("factor") is not None:
        writer.add_rope_scaling_type(gguf.RopeScalingType.YARN)
        writer.add_rope_scaling_factor(rope["factor"])
        writer.add_rope_scaling_orig_ctx_len(rope["original_max_position_embeddings"])
        for key, add in (("extrapolation_factor", writer.add_rope_scaling_yarn_ext_factor),
                         ("attention_factor", writer.add_rope_scaling_yarn_attn_factor),
                         ("beta_fast", writer.add_rope_scaling_yarn_beta_fast),
                         ("beta_slow", writer.add_rope_scaling_yarn_beta_slow)):
            if rope.get(key) is not None:
                add(rope[key])
    else:
        assert rope.get("rope_type", "default") == "default", rope
    writer.add_rope_freq_base(rope["rope_theta"])
    writer.add_layer_norm_rms_eps(config.get("rms_norm_eps", 1e-6))
    if config.get("n_routed_experts") is not None:
        writer.add_expert_count(config["n_routed_experts"])
    if config.get("num_experts_per_tok") is not None:
        writer.add_expert_used_count(config["num_experts_per_tok"])
    if config.get("n_group") is not None:
        writer.add_expert_group_count(config["n_group"])
    if config.get("topk_group") is not None:
        writer.add_expert_group_used_count(config["topk_group"])
    dense = config.get("first_k_dense_replace")
    if dense is None:
        dense = config["num_hidden_layers"] if config.get("n_routed_experts") is None else 0
    writer.add_leading_dense_block_count(dense)
    if config.get("q_lora_rank") is not None:
        writer.add_q_lora_rank(config["q_lora_rank"])
    rank, rope_dim = config.get("kv_lora_rank", 512), config["qk_rope_head_dim"]
    writer.add_kv_lora_rank(rank)
    writer.add_key_length(rank + rope_dim)
    writer.add_value_length(rank)
    writer.add_key_length_mla(config["qk_nope_head_dim"] + rope_dim)
    writer.add_value_length_mla(config["v_head_dim"])
    writer.add_expert_feed_forward_length(config.get("moe_intermediate_size") or config["intermediate_size"])
    writer.add_expert_shared_count(config.get("n_shared_experts", 0))
    if config.get("routed_scaling_factor") is not None:
        writer.add_expert_weights_scale(config["routed_scaling_factor"])
    if config.get("norm_topk_prob"):
        writer.add_expert_weights_norm(True)
    writer.add_rope_dimension_count(rope_dim)
    if rope.get("mscale_all_dim") is not None:
        writer.add_rope_scaling_yarn_log_mul(0.1 * rope["mscale_all_dim"])


def split_kv_b(values, config):
    """kv_b_proj, [H][qk_nope_head_dim key rows; v_head_dim value rows] over the latent, as the converter splits
    it: k_b_proj with each head's key rows transposed, and v_b_proj."""
    heads, nope, v = config["num_attention_heads"], config["qk_nope_head_dim"], config["v_head_dim"]
    per_head = values.reshape(heads, nope + v, values.shape[-1])
    return {"k_b_proj": per_head[:, :nope].transpose(0, 2, 1), "v_b_proj": per_head[:, nope:]}


def stored(gguf_name, values, outtype):
    """(data, raw_dtype) as the converter stores a tensor for --outtype (f32 or q8_0)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    if outtype == "f32" or values.ndim <= 1 or gguf_name.endswith("_norm.weight"):
        return values, gguf.GGMLQuantizationType.F32
    try:
        return gguf.quants.quantize(values, gguf.GGMLQuantizationType.Q8_0), gguf.GGMLQuantizationType.Q8_0
    except gguf.QuantError:
        return gguf.quants.quantize(values, gguf.GGMLQuantizationType.F16), gguf.GGMLQuantizationType.F16


def write_tokenizer(writer, model_dir):
    """The vocabulary of tokenizer.json as a SentencePiece ("llama") GGUF tokenizer: ids in order, no scores;
    special added tokens are control tokens, <0xNN> pieces bytes."""
    tok = json.load(open(os.path.join(model_dir, "tokenizer.json")))
    by_id = {i: piece for piece, i in tok["model"]["vocab"].items()}
    special = {a["id"] for a in tok.get("added_tokens", []) if a.get("special")}
    pieces = [by_id[i] for i in range(len(by_id))]
    types = [gguf.TokenType.CONTROL if i in special
             else gguf.TokenType.BYTE if p.startswith("<0x") and p.endswith(">") and len(p) == 6
             else gguf.TokenType.NORMAL for i, p in enumerate(pieces)]
    writer.add_tokenizer_model("llama")
    writer.add_token_list(pieces)
    writer.add_token_scores([0.0] * len(pieces))
    writer.add_token_types(types)


def main():
    model_dir, out, options = sys.argv[1], sys.argv[2], sys.argv[3:]
    with_tokenizer = "--tokenizer" in options
    outtype = options[options.index("--outtype") + 1] if "--outtype" in options else "f32"
    assert outtype in ("f32", "q8_0"), outtype
    config = json.load(open(os.path.join(model_dir, "config.json")))
    family = config["model_type"]
    if family in DEEPSEEKS:
        # The converter reads the config through transformers (its defaults); numpy-only families need not.
        import transformers
        config = transformers.AutoConfig.from_pretrained(model_dir).to_dict()
    arch = ARCHS[family]
    layers = config["num_hidden_layers"]
    heads = config["num_attention_heads"]
    writer = gguf.GGUFWriter(out, gguf.MODEL_ARCH_NAMES[arch])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(layers)
    writer.add_head_count(heads)
    head_dim = config.get("head_dim") or config["hidden_size"] // heads
    if family == "gpt_neox":
        writer.add_rope_dimension_count(int(config["rotary_pct"] * head_dim))
        writer.add_parallel_residual(config.get("use_parallel_residual", True))
        writer.add_layer_norm_eps(config["layer_norm_eps"])
    elif family in DEEPSEEKS:
        write_deepseek2_metadata(writer, config)
    else:
        writer.add_head_count_kv(config.get("num_key_value_heads", heads))
        writer.add_key_length(head_dim)
        writer.add_value_length(head_dim)
        if family not in NO_ROPE_BASE + ("gemma3_text",):
            writer.add_rope_freq_base(config.get("rope_theta", 10000.0))
        writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    if family == "phi3":
        write_phi3_metadata(writer, config)
    if family == "gemma2":
        write_gemma2_metadata(writer, config)
    if family == "gemma3_text":
        write_gemma3_metadata(writer, config)
    writer.add_vocab_size(config["vocab_size"])
    writer.add_bos_token_id(config["bos_token_id"])
    writer.add_eos_token_id(config["eos_token_id"])
    if with_tokenizer:
        write_tokenizer(writer, model_dir)
    names = gguf.get_tensor_name_map(arch, layers)
    tensors = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    if family in DEEPSEEKS:
        for name in [n for n in tensors if n.endswith(".kv_b_proj.weight")]:
            for part, values in split_kv_b(tensors.pop(name), config).items():
                tensors[name.replace("kv_b_proj", part)] = values
    for name, values in tensors.items():
        gguf_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if gguf_name is None:
            raise SystemExit("%s: no GGUF name for %s in the gguf package's %s table" % (model_dir, name, family))
        if family in GEMMAS and name.endswith("norm.weight"):
            values = values + 1.0
        if family == "gpt_neox" and ".query_key_value." in name:
            # [H][q, k, v][Dh](, hidden) -> [q; k; v] (GPTNeoXModel.modify_tensors).
            per_head = values.reshape((heads, 3, head_dim) + values.shape[1:])
            values = np.concatenate([per_head[:, part].reshape((-1,) + values.shape[1:]) for part in range(3)])
        data, dtype = stored(gguf_name, values, outtype)
        writer.add_tensor(gguf_name, data, raw_dtype=dtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()
