#!/usr/bin/env bash
# The main job on the embedded default model (stories260K): compile its config
# through every phase, write the CPU artifact, and generate text with it when
# the real weights are at ../shared/models (else say how to get that far).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
BUILD_DIR=${LLMC_BUILD_DIR:-build}
MODEL=${1:-configs/stories260k.json}
LLMC="$BUILD_DIR/bin/llmc"
OUT="$BUILD_DIR/demo"
mkdir -p "$OUT"

echo "== phase config: $MODEL"
"$LLMC" --compile-to=config "$MODEL"
echo
for phase in llm kernels llvm; do
  "$LLMC" --compile-to=$phase "$MODEL" > "$OUT/$phase.mlir"
  printf '== phase %-8s %8d lines  (%s)\n' "$phase" "$(wc -l < "$OUT/$phase.mlir")" "$OUT/$phase.mlir"
done
printf '   llm functions: %s\n' "$(grep -o 'func.func [a-z]* *@[a-z_0-9]*' "$OUT/llm.mlir" | sed 's/func.func //' | tr '\n' ' ')"
for op in embedding rms_norm linear rope kv_append kv_view attention glu add logits; do
  printf '     llm.%-10s %s\n' "$op" "$(grep -c "llm.$op " "$OUT/llm.mlir" || true)"
done
echo
echo "== artifact"
"$LLMC" compile "$MODEL" --target=cpu -o "$OUT/artifact"
ls -l "$OUT/artifact"
echo
echo "== model info"
"$LLMC" info "$MODEL"

WEIGHTS=../shared/models/stories260K/stories260K.gguf
if [ "$MODEL" = configs/stories260k.json ] && [ -f "$WEIGHTS" ]; then
  echo
  echo "== generate (greedy, 120 tokens after BOS, weights $WEIGHTS)"
  "$BUILD_DIR/bin/llmc-run" "$OUT/artifact" --weights "$WEIGHTS" --tokens 1 -n 120
  echo
else
  echo
  echo "(no weights at $WEIGHTS: run $BUILD_DIR/bin/llmc-run $OUT/artifact --weights <file.gguf|.bin|.safetensors> --prompt 'Once upon a time' to generate)"
fi
