#!/usr/bin/env bash
# The main job on the embedded default model (stories260K): compile its config
# through every phase that exists and print a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
BUILD_DIR=${LLMC_BUILD_DIR:-build}
MODEL=${1:-configs/stories260k.json}
LLMC="$BUILD_DIR/bin/llmc"

echo "== phase config: $MODEL"
"$LLMC" --compile-to=config "$MODEL"
echo
echo "== phase llm"
"$LLMC" --compile-to=llm "$MODEL" > "$BUILD_DIR/demo.llm.mlir"
printf 'functions: %s\n' "$(grep -o 'func.func @[a-z]*' "$BUILD_DIR/demo.llm.mlir" | tr '\n' ' ')"
for op in embedding rms_norm linear rope kv_append kv_view attention glu add logits; do
  printf '  llm.%-10s %s\n' "$op" "$(grep -c "llm.$op " "$BUILD_DIR/demo.llm.mlir" || true)"
done
echo "(full IR: $BUILD_DIR/demo.llm.mlir)"
echo
echo "== model info"
"$LLMC" info "$MODEL"
