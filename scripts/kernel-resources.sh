#!/usr/bin/env bash
# Registers, shared memory and spills of every CUDA kernel of a model, per
# architecture: compiles the model's PTX for sm_80 and sm_90 with llmc and
# assembles it with ptxas -v (test/lib/ptxas_check.py), printing one Markdown
# table. Exits non-zero if llmc or ptxas fails or any kernel spills.
#
#   scripts/kernel-resources.sh <config.json | model dir | .gguf | .mlir> [llmc flags]
#   e.g. scripts/kernel-resources.sh configs/stories260k.json --weight-type=bf16
#
# Uses $LLMC (default $LLMC_BUILD_DIR/bin/llmc, build/ by default), $PTXAS
# (default /usr/local/cuda/bin/ptxas), python3 (standard library only).
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR=${LLMC_BUILD_DIR:-$ROOT/build}
LLMC=${LLMC:-$BUILD_DIR/bin/llmc}
if [ ! -x "$LLMC" ]; then
  echo "kernel-resources.sh: $LLMC not found; build it first (scripts/build.sh)" >&2
  exit 1
fi
MODEL=$1
shift
PTX=$(mktemp "${TMPDIR:-/tmp}/kernel-resources.XXXXXX")
trap 'rm -f "$PTX"' EXIT
"$LLMC" --compile-to=ptx --target=cuda:sm_80,sm_90 "$@" "$MODEL" > "$PTX"
python3 "$ROOT/test/lib/ptxas_check.py" --table --arch sm_80 --arch sm_90 < "$PTX"
