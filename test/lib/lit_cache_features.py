"""lit features for data that lives in llmc's download cache, outside the clone (shared by both lit configs).

The cache is $LLMC_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/llmc, the same place scripts/fetch-model.sh
and the test-data generators write to. Each feature is present only when its data is there; tests that need
it say `REQUIRES: <feature>` and are UNSUPPORTED (with the note below naming the command) when it is absent.
"""
import os
import subprocess


def cache_dir():
    if os.environ.get("LLMC_CACHE_DIR"):
        return os.environ["LLMC_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "llmc")


def add_cache_features(config, lit_config):
    cache = cache_dir()
    # smollm2: the real SmolLM2-135M-Instruct (Q4_1 GGUF) from scripts/fetch-model.sh.
    smollm2 = os.path.join(cache, "models", "SmolLM2-135M-Instruct.Q4_1.gguf")
    config.substitutions.append(("%smollm2_gguf", smollm2))
    if os.path.isfile(smollm2):
        config.available_features.add("smollm2")
    else:
        lit_config.note("SmolLM2-135M-Instruct not in the cache (%s): tests that need it are "
                        "UNSUPPORTED (run scripts/fetch-model.sh)" % smollm2)

    # reference-python: the venv of the reference packages (gguf, numpy, transformers, tokenizers, jinja2)
    # that tests use to compute expected values or regenerate goldens at test time; made by
    # scripts/reference-venv.sh.
    venv_python = os.path.join(cache, "venv", "bin", "python")
    config.substitutions.append(("%ref_python", venv_python))
    if os.access(venv_python, os.X_OK) and subprocess.call(
            [venv_python, "-c", "import gguf, numpy, transformers, tokenizers, jinja2"], stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("reference-python")
    else:
        lit_config.note("no reference venv at %s: tests that compare against the gguf package are "
                        "UNSUPPORTED (run scripts/reference-venv.sh)" % venv_python)

    # reference-torch: the same venv with torch (scripts/reference-venv.sh --full), which transformers needs
    # for what it reads from GGUF files (its GGUF tokenizer converter among them).
    if "reference-python" in config.available_features and subprocess.call(
            [venv_python, "-c", "import torch"], stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("reference-torch")
    else:
        lit_config.note("no torch in the reference venv: tests that read GGUF files with transformers are "
                        "UNSUPPORTED (run scripts/reference-venv.sh --full)")

    # quant-testdata: GGUF files made by llama.cpp's own llama-quantize (scripts/make-quant-testdata.sh).
    quant = os.path.join(cache, "testdata", "quant")
    config.substitutions.append(("%quant_testdata", quant))
    if os.path.isfile(os.path.join(quant, "COMPLETE")):
        config.available_features.add("quant-testdata")
    else:
        lit_config.note("no llama-quantize test files at %s: tests that need them are "
                        "UNSUPPORTED (run scripts/make-quant-testdata.sh)" % quant)
