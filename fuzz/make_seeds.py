#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets, one directory per target, from the small inputs of the tests.

Usage: make_seeds.py OUT_DIR [SHARED_MODELS_DIR]
OUT_DIR/<target>/ gets a few files each (most under 10 KB: a seed's size bounds how fast its mutants run).
The sources are the test generators in test/runtime/Inputs (imported: their case builders, standard library
only), the test data beside them, test/Frontend's split-file configs, configs/, and, when SHARED_MODELS_DIR
(../shared/models) has it, stories260K's tok512.bin. Nothing here needs numpy or a network.
"""
import ast
import json
import os
import random
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME_INPUTS = os.path.join(ROOT, "test", "runtime", "Inputs")
sys.path.insert(0, RUNTIME_INPUTS)

import chat_case_error_cases  # noqa: E402
import chat_error_cases  # noqa: E402
import chat_int_limits_cases  # noqa: E402
import make_bad_tokenizers  # noqa: E402
import make_gguf  # noqa: E402
import make_llama2c  # noqa: E402
import make_safetensors  # noqa: E402
import make_tokenizer  # noqa: E402
from make_gguf import ARR, F32, I32, STR, U32, build, kv  # noqa: E402

# ggml tensor types and their block sizes (elements, bytes), as the GGUF spec fixes them.
GGML_BLOCKS = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20),
               "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84),
               "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176),
               "Q6_K": (14, 256, 210), "IQ4_NL": (20, 32, 18), "BF16": (30, 1, 2)}

rng = random.Random(20261202)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def text_of(path):
    return read(path).decode()


class Seeds:
    """Collects the files of one target's corpus."""

    def __init__(self, out, target):
        self.dir = os.path.join(out, target)
        os.makedirs(self.dir, exist_ok=True)

    def add(self, name, data):
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(self.dir, name), "wb") as f:
            f.write(data)


