#!/usr/bin/env bash
# llmc CPU benchmark: builds the helpers, generates the models, compiles them with llmc, runs every
# engine on each model and prints one table. See bench/README.md. Nothing is written into the repo:
# models, artifacts, binaries and logs go to $BENCH_WORK (default /tmp/llmc-bench).
#
# Environment knobs (defaults in brackets):
#   LLMC_BUILD_DIR   llmc build directory with bin/llmc and bin/llmc-run [<repo>/build]
#   BENCH_WORK       scratch directory [/tmp/llmc-bench]
#   TORCH_VENV       venv with torch + transformers [/tmp/llmc-bench-venv]; created and filled with
#                    `pip install torch transformers` when it lacks them, unless BENCH_NO_PIP=1
#   BENCH_SMOL_PROMPT, BENCH_SMOL_NEW    SmolLM2-shaped model: prompt tokens, generated tokens [16, 24]
#   BENCH_S260_PROMPT, BENCH_S260_NEW    stories260K: prompt tokens, generated tokens [32, 96]
#   BENCH_MODELS     which models: "stories260K SmolLM2" [both]; artifacts are cached
#   BENCH_LLMC_WARMUP  1: llmc-run gets --warmup (one untimed prefill first, like PyTorch's warm-up
#                    pass), so its prefill no longer includes the first touch of the mapped weights [0]
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH="$ROOT/bench"
BUILD=${LLMC_BUILD_DIR:-$ROOT/build}
WORK=${BENCH_WORK:-/tmp/llmc-bench}
VENV=${TORCH_VENV:-/tmp/llmc-bench-venv}
PY=/usr/bin/python3 # Debian's python3 has numpy (see TOOLCHAIN.md "Python")
S260_BIN="$ROOT/../shared/models/stories260K/stories260K.bin"
S260_GOLD="$ROOT/../shared/models/stories260K/greedy200.tokens"
SMOL_PROMPT=${BENCH_SMOL_PROMPT:-16}
SMOL_NEW=${BENCH_SMOL_NEW:-24}
S260_PROMPT=${BENCH_S260_PROMPT:-32}
S260_NEW=${BENCH_S260_NEW:-96}
LLMC_WARMUP=()
[ "${BENCH_LLMC_WARMUP:-0}" = 1 ] && LLMC_WARMUP=(--warmup)
CFLAGS="-O2 -march=native"
mkdir -p "$WORK/bin" "$WORK/logs"
START=$(date +%s)
status=0

log() { echo "bench: $*" >&2; }

wait_for_builds() { # the machine is shared: never time anything while someone's ninja runs
  local waited=0
  while pgrep -x ninja >/dev/null; do
    [ $waited -eq 0 ] && log "another build (ninja) is running; waiting for it to finish"
    sleep 5
    waited=$((waited + 5))
  done
}

# ---- 1. what the benchmark needs ----------------------------------------------------------------
if [ ! -x "$BUILD/bin/llmc" ] || [ ! -x "$BUILD/bin/llmc-run" ]; then
  wait_for_builds
  log "building llmc and llmc-run"
  (cd "$ROOT" && LLMC_BUILD_DIR="$BUILD" scripts/build.sh --target llmc llmc-run) || {
    log "error: cannot build llmc / llmc-run"
    exit 1
  }
fi
LLMC="$BUILD/bin/llmc"
LLMC_RUN="$BUILD/bin/llmc-run"

gcc $CFLAGS -o "$WORK/bin/naive_reference" "$BENCH/naive_reference.c" -lm || exit 1
gcc $CFLAGS -pthread -o "$WORK/bin/stream" "$BENCH/stream.c" || exit 1
# -O3: the FMA chains must be unrolled into registers.
gcc -O3 -march=native -pthread -o "$WORK/bin/fma_peak" "$BENCH/fma_peak.c" || exit 1

TORCH_REASON=""
if ! "$VENV/bin/python" -c "import torch, transformers" 2>/dev/null; then
  if [ "${BENCH_NO_PIP:-0}" = 1 ]; then
    TORCH_REASON="torch/transformers not installed in $VENV (BENCH_NO_PIP=1)"
  else
    log "installing torch + transformers into $VENV (PyPI; a few GB, once)"
    { [ -x "$VENV/bin/pip" ] || $PY -m venv "$VENV"; } &&
      "$VENV/bin/pip" install -q torch transformers safetensors numpy >"$WORK/logs/pip.log" 2>&1 ||
      TORCH_REASON="pip install torch transformers failed (see $WORK/logs/pip.log)"
  fi
fi
if [ -z "$TORCH_REASON" ]; then
  TORCH_VERSION=$("$VENV/bin/python" -c "import torch, transformers; print('torch', torch.__version__, '+ transformers', transformers.__version__)" 2>/dev/null) ||
    TORCH_REASON="torch does not import from $VENV"
