#!/usr/bin/env bash
# The main job on the embedded default model (stories260K): compile its config
# through every phase, write the CPU artifact and the CUDA artifact (with the
# PTX of every kernel checked by ptxas), and generate text with the CPU one
# when the real weights are at ../shared/models (else say how to get that far).
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
for phase in llm fused kernels llvm; do
  "$LLMC" --compile-to=$phase "$MODEL" > "$OUT/$phase.mlir"
  printf '== phase %-8s %8d lines  (%s)\n' "$phase" "$(wc -l < "$OUT/$phase.mlir")" "$OUT/$phase.mlir"
done
printf '   llm functions: %s\n' "$(grep -o 'func.func [a-z]* *@[a-z_0-9]*' "$OUT/llm.mlir" | sed 's/func.func //' | tr '\n' ' ')"
for op in embedding rms_norm linear rope kv_append kv_view attention glu add logits; do
  printf '     llm.%-12s %s\n' "$op" "$(grep -c "llm.$op " "$OUT/llm.mlir" || true)"
done
echo '   after fusion (the fused phase):'
for op in rms_norm linear multi_linear glu_linear rope_append add logits; do
  printf '     llm.%-12s %s\n' "$op" "$(grep -c "llm.$op " "$OUT/fused.mlir" || true)"
done
printf '     %-16s %s\n' "with residual" "$(grep -c 'llm.linear .* residual ' "$OUT/fused.mlir" || true)"
echo
echo "== artifact"
"$LLMC" compile "$MODEL" --target=cpu -o "$OUT/artifact"
ls -l "$OUT/artifact"
echo
echo "== CUDA: kernels for sm_80 and sm_90 (PTX and cubin in the artifact; running them needs an NVIDIA GPU)"
"$LLMC" --compile-to=ptx --target=cuda:sm_80,sm_90 "$MODEL" > "$OUT/kernels.ptx"
printf '   %d kernels per arch in %s; registers, shared memory, spills:\n' \
  "$(grep -c '^.visible .entry' "$OUT/kernels.ptx" | awk '{print $1 / 2}')" "$OUT/kernels.ptx"
python3 test/lib/ptxas_check.py --table < "$OUT/kernels.ptx" | grep -E 'sm_90|^\| kernel|^\|---' | sed 's/^/   /'
"$LLMC" compile "$MODEL" --target=cuda:sm_80,sm_90 -o "$OUT/artifact-cuda"
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