def tensor(name, ne, kind):
    """A GGUF tensor of shape `ne` (innermost first) in format `kind`, random bytes."""
    ggml_type, block_elems, block_bytes = GGML_BLOCKS[kind]
    n = 1
    for d in ne:
        n *= d
    assert n % block_elems == 0, (name, ne, kind)
    return (name, ne, ggml_type, bytes(rng.getrandbits(8) for _ in range(n // block_elems * block_bytes)))


SPM_TOKENS = ["<unk>", "<s>", "</s>", "\u2581", "a", "b", "c", "\u2581a", "ab", "\u2581ab", "\u2581b",
              "<0x0A>", "<0x20>", "<|im_start|>", "<|im_end|>", "\u2581c"]
SPM_TYPES = [2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6, 6, 3, 3, 1]


def tiny_llama_gguf(chat_template):
    """A whole llama GGUF (1 layer, dim 32, GQA 4:2, vocab 16) with every small block format, a
    SentencePiece vocabulary and a chat template: what `llmc info` and the runtime both accept."""
    dim, ffn, heads, kv_heads, head_dim, vocab = 32, 64, 4, 2, 8, len(SPM_TOKENS)
    kvs = [kv("general.architecture", STR, "llama"), kv("general.name", STR, "fuzz-tiny"),
           kv("llama.block_count", U32, 1), kv("llama.embedding_length", U32, dim),
           kv("llama.feed_forward_length", U32, ffn), kv("llama.attention.head_count", U32, heads),
           kv("llama.attention.head_count_kv", U32, kv_heads), kv("llama.context_length", U32, 64),
           kv("llama.attention.layer_norm_rms_epsilon", F32, 1e-5), kv("llama.rope.freq_base", F32, 10000.0),
           kv("llama.rope.dimension_count", U32, head_dim),
           kv("tokenizer.ggml.model", STR, "llama"), kv("tokenizer.ggml.tokens", ARR, (STR, SPM_TOKENS)),
           kv("tokenizer.ggml.scores", ARR, (F32, [0.0] * 3 + [-float(i) for i in range(vocab - 3)])),
           kv("tokenizer.ggml.token_type", ARR, (I32, SPM_TYPES)),
           kv("tokenizer.ggml.bos_token_id", U32, 1), kv("tokenizer.ggml.eos_token_id", U32, 2),
           kv("tokenizer.ggml.eot_token_id", U32, 14), kv("tokenizer.chat_template", STR, chat_template)]
    tensors = [tensor("token_embd.weight", [dim, vocab], "F16"),
               tensor("blk.0.attn_norm.weight", [dim], "F32"),
               tensor("blk.0.attn_q.weight", [dim, heads * head_dim], "Q8_0"),
               tensor("blk.0.attn_k.weight", [dim, kv_heads * head_dim], "BF16"),
               tensor("blk.0.attn_v.weight", [dim, kv_heads * head_dim], "Q5_0"),
               tensor("blk.0.attn_output.weight", [heads * head_dim, dim], "Q4_1"),
               tensor("blk.0.ffn_norm.weight", [dim], "F32"),
               tensor("blk.0.ffn_gate.weight", [dim, ffn], "Q4_0"),
               tensor("blk.0.ffn_up.weight", [dim, ffn], "Q5_1"),
               tensor("blk.0.ffn_down.weight", [ffn, dim], "IQ4_NL"),
               tensor("output_norm.weight", [dim], "F32"),
               tensor("output.weight", [dim, vocab], "Q8_0")]
    return build(kvs, tensors)


def kquants_gguf():
    """One super-block of each K-quant format."""
    kvs = [kv("general.architecture", STR, "llama")]
    return build(kvs, [tensor("kq.%s" % k.lower(), [256], k) for k in ("Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K")])


def gguf_kvs_end(data):
    """The offset where a GGUF's metadata ends (its tensor infos begin)."""
    at = 24

    def skip_value(at, vtype):
        if vtype == STR:
            (n,) = struct.unpack_from("<Q", data, at)
            return at + 8 + n
        if vtype == ARR:
            etype, n = struct.unpack_from("<IQ", data, at)
            at += 12
            for _ in range(n):
                at = skip_value(at, etype)
            return at
        return at + struct.calcsize("<" + make_gguf.SCALAR_FMT[vtype])

    (n_kv,) = struct.unpack_from("<Q", data, 16)
    for _ in range(n_kv):
        (n,) = struct.unpack_from("<Q", data, at)
        at += 8 + n
        (vtype,) = struct.unpack_from("<I", data, at)
        at = skip_value(at + 4, vtype)
    return at


def metadata_only(gguf):
    """A GGUF's header and metadata with its tensor infos dropped (the tokenizer files)."""
    end = gguf_kvs_end(gguf)
    (n_kv,) = struct.unpack_from("<Q", gguf, 16)
    return gguf[:8] + struct.pack("<QQ", 0, n_kv) + gguf[24:end]


def trimmed_tokenizer_json(j, keep=300):
    """A tokenizer.json cut to its first `keep` ids: merges whose parts and result survive, added tokens
    past the vocabulary renumbered after it."""
    model = j["model"]
    vocab = {t: i for t, i in model["vocab"].items() if i < keep}
    merges = []
    for m in model["merges"]:
        a, b = m if isinstance(m, list) else m.split(" ", 1)
        if a in vocab and b in vocab and a + b in vocab:
            merges.append(m)
    top = max(model["vocab"].values())
    added, extra = [], len(vocab)
    for t in j.get("added_tokens", []):
        if t["id"] > top:
            t = dict(t, id=extra)
            extra += 1
        elif t["id"] >= keep:
            continue
        added.append(t)
    model["vocab"], model["merges"], j["added_tokens"] = vocab, merges, added
    return j


def split_file_sections(path):
    """The `//--- name` sections of a lit test written for split-file."""
    sections, name = {}, None
    for line in text_of(path).splitlines(keepends=True):
        if line.startswith("//--- "):
            name = line[len("//--- "):].strip()
            sections[name] = ""
        elif name:
            sections[name] += line
    return sections


def literal_assignments(path, names):
    """Top-level `NAME = <literal>` of a Python file, without running it (the chat goldens' generator
    imports transformers)."""
    found = {}
    for node in ast.parse(text_of(path)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in names:
                found[target.id] = ast.literal_eval(node.value)
    return found


def gguf_seeds(out):
    s = Seeds(out, "gguf")
    chatml = text_of(os.path.join(RUNTIME_INPUTS, "chat_templates", "chatml.jinja"))
    s.add("tiny-llama.gguf", tiny_llama_gguf(chatml))
    s.add("kquants.gguf", kquants_gguf())
    for case in ("quant", "names", "tokenizer"):
        s.add(case + ".gguf", getattr(make_gguf, "case_" + case)()[0])
    for case in ("nested-too-deep", "misaligned-offset", "overflow", "ndims5"):
        s.add("error-" + case + ".gguf", make_gguf.case_error(case))
    s.add("bpe.gguf", make_bad_tokenizers.gguf_bpe(extra=[kv("tokenizer.ggml.bos_token_id", U32, 4)]))
    for name in ("llama-bpe", "qwen2"):
        s.add(name + "-tokenizer.gguf", metadata_only(read(os.path.join(RUNTIME_INPUTS, "tokenizers", name + ".gguf"))))


def safetensors_seeds(out):
    s = Seeds(out, "safetensors")
    tensors = make_safetensors.standard_tensors()
    s.add("standard.safetensors", make_safetensors.st_bytes(tensors, metadata={"format": "pt", "note": "tiny"}))
    s.add("unaligned.safetensors", make_safetensors.st_bytes(
        [("x", "F32", [2, 2], make_safetensors.f32([1.0, -2.0, 3.5, 4.0]))], align=8, extra_pad=1))
    s.add("scalar.safetensors", make_safetensors.st_bytes([("s", "F32", [], make_safetensors.f32([1.5]))]))


def safetensors_index_seeds(out):
    """Indexes over the shards fuzz/safetensors_index.cpp writes beside them."""
    s = Seeds(out, "safetensors_index")
    one, two = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    s.add("index.json", json.dumps({"metadata": {"total_size": 28, "format": "pt"}, "weight_map": {
        "model.embed_tokens.weight": one, "lm_head.weight": two, "model.norm.weight": two}}, indent=2))
    s.add("one-shard.json", json.dumps({"weight_map": {"model.embed_tokens.weight": one}}))


def llama2c_seeds(out):
    s = Seeds(out, "llama2c")
    s.add("unshared.bin", make_llama2c.build(shared=False)[0])
    s.add("shared.bin", make_llama2c.build(shared=True)[0])


def llama2c_tokenizer_seeds(out, shared_models):
    s = Seeds(out, "llama2c_tokenizer")
    body = b"".join(make_tokenizer.record(score, piece) for score, piece in make_tokenizer.vocab())
    s.add("tiny.bin", struct.pack("<i", 7) + body)
    tok512 = os.path.join(shared_models or "", "stories260K", "tok512.bin")
    if shared_models and os.path.exists(tok512):
        s.add("tok512.bin", read(tok512))


def tokenizer_json_seeds(out):
    s = Seeds(out, "tokenizer_json")
    for name in ("valid", "sp-valid", "post-bos", "lowercase", "behavior"):
        try:
            s.add(name + ".json", json.dumps(make_bad_tokenizers.json_case(name)))
        except SystemExit:
            pass  # a case the generator no longer has
    s.add("stories260k.json", read(os.path.join(RUNTIME_INPUTS, "tokenizers", "stories260k", "tokenizer.json")))
    for name in ("qwen2", "llama-bpe", "metaspace", "tekken", "deepseek-v3"):
        j = json.loads(text_of(os.path.join(RUNTIME_INPUTS, "tokenizers", name + ".json")))
        s.add(name + "-trimmed.json", json.dumps(trimmed_tokenizer_json(j), ensure_ascii=False))
    for name in ("nfkc", "sequence"):
        j = json.loads(text_of(os.path.join(RUNTIME_INPUTS, "tokenizers_nfc", name + ".json")))
        s.add(name + "-trimmed.json", json.dumps(trimmed_tokenizer_json(j), ensure_ascii=False))


TEXTS = ["Hello world! Once upon a time, there was a little girl named Lily.",
         "  spaces\n\n\ttabs 123456 don't I'll",
         "日本語 🙂 Ünïcödé e\u0301 \ufb01",
         "<|im_start|>user\nhi<|im_end|><s></s>"]


def tokenizer_encode_seeds(out, shared_models):
    """First byte: the tokenizer (fuzz/tokenizer_encode.cpp's list, 8 of them); second: the flags."""
    s = Seeds(out, "tokenizer_encode")
    texts = list(TEXTS)
    greedy = os.path.join(shared_models or "", "stories260K", "greedy200.txt")
    if shared_models and os.path.exists(greedy):
        texts.append(text_of(greedy)[:400])
    for t in range(8):
        for i, text in enumerate(texts):
            s.add("t%d-%d.txt" % (t, i), bytes([t, (i * 5) & 31]) + text.encode())


def chat_template_seeds(out):
    s = Seeds(out, "chat_template")
    templates = os.path.join(RUNTIME_INPUTS, "chat_templates")
    for name in sorted(os.listdir(templates)):
        s.add(name, read(os.path.join(templates, name)))
    units = literal_assignments(os.path.join(RUNTIME_INPUTS, "chat_goldens.py"), {"UNIT_TEMPLATES"})
    for name, source in units.get("UNIT_TEMPLATES", {}).items():
        s.add("unit-" + name + ".jinja", source)
    for module in (chat_error_cases, chat_case_error_cases, chat_int_limits_cases):
        for name, source in module.CASES.items():
            if isinstance(source, str):
                s.add(module.__name__ + "-" + name + ".jinja", source)


def chat_messages_seeds(out):
    s = Seeds(out, "chat_messages")
    found = literal_assignments(os.path.join(RUNTIME_INPUTS, "chat_goldens.py"), {"CONVERSATIONS", "TOOLS"})
    for name, messages in found.get("CONVERSATIONS", {}).items():
        s.add(name + ".json", json.dumps(messages, ensure_ascii=False))
    s.add("tools.json", json.dumps(found.get("TOOLS", [])))
    s.add("variables.json", json.dumps({"date_string": "26 Jul 2024", "tools_in_user_message": False}))


def model_dir_json_seeds(out):
    """Each seed is written as both tokenizer_config.json and generation_config.json (fuzz/model_dir_json.cpp)."""
    s = Seeds(out, "model_dir_json")
    chatml = text_of(os.path.join(RUNTIME_INPUTS, "chat_templates", "chatml.jinja"))
    s.add("stories260k-tokenizer-config.json",
          read(os.path.join(RUNTIME_INPUTS, "tokenizers", "stories260k", "tokenizer_config.json")))
    s.add("tokenizer-config.json", json.dumps({"eos_token": "</s>", "bos_token": "<s>", "unk_token": "<unk>",
                                               "add_bos_token": True, "add_eos_token": False,
                                               "chat_template": chatml}))
    s.add("template-list.json", json.dumps({"bos_token": {"content": "<s>", "lstrip": False},
                                            "chat_template": [{"name": "default", "template": chatml},
                                                              {"name": "tool_use", "template": "{{ tools }}"}]}))
    s.add("generation-config.json", json.dumps({"eos_token_id": [2, 1], "do_sample": True, "temperature": 0.7,
                                                "top_k": 20, "top_p": 0.9, "repetition_penalty": 1.1}))
    s.add("both.json", json.dumps({"eos_token": "</s>", "eos_token_id": 2, "do_sample": False,
                                   "chat_template": chatml}))


def manifest_seeds(out):
    """The manifests make_artifact.py writes (CPU and CUDA, each preset), generated in a scratch directory."""
    import subprocess
    import tempfile
    s = Seeds(out, "manifest")
    runs = [("stories260k", ["--preset", "stories260k"]),
            ("tiny", ["--preset", "tiny", "--rope", "interleaved"]),
            ("cuda", ["--preset", "tiny", "--cuda", "sm_80,sm_90:cubin"])]
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in runs:
            d = os.path.join(tmp, name)
            subprocess.run([sys.executable, os.path.join(RUNTIME_INPUTS, "make_artifact.py"), d, "--name", name]
                           + args, check=True)
            s.add(name + ".json", read(os.path.join(d, name + ".json")))


def dequant_seeds(out):
    """First byte: the dtype (llmc_dtype's numbering, 14 of them); the rest: a few blocks of any format."""
    s = Seeds(out, "dequant")
    for dtype in range(14):
        s.add("dtype%d.bin" % dtype, bytes([dtype]) + bytes(rng.getrandbits(8) for _ in range(640)))


def hf_config_seeds(out):
    s = Seeds(out, "hf_config")
    for name in sorted(os.listdir(os.path.join(ROOT, "configs"))):
        s.add(name, read(os.path.join(ROOT, "configs", name)))
    for test in ("hf-config-errors.test", "hf-config-defaults.test"):
        for name, text in split_file_sections(os.path.join(ROOT, "test", "Frontend", test)).items():
            s.add(test.split(".")[0] + "-" + name, text)


def main():
    out = sys.argv[1]
    shared_models = sys.argv[2] if len(sys.argv) > 2 else None
    gguf_seeds(out)
    safetensors_seeds(out)
    safetensors_index_seeds(out)
    llama2c_seeds(out)
    llama2c_tokenizer_seeds(out, shared_models)
    tokenizer_json_seeds(out)
    tokenizer_encode_seeds(out, shared_models)
    chat_template_seeds(out)
    chat_messages_seeds(out)
    model_dir_json_seeds(out)
    manifest_seeds(out)
    dequant_seeds(out)
    hf_config_seeds(out)


if __name__ == "__main__":
    main()
