"""Writes the layouts (committed; small) of the GGUF files that llama.cpp's own convert_hf_to_gguf.py makes of
make_hf_model.py's deepseek_v2 and deepseek_v3 directories, --outtype f32 and q8_0: gguf_layout.py's "deepseek2."
metadata and tensors (type, shape, sha256). gguf-deepseek2.test checks that hf_to_gguf.py, which the tests run
(llama.cpp's converter imports torch, which CI's reference venv does not have), writes exactly these files.

The converter is run as its own script, with one change: DeepseekV2Model.set_vocab writes nothing, because the
tiny models' tokenizer (stories260K's SentencePiece vocabulary in tokenizer.json) is none that the converter
recognises, and the vocabulary is not part of the layout.

Run in the generator venv (torch), against the llama.cpp sources of the pinned llama-cpp-python:

    PY=$(scripts/reference-venv.sh --full)
    ROOT=$(dirname "$(dirname "$(scripts/build-llama-cpp.sh)")")
    $PY test/e2e/Inputs/llama_cpp_converter_layouts.py "$ROOT" test/e2e/Inputs/llama-cpp

layout_<family>-<outtype>.json: gguf_layout.py's format.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gguf_layout import layout  # noqa: E402

FAMILIES = ("deepseek_v2", "deepseek_v3")
OUTTYPES = ("f32", "q8_0")
# The converter's own script with set_vocab emptied (see above); argv: <llama.cpp dir> <converter arguments...>.
RUN_CONVERTER = """
import os, runpy, sys
llama = sys.argv.pop(1)
sys.path.insert(0, llama)
sys.path.insert(1, os.path.join(llama, "gguf-py"))
import conversion.deepseek
conversion.deepseek.DeepseekV2Model.set_vocab = lambda self: None
sys.argv[0] = os.path.join(llama, "convert_hf_to_gguf.py")
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def main():
    root, out_dir = sys.argv[1:3]
    llama = os.path.join(root, "src", "vendor", "llama.cpp")
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for family in FAMILIES:
            model_dir = os.path.join(tmp, family)
            subprocess.run([sys.executable, os.path.join(HERE, "make_hf_model.py"), family, model_dir], check=True)
            for outtype in OUTTYPES:
                gguf_path = os.path.join(tmp, "%s-%s.gguf" % (family, outtype))
                subprocess.run([sys.executable, "-c", RUN_CONVERTER, llama, model_dir, "--outtype", outtype,
                                "--outfile", gguf_path], check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                out_path = os.path.join(out_dir, "layout_%s-%s.json" % (family, outtype))
                with open(out_path, "w") as f:
                    json.dump(dict(layout(gguf_path), generator="convert_hf_to_gguf.py of llama-cpp-python 0.3.36"),
                              f, indent=1, sort_keys=True)
                    f.write("\n")
                print(os.path.basename(out_path))


if __name__ == "__main__":
    main()
