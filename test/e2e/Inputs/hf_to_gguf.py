"""Writes a GGUF file from one of make_hf_model.py's tiny family directories (f32, model.safetensors) the way
llama.cpp's convert_hf_to_gguf.py lays such a model out, with the gguf package (the reference venv): tensor
names from the package's own HF -> GGUF table (gguf.get_tensor_name_map: llama.cpp's tensor_mapping.py),
metadata under "<arch>." with GGUFWriter's key helpers, and the converter's per-family tensor edits that change
values: Gemma's RMSNorm weights get the + 1 baked in (GemmaModel.modify_tensors). The families here are
converted without permuting Q/K rows (llama.cpp runs them with NEOX RoPE). No tokenizer is written: the tests
pass token ids. (llama.cpp's own converter imports torch, which CI's reference venv does not have.)

Usage: hf_to_gguf.py <model dir> <out.gguf>      families: qwen3, olmo2, gemma
"""
import json
import os
import struct
import sys

import gguf
import numpy as np

ARCHS = {"qwen3": gguf.MODEL_ARCH.QWEN3, "olmo2": gguf.MODEL_ARCH.OLMO2, "gemma": gguf.MODEL_ARCH.GEMMA}


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


def main():
    model_dir, out = sys.argv[1], sys.argv[2]
    config = json.load(open(os.path.join(model_dir, "config.json")))
    family = config["model_type"]
    arch = ARCHS[family]
    layers = config["num_hidden_layers"]
    heads = config["num_attention_heads"]
    writer = gguf.GGUFWriter(out, gguf.MODEL_ARCH_NAMES[arch])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(layers)
    writer.add_head_count(heads)
    writer.add_head_count_kv(config.get("num_key_value_heads", heads))
    head_dim = config.get("head_dim") or config["hidden_size"] // heads
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_rope_freq_base(config.get("rope_theta", 10000.0))
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_vocab_size(config["vocab_size"])
    writer.add_bos_token_id(config["bos_token_id"])
    writer.add_eos_token_id(config["eos_token_id"])
    names = gguf.get_tensor_name_map(arch, layers)
    for name, values in read_safetensors(os.path.join(model_dir, "model.safetensors")).items():
        gguf_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if gguf_name is None:
            raise SystemExit("%s: no GGUF name for %s in the gguf package's %s table" % (model_dir, name, family))
        if family == "gemma" and name.endswith("norm.weight"):
            values = values + 1.0
        writer.add_tensor(gguf_name, np.ascontiguousarray(values, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()
