"""Writes a random-weight f32 LLaMA GGUF of a given shape, for bench/quant.sh to quantize with
llama.cpp's llama-quantize and run in both llama.cpp and llmc.

Usage: make_llama_gguf.py --out FILE [--hidden N --ffn N --layers N --heads N --kv-heads N
                          --vocab N --tied --rope-theta X --rms-eps X --context N --seed S]
       make_llama_gguf.py --out FILE --shape smollm2-135m|tinyllama-1.1b|llama3-8b-4-layers

test/runtime/Inputs/make_quant_model.py (the dequantizer tests' generator) has fixed toy shapes, an
always-untied LM head and row scales from 1e-5 to 10 (to stress the formats' scales); a benchmark
wants a model's real shape and ordinary weights, hence this script. Weights are N(0, 0.02) (norms
1 + N(0, 0.02)), seeded, so every machine gets the same file. Needs the gguf package and numpy (the
reference venv, scripts/reference-venv.sh).

The vocabulary is a SentencePiece-style list (<unk>, <s>, </s>, the 256 byte tokens, then t<i>):
llama.cpp's vocab loader accepts it and it costs nothing to read; nobody detokenizes its output.
"""
import argparse
import os
import sys

import gguf
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'scripts'))
from llama_gguf import add_llama_hparams, add_llama_tensors  # noqa: E402

SHAPES = {
    # HuggingFaceTB/SmolLM2-135M: GQA 9/3, tied embeddings, θ 1e5.
    "smollm2-135m": dict(hidden=576, ffn=1536, layers=30, heads=9, kv_heads=3, vocab=49152,
                         tied=True, rope_theta=1e5, rms_eps=1e-5, context=8192),
    # TinyLlama/TinyLlama-1.1B: GQA 32/4, untied, θ 1e4.
    "tinyllama-1.1b": dict(hidden=2048, ffn=5632, layers=22, heads=32, kv_heads=4, vocab=32000,
                           tied=False, rope_theta=1e4, rms_eps=1e-5, context=2048),
    # 4 layers of meta-llama/Meta-Llama-3-8B (GQA 32/8, θ 5e5) with a 32000-token vocabulary instead of
    # 128256: the matrices of an 8B model's layers at a fraction of its size (1.1 B parameters).
    "llama3-8b-4-layers": dict(hidden=4096, ffn=14336, layers=4, heads=32, kv_heads=8, vocab=32000,
                               tied=False, rope_theta=5e5, rms_eps=1e-5, context=8192),
}
STD = 0.02


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--shape", choices=sorted(SHAPES))
    p.add_argument("--hidden", type=int)
    p.add_argument("--ffn", type=int)
    p.add_argument("--layers", type=int)
    p.add_argument("--heads", type=int)
    p.add_argument("--kv-heads", type=int)
    p.add_argument("--vocab", type=int)
    p.add_argument("--tied", action="store_true", default=None)
    p.add_argument("--rope-theta", type=float)
    p.add_argument("--rms-eps", type=float)
    p.add_argument("--context", type=int)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    s = dict(SHAPES[a.shape]) if a.shape else dict(tied=False, rope_theta=1e4, rms_eps=1e-5,
                                                   context=2048)
    for k in ("hidden", "ffn", "layers", "heads", "kv_heads", "vocab", "tied", "rope_theta",
              "rms_eps", "context"):
        v = getattr(a, k)
        if v is not None:
            s[k] = v
    missing = [k for k in ("hidden", "ffn", "layers", "heads", "kv_heads", "vocab") if k not in s]
    if missing:
        p.error("missing " + ", ".join("--" + k.replace("_", "-") for k in missing))
    if s["hidden"] % s["heads"] or s["heads"] % s["kv_heads"]:
        p.error("hidden must be a multiple of heads, heads a multiple of kv-heads")
    return a, s


def main():
    a, s = parse()
    rng = np.random.default_rng(a.seed)
    D, F, L, H, KV, V = s["hidden"], s["ffn"], s["layers"], s["heads"], s["kv_heads"], s["vocab"]

    def mat(rows, cols):
        return rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(STD)

    def norm():
        return np.float32(1.0) + rng.standard_normal(D, dtype=np.float32) * np.float32(STD)

    w = gguf.GGUFWriter(a.out, arch="llama")
    w.add_name("llmc-bench-random-%dx%d" % (L, D))
    add_llama_hparams(w, s["context"], D, F, L, H, KV, V, s["rope_theta"], s["rms_eps"])
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

    special = ["<unk>", "<s>", "</s>"]
    nbytes = 256
    if V < len(special) + nbytes + 1:
        raise SystemExit("vocab must be at least %d" % (len(special) + nbytes + 1))
    tokens = special + ["<0x%02X>" % b for b in range(nbytes)]
    tokens += ["t%d" % i for i in range(len(tokens), V)]
    types = ([gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
             + [gguf.TokenType.BYTE] * nbytes + [gguf.TokenType.NORMAL] * (V - len(special) - nbytes))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * V)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)

    add_llama_tensors(w, D, F, L, H, KV, V, mat, norm, lm_head=not s["tied"])

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print("%s: %d layers, hidden %d, ffn %d, heads %d/%d, vocab %d, %s, %.0f MB" % (
        a.out, L, D, F, H, KV, V, "tied" if s["tied"] else "untied", os.path.getsize(a.out) / 1e6))


if __name__ == "__main__":
    main()
