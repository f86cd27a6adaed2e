"""Writes llama.cpp golden logits (committed; small) for GGUF RoPE metadata whose meaning llama.cpp defines
(gguf-rope-llama-cpp.test): stories260K with the variants of gguf_rope_scaling.py, teacher-forced over TOKENS.

Run in the test-time reference venv (the gguf package), against the pinned llama.cpp:

    PY=$(scripts/reference-venv.sh)
    ROOT=$(dirname "$(dirname "$(scripts/build-llama-cpp.sh llama-bench)")")   # libllama.a is built for it
    $PY test/e2e/Inputs/llama_cpp_goldens.py "$ROOT" ../shared/models/stories260K/stories260K.gguf \
        test/e2e/Inputs/llama-cpp

<ROOT> holds llama.cpp's sources (src/vendor/llama.cpp) and build (build/); llama_cpp_logits.cpp is compiled
against its static libraries. golden_<variant>.json: compare_hf_golden.py's format (prompt_ids = TOKENS).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from golden_rows import golden_rows  # noqa: E402
from gguf_rope_scaling import VARIANTS  # noqa: E402

# 40 ids of stories260K's vocabulary (a BOS, then a story's opening), past the 128-position original context
# of no variant: YaRN's frequencies do not depend on the length.
TOKENS = [1, 403, 407, 261, 378, 263, 275, 299, 411, 1, 27, 334, 402, 314, 270, 261, 260, 411, 299, 281, 306,
          339, 365, 289, 279, 266, 302, 340, 412, 291, 274, 402, 314, 260, 261, 279, 266, 409, 300, 266]
TOP_K = 4
PROBE_IDS = 8
DECIMALS = 5
PROBE_SEED = 20261202


def build_tool(root, out):
    src, build = os.path.join(root, "src", "vendor", "llama.cpp"), os.path.join(root, "build")
    libs = [os.path.join(build, "src", "libllama.a")] + [
        os.path.join(build, "ggml", "src", "libggml%s.a" % s) for s in ("", "-cpu", "-base")]
    subprocess.run(["g++", "-O1", "-std=c++17", os.path.join(HERE, "llama_cpp_logits.cpp"),
                    "-I", os.path.join(src, "include"), "-I", os.path.join(src, "ggml", "include")]
                   + libs + ["-fopenmp", "-lpthread", "-ldl", "-lm", "-o", out], check=True)


def write_golden(tool, gguf_path, tokens, out_path):
    """Runs llama.cpp (the tool of build_tool) teacher-forced over `tokens` and writes its golden file."""
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "logits.f32")
        subprocess.run([tool, gguf_path, dump] + [str(t) for t in tokens], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=dict(os.environ, OMP_NUM_THREADS="1"))
        logits = np.fromfile(dump, dtype=np.float32).astype(np.float64).reshape(len(tokens), -1)
    probes = np.random.default_rng(PROBE_SEED).choice(logits.shape[1], PROBE_IDS, replace=False)
    with open(out_path, "w") as f:
        json.dump({"generator": "llama.cpp of llama-cpp-python 0.3.36, f32 KV cache, no flash attention",
                   "prompt_ids": tokens, "reply_ids": [], "probe_ids": probes.tolist(),
                   "positions": golden_rows(logits, probes.tolist(), TOP_K, DECIMALS)},
                  f, separators=(",", ":"))
        f.write("\n")
    print("%s: %d positions" % (os.path.basename(out_path), len(tokens)))


def main():
    root, model, out_dir = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tool = os.path.join(tmp, "llama_cpp_logits")
        build_tool(root, tool)
        for variant in sorted(VARIANTS):
            gguf_path = os.path.join(tmp, variant + ".gguf")
            subprocess.run([sys.executable, os.path.join(HERE, "gguf_rope_scaling.py"), model, gguf_path,
                            variant], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            write_golden(tool, gguf_path, TOKENS, os.path.join(out_dir, "golden_%s.json" % variant))


if __name__ == "__main__":
    main()
