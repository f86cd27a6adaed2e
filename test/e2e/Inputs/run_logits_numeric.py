"""Teacher-forced logits through the whole product: `llmc compile` on a
random-weight config, the weights written as safetensors, `llmc-run
--dump-logits` over a prompt, compared with the numpy decoder of
decoder_numeric.py (one prefill call over every token). GGUF variants
(interleaved RoPE) are one GGUF file, compiled and loaded as is.

Usage: run_logits_numeric.py <work dir> <variant>...
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decoder_numeric import (BASE, VARIANTS, reference_logits,  # noqa: E402
                             weight_shapes, write_gguf)
from llmc_numeric import expect_close  # noqa: E402

# The dump is exact float32 (no printing); what remains is f32 arithmetic
# in another order than numpy's f64 (measured at most 5.4e-5).
LOGITS_ATOL = 1e-4
LOGITS_RTOL = 1e-4
PROMPT_LEN = 12  # unless the variant sets _prompt_len


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


def check(work, name):
    cfg = dict(BASE, **VARIANTS[name])
    prompt_len = cfg.pop("_prompt_len", PROMPT_LEN)
    model_dir = os.path.join(work, name)
    os.makedirs(model_dir, exist_ok=True)
    rng = np.random.default_rng(sum(map(ord, name)) + 7)
    weights = {}
    for wname, shape in weight_shapes(cfg).items():
        norm = wname.endswith("norm.weight")
        weights[wname] = ((1.0 if norm else 0.0)
                          + (1.0 if norm else 0.5) * rng.standard_normal(shape)).astype(np.float32)
    if cfg.get("_format") == "gguf":
        model = weights_file = os.path.join(model_dir, "model.gguf")
        write_gguf(model, cfg, weights)
    else:
        model = os.path.join(model_dir, "config.json")
        with open(model, "w") as f:
            json.dump(cfg, f)
        weights_file = os.path.join(model_dir, "model.safetensors")
        write_safetensors(weights_file, weights)
    tokens = rng.integers(0, cfg["vocab_size"], prompt_len)
    artifact = os.path.join(model_dir, "artifact")
    subprocess.run(["llmc", "compile", model, "--target=cpu", "-o", artifact],
                   check=True, stdout=subprocess.DEVNULL)
    dump = os.path.join(model_dir, "logits.f32")
    subprocess.run(["llmc-run", artifact, "--weights", weights_file,
                    "--tokens", " ".join(str(t) for t in tokens), "--dump-logits", dump],
                   check=True, stderr=subprocess.DEVNULL)
    got = np.fromfile(dump, dtype=np.float32).reshape(prompt_len, cfg["vocab_size"])
    want = reference_logits(cfg, {k: v.astype(np.float64) for k, v in weights.items()}, tokens)
    expect_close(name + " llmc-run logits", got, want, LOGITS_ATOL, LOGITS_RTOL)


if __name__ == "__main__":
    for variant in sys.argv[2:]:
        check(sys.argv[1], variant)
