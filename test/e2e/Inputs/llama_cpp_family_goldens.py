"""Writes llama.cpp golden logits (committed; small) for GGUF files whose converter drops Hugging Face fields that
llama.cpp then assumes (gguf-dropped-fields-llama-cpp.test, gguf-deepseek2.test): hf_to_gguf.py's files of
make_hf_model.py's gemma2 (query_pre_attn_scalar 24 dropped: llama.cpp scales by head_dim^-0.5), gemma3_text
(layer_types dropped: llama.cpp slides all layers but every sixth, here all 3), deepseek_v3 (mscale equal to
mscale_all_dim: nothing lost), deepseek_v3-mscale (mscale dropped: llama.cpp takes mscale_all_dim) and
deepseek_v3-yarn-default (no mscale_all_dim: llama.cpp's scores get YaRN's mscale squared), with a tokenizer added
(--tokenizer) because llama.cpp needs one to load a file; teacher-forced over the prompt ids of a transformers
golden.

Run in the test-time reference venv (the gguf package), against the pinned llama.cpp, as llama_cpp_goldens.py:

    PY=$(scripts/reference-venv.sh)
    ROOT=$(dirname "$(dirname "$(scripts/build-llama-cpp.sh llama-bench)")")   # libllama.a is built for it
    $PY test/e2e/Inputs/llama_cpp_family_goldens.py "$ROOT" test/e2e/Inputs/llama-cpp

golden_<family>.json: compare_hf_golden.py's format.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from llama_cpp_goldens import build_tool, write_golden  # noqa: E402

# family: the family whose transformers golden gives the prompt ids (the deepseek_v3 variants have none of their
# own; deepseek_v2's file, without q_lora_rank, is one llama.cpp does not load: it requires the key but for the
# layer counts of DeepSeek-V2-Lite).
FAMILIES = {"gemma2": "gemma2", "gemma3_text": "gemma3_text", "deepseek_v3": "deepseek_v3",
            "deepseek_v3-mscale": "deepseek_v3", "deepseek_v3-yarn-default": "deepseek_v3"}


def main():
    root, out_dir = sys.argv[1:3]
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tool = os.path.join(tmp, "llama_cpp_logits")
        build_tool(root, tool)
        for family, prompt_family in FAMILIES.items():
            model_dir, gguf_path = os.path.join(tmp, family), os.path.join(tmp, family + ".gguf")
            # make_hf_model.py needs numpy only; the reference venv has it.
            subprocess.run([sys.executable, os.path.join(HERE, "make_hf_model.py"), family, model_dir], check=True)
            subprocess.run([sys.executable, os.path.join(HERE, "hf_to_gguf.py"), model_dir, gguf_path,
                            "--tokenizer"], check=True)
            hf_golden = os.path.join(HERE, "hf-random", "families", prompt_family, "golden_long.json")
            tokens = json.load(open(hf_golden))["prompt_ids"]
            write_golden(tool, gguf_path, tokens, os.path.join(out_dir, "golden_%s.json" % family))


if __name__ == "__main__":
    main()
