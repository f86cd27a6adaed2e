#!/usr/bin/env bash
# Creates (once) the Python venv of llmc's independent references, outside the clone, with pinned versions.
#
#   scripts/reference-venv.sh          # what tests use at test time: gguf (the reference dequantizer), numpy,
#                                      # tokenizers, jinja2, transformers (tokenizer and chat-template references,
#                                      # regenerated and compared by the *-regen tests; no torch)
#   scripts/reference-venv.sh --full   # also what the model golden-file generators use: torch, accelerate
#                                      # (a few GB, once)
#
# Prints the venv's python on stdout. Venv: $LLMC_CACHE_DIR/venv, else ${XDG_CACHE_HOME:-~/.cache}/llmc/venv.
# The pins are the versions the committed golden files were generated with; change them only together with
# regenerating those files.
set -euo pipefail

TEST_PACKAGES=(gguf==0.19.0 numpy==2.4.6 transformers==5.24.0 tokenizers==0.23.3 jinja2==3.1.6
               sentencepiece==0.2.3 protobuf)
GENERATOR_PACKAGES=(torch==2.15.0 accelerate==1.15.0 safetensors)

CACHE=${LLMC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmc}
VENV="$CACHE/venv"
PY="$VENV/bin/python"

want=("${TEST_PACKAGES[@]}")
check="import gguf, numpy, transformers, tokenizers, jinja2"
if [ "${1:-}" = --full ]; then
  want+=("${GENERATOR_PACKAGES[@]}")
  check="$check, torch, accelerate"
fi

if [ -x "$PY" ] && "$PY" -c "$check" 2>/dev/null; then
  echo "$PY"
  exit 0
fi
mkdir -p "$CACHE"
[ -x "$PY" ] || python3 -m venv "$VENV" >&2
echo "reference-venv: installing ${want[*]} into $VENV (PyPI)" >&2
if ! "$PY" -m pip install --quiet --disable-pip-version-check "${want[@]}" >&2; then
  echo "reference-venv: error: pip install failed (no PyPI access?)" >&2
  exit 1
fi
echo "$PY"