fi

# ---- 2. models and artifacts --------------------------------------------------------------------
# Artifacts are cached: recompiled only when llmc or the config is newer than the manifest.
compile() { # <config.json> <out-dir> <extra llmc flags...>
  local cfg=$1 out=$2
  shift 2
  local manifest
  manifest=$(ls "$out"/*.json 2>/dev/null | head -1)
  if [ -n "$manifest" ] && [ "$manifest" -nt "$LLMC" ] && [ "$manifest" -nt "$cfg" ]; then
    log "artifact $out is up to date"
    return 0
  fi
  rm -rf "$out"
  local t0=$(date +%s)
  log "compiling $cfg -> $out"
  "$LLMC" compile "$cfg" --target=cpu "$@" -o "$out" >"$WORK/logs/compile-$(basename "$out").log" 2>&1 || {
    log "error: llmc compile failed:"
    cat "$WORK/logs/compile-$(basename "$out").log" >&2
    return 1
  }
  log "compiled in $(($(date +%s) - t0)) s"
}

MODELS=${BENCH_MODELS:-stories260K SmolLM2}
want() { case " $MODELS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
SMOL_DIR="$WORK/smollm2-135m-random"
if ! want SmolLM2; then :
elif [ ! -f "$SMOL_DIR/model.safetensors" ] || [ "$BENCH/make_random_model.py" -nt "$SMOL_DIR/model.safetensors" ]; then
  $PY "$BENCH/make_random_model.py" --shape smollm2-135m --out "$SMOL_DIR" || exit 1
fi
LLMC_FLAGS=(--weight-type=f32 --kv-type=f32)
want SmolLM2 && { compile "$SMOL_DIR/config.json" "$WORK/art-smollm2" --context=512 "${LLMC_FLAGS[@]}" || exit 1; }
# Each model also with a paged KV cache (the "llmc paged KV" rows: the page-table lookups' cost).
want SmolLM2 && { compile "$SMOL_DIR/config.json" "$WORK/art-smollm2-paged" --context=512 --paged-kv-cache "${LLMC_FLAGS[@]}" || exit 1; }

HAVE_S260=1
if ! want stories260K; then
  HAVE_S260=0
elif [ ! -f "$S260_BIN" ]; then
  log "stories260K skipped: $S260_BIN is absent"
  HAVE_S260=0
else
  S260_HF="$WORK/stories260k-hf" # the same weights as safetensors, q/k rows in half order (for torch)
  if [ ! -f "$S260_HF/model.safetensors" ] || [ "$BENCH/make_random_model.py" -nt "$S260_HF/model.safetensors" ]; then
    $PY "$BENCH/make_random_model.py" --from-llama2c "$S260_BIN" --out "$S260_HF" || exit 1
  fi
  compile "$ROOT/configs/stories260k.json" "$WORK/art-stories260k" "${LLMC_FLAGS[@]}" || exit 1
  compile "$ROOT/configs/stories260k.json" "$WORK/art-stories260k-paged" --paged-kv-cache "${LLMC_FLAGS[@]}" || exit 1
fi

# ---- 3. measurements ----------------------------------------------------------------------------
wait_for_builds
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
"$WORK/bin/stream" >"$WORK/logs/stream.txt" 2>"$WORK/logs/stream.err" || exit 1
bw() { sed -n "s/^stream $1 threads=$2 GB\/s=//p" "$WORK/logs/stream.txt"; }
READ1=$(bw read 1) READ2=$(bw read 2) COPY1=$(bw copy 1) COPY2=$(bw copy 2)
"$WORK/bin/fma_peak" >"$WORK/logs/fma_peak.txt" 2>"$WORK/logs/fma_peak.err" || exit 1
peak() { sed -n "s/^fma threads=$1 GFLOP\/s=//p" "$WORK/logs/fma_peak.txt"; }
PEAK1=$(peak 1) PEAK2=$(peak 2)

ROWS="$WORK/logs/rows.tsv"
: >"$ROWS"
CHECKS="$WORK/logs/checks.txt"
: >"$CHECKS"
rm -f "$WORK/logs/"*.tokens

# rate <log> prefill|decode : the tokens/s figure of an engine's timing line
rate() { sed -nE "s/.*$2 [0-9]+ tokens in [0-9.]+ ms \(([0-9.]+) tokens\/s\).*/\1/p" "$1" | tail -1; }

# run_engine <model> <engine label> <threads> <log stem> <command...>
# stdout of the command = the token ids; stderr = the timing line.
run_engine() {
  local model=$1 engine=$2 threads=$3 stem=$4
  shift 4
  wait_for_builds
  if ! "$@" >"$WORK/logs/$stem.tokens" 2>"$WORK/logs/$stem.err"; then
    log "$engine on $model failed:"
    tail -3 "$WORK/logs/$stem.err" >&2
    printf '%s\t%s\t%s\tfailed\t\n' "$model" "$engine" "$threads" >>"$ROWS"
    status=1
    return
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$model" "$engine" "$threads" \
    "$(rate "$WORK/logs/$stem.err" prefill)" "$(rate "$WORK/logs/$stem.err" decode)" >>"$ROWS"
}

# same_tokens <model> <engine> <stem> <reference stem>: greedy ids must equal the naive reference's
same_tokens() {
  local a="$WORK/logs/$3.tokens" b="$WORK/logs/$4.tokens"
  [ -s "$a" ] || return
  if cmp -s <(tr -s ' \n' '\n\n' <"$a") <(tr -s ' \n' '\n\n' <"$b"); then
    echo "  $1: $2 greedy tokens == naive: yes" >>"$CHECKS"
  else
    echo "  $1: $2 greedy tokens == naive: NO" >>"$CHECKS"
    echo "    naive: $(cat "$b")" >>"$CHECKS"
    echo "    $2: $(cat "$a")" >>"$CHECKS"
    status=1
  fi
}

bench_model() { # <model label> <weights for llmc/naive> <hf dir for torch> <artifact> <prompt ids> <n new>
  local m=$1 w=$2 hf=$3 art=$4 prompt=$5 n=$6 s=${1%%[ (]*}
  run_engine "$m" "naive C" 1 "$s-naive" "$WORK/bin/naive_reference" "$w" --tokens "$prompt" -n "$n"
  run_engine "$m" "llmc" 2 "$s-llmc2" env OMP_NUM_THREADS=2 "$LLMC_RUN" "$art" --weights "$w" --tokens "$prompt" -n "$n" --print-tokens "${LLMC_WARMUP[@]}"
  run_engine "$m" "llmc" 1 "$s-llmc1" env OMP_NUM_THREADS=1 "$LLMC_RUN" "$art" --weights "$w" --tokens "$prompt" -n "$n" --print-tokens "${LLMC_WARMUP[@]}"
  run_engine "$m" "llmc paged KV" 2 "$s-llmc2paged" env OMP_NUM_THREADS=2 "$LLMC_RUN" "$art-paged" --weights "$w" --tokens "$prompt" -n "$n" --print-tokens "${LLMC_WARMUP[@]}"
  if [ -z "$TORCH_REASON" ]; then
    run_engine "$m" "PyTorch eager" 2 "$s-torch" "$VENV/bin/python" "$BENCH/torch_baseline.py" "$hf" --tokens "$prompt" -n "$n" --threads 2
  else
    printf '%s\t%s\t%s\tnot measured\t%s\n' "$m" "PyTorch eager" 2 "$TORCH_REASON" >>"$ROWS"
  fi
  echo "  $m: naive greedy ids: $(cat "$WORK/logs/$s-naive.tokens")" >>"$CHECKS"
  for e in llmc2 llmc1 llmc2paged torch; do
    same_tokens "$m" "$e" "$s-$e" "$s-naive"
  done
}

weight_bytes() { "$LLMC" info "$1" | sed -n 's/^weight_bytes.f32: \([0-9]*\).*/\1/p'; }
# prefill_flops <config> <prompt tokens>: the work a prompt needs, counted the same way for every
# engine: 2 flops per matmul weight per token in the layers, the classifier for the last token only
# (all a generation reads), and causal attention (QK and PV, 4·layers·heads·head_dim per attended
# position, token t attending to t + 1 positions).
prefill_flops() {
  "$LLMC" info "$1" | awk -v T="$2" -F': ' '
    $1 == "flops_per_token.matmul_params" { matmul = $2 + 0 }
    $1 == "parameters.embedding" { head = $2 + 0 }
    $1 == "flops_per_token.attention_per_position" { attn = $2 + 0 }
    END { printf "%.0f", 2 * (matmul - head) * T + 2 * head + attn * T * (T + 1) / 2 }'
}

if [ $HAVE_S260 = 1 ]; then
  # Prompt: the first tokens of llama2.c's published greedy run (BOS first).
  S260_TOKENS=$(tr -s ' \n' '  ' <"$S260_GOLD" | cut -d' ' -f1-"$S260_PROMPT")
  bench_model stories260K "$S260_BIN" "$S260_HF" "$WORK/art-stories260k" "$S260_TOKENS" "$S260_NEW"
  WB_stories260K=$(weight_bytes "$ROOT/configs/stories260k.json")
  FL_stories260K=$(prefill_flops "$ROOT/configs/stories260k.json" "$S260_PROMPT")
fi
# Prompt for the random model: fixed pseudo-random ids.
want SmolLM2 && {
SMOL_TOKENS=$(awk -v n="$SMOL_PROMPT" 'BEGIN { x = 12345; for (i = 0; i < n; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%s%d", (i ? " " : ""), int(x / 1024) % 49152 } }')
bench_model "SmolLM2-135M (random)" "$SMOL_DIR/model.safetensors" "$SMOL_DIR" "$WORK/art-smollm2" "$SMOL_TOKENS" "$SMOL_NEW"
WB_SmolLM2=$(weight_bytes "$SMOL_DIR/config.json")
FL_SmolLM2=$(prefill_flops "$SMOL_DIR/config.json" "$SMOL_PROMPT")
}
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- 4. the table -------------------------------------------------------------------------------
echo
echo "llmc CPU benchmark  ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
echo "memory bandwidth (bench/stream.c, 256 MiB, huge pages, best of 10):" \
  "read ${READ1} GB/s at 1 thread, ${READ2} GB/s at 2; copy ${COPY1} / ${COPY2} GB/s"
echo "f32 FMA peak (bench/fma_peak.c, best of 5): ${PEAK1} GFLOP/s at 1 thread, ${PEAK2} at 2"
echo "load average before/after the runs: $LOAD_BEFORE / $LOAD_AFTER"
echo "llmc: $LLMC (artifacts: f32 weights, f32 KV cache${LLMC_WARMUP:+; llmc-run --warmup: prefill on weights already mapped}); naive: gcc $CFLAGS, one thread; ${TORCH_VERSION:-PyTorch: $TORCH_REASON}"
echo "stories260K: prompt $S260_PROMPT tokens, $S260_NEW generated; SmolLM2-135M (random f32 weights): prompt $SMOL_PROMPT, $SMOL_NEW generated"
echo
awk -F'\t' -v r1="$READ1" -v r2="$READ2" -v p1="$PEAK1" -v p2="$PEAK2" \
    -v wb_s="${WB_stories260K:-0}" -v wb_m="${WB_SmolLM2:-0}" \
    -v fl_s="${FL_stories260K:-0}" -v fl_m="${FL_SmolLM2:-0}" -v t_s="$S260_PROMPT" -v t_m="$SMOL_PROMPT" '
  function fmt(x) { return x == "" ? "-" : (x + 0 >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x)) }
  { model[NR] = $1; eng[NR] = $2; thr[NR] = $3; pre[NR] = $4; dec[NR] = $5
    if ($2 == "naive C") { npre[$1] = $4; ndec[$1] = $5 } }
  END {
    f = "| %-21s | %-22s | %13s | %15s | %13s | %12s | %25s | %11s | %12s |\n"
    printf f, "model", "engine", "prefill tok/s", "prefill GFLOP/s", "% of FMA peak", "decode tok/s", "ratio vs naive (pre/dec)", "weight GB/s", "% of read BW"
    printf "|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", "-----------------------", "------------------------", "---------------",
      "-----------------", "---------------", "--------------", "---------------------------", "-------------", "--------------"
    for (i = 1; i <= NR; i++) {
      label = eng[i] " (" thr[i] " thr)"
      if (pre[i] == "failed" || pre[i] == "not measured") {
        printf f, model[i], label, pre[i], "-", "-", "-", "-", "-", "-"
        if (dec[i] != "") printf "|   %s\n", "reason: " dec[i]
        continue
      }
      small = model[i] ~ /^stories/
      wb = small ? wb_s : wb_m
      gbs = wb * dec[i] / 1e9
      bw = thr[i] == 1 ? r1 : r2
      # prefill GFLOP/s = the prompt'"'"'s flops / its prefill time (tokens / rate)
      gflops = (small ? fl_s / t_s : fl_m / t_m) * pre[i] / 1e9
      pk = thr[i] == 1 ? p1 : p2
      ratio = (npre[model[i]] + 0 > 0 && ndec[model[i]] + 0 > 0) ? sprintf("%.2fx / %.2fx", pre[i] / npre[model[i]], dec[i] / ndec[model[i]]) : "-"
      printf f, model[i], label, fmt(pre[i]), fmt(gflops), sprintf("%.0f%%", 100 * gflops / pk), fmt(dec[i]), ratio, sprintf("%.2f", gbs), sprintf("%.0f%%", 100 * gbs / bw)
    }
  }' "$ROWS"
echo
echo "greedy check (every engine must produce the naive reference's token ids):"
cat "$CHECKS"
echo "weight bytes per decoded token: stories260K ${WB_stories260K:-n/a}, SmolLM2-135M ${WB_SmolLM2:-n/a} (all weights, f32; the tied embedding read once as the LM head)"
echo "flops per prompt (layers for every token, the classifier for the last, causal attention): stories260K ${FL_stories260K:-n/a}, SmolLM2-135M ${FL_SmolLM2:-n/a}"
echo "total time $(($(date +%s) - START)) s (logs in $WORK/logs)"
exit $status
