#!/usr/bin/env bash
# llmc against llama.cpp on quantized GGUF files, measured in the same run: prefill (128 tokens) and
# decode (64 tokens after those 128), both engines with an f16 KV cache, at 2 threads, the medians of
# interleaved rounds, beside the decode rate the memory bandwidth allows. See bench/README.md ("quant.sh"). Nothing is written into the repo: models,
# artifacts and logs go to $BENCH_WORK.
#
# Environment knobs (defaults in brackets):
#   LLMC_BUILD_DIR   llmc build directory with bin/llmc and bin/llmc-run [<repo>/build]; when they are
#                    missing the llmc columns say so and llama.cpp is still measured
#   BENCH_WORK       scratch directory: generated GGUFs, artifacts, logs [/tmp/llmc-quant-bench]
#   BENCH_ROUNDS     measured rounds; each is llama.cpp then llmc on every file, after one
#                    discarded warm pass; the table shows medians [3]
#   BENCH_FORMATS    which files: "real" (the real SmolLM2-135M-Instruct Q4_1) and llama-quantize
#                    types of the random SmolLM2-shaped model
#                    ["real F32 F16 BF16 Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q4_K_M Q5_K_M Q6_K"]
#   BENCH_TINYLLAMA  1: also a TinyLlama-1.1B-shaped random model in those of F16 Q4_0 Q4_K_M Q8_0 that
#                    BENCH_FORMATS names (its f32 source is 4.4 GB) [0]
#   BENCH_LLAMA8B_LAYERS  1: also 4 layers of LLaMA-3-8B's shape (hidden 4096, ffn 14336, GQA 32/8;
#                    a 32000-token vocabulary) in the same formats: its K = 4096 and 14336 matrices
#                    (its f32 source is 4.5 GB) [0]
#   BENCH_BUSY_WAIT  seconds, in all, to wait for a CPU busy with other work before measuring
#                    anyway (the table then says so); builds (ninja, cc1plus) are always waited for [600]
#   BENCH_ISA        native: both engines use every instruction set this CPU has; avx2: both are built for
#                    x86-64-v3 (AVX2, FMA, F16C; no AVX-512): llama.cpp from its own build dir, llmc with
#                    --cpu=x86-64-v3, the FMA rate at 256 bits; the AVX2 kernels measured on an AVX-512
#                    machine (its caches and bandwidth, not an AVX2 machine's) [native]
#   BENCH_LLMC_FLAGS more `llmc compile` flags, e.g. "--block-dot=f32" (the decode GEMV without int8 dot
#                    products); artifacts are cached per flag set [""]
#   BENCH_CONTENDED  files (of BENCH_FORMATS) measured once more under load: both engines beside as many
#                    busy-looping processes as threads, which the bench starts before and stops after
#                    each run; "" for none ["F32 Q4_0"]
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH="$ROOT/bench"
BUILD=${LLMC_BUILD_DIR:-$ROOT/build}
WORK=${BENCH_WORK:-/tmp/llmc-quant-bench}
ROUNDS=${BENCH_ROUNDS:-3}
SMOL_FORMATS=(F32 F16 BF16 Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q4_K_M Q5_K_M Q6_K)
FORMATS=${BENCH_FORMATS:-real ${SMOL_FORMATS[*]}}
TINYLLAMA=${BENCH_TINYLLAMA:-0}
LLAMA8B_LAYERS=${BENCH_LLAMA8B_LAYERS:-0}
LARGE_FORMATS=(F16 Q4_0 Q4_K_M Q8_0) # of the larger shapes (BENCH_TINYLLAMA, BENCH_LLAMA8B_LAYERS)
CONTENDED=${BENCH_CONTENDED-F32 Q4_0}
log() { echo "quant: $*" >&2; }
die() { log "error: $*"; exit 1; }
ISA=${BENCH_ISA:-native}
case $ISA in
  native) ISA_LLMC_FLAGS="" ; ISA_CC_FLAGS="-march=native" ;;
  avx2) ISA_LLMC_FLAGS="--cpu=x86-64-v3" ; ISA_CC_FLAGS="-march=x86-64-v3" ;;
  *) die "BENCH_ISA must be native or avx2 (got '$ISA')" ;;
esac
LLMC_FLAGS="${BENCH_LLMC_FLAGS:-}${ISA_LLMC_FLAGS:+ $ISA_LLMC_FLAGS}"
read -r -a LLMC_FLAG_LIST <<< "$LLMC_FLAGS"
KV_TYPE=f16     # KV-cache element type of both engines: llama-bench's default (-ctk/-ctv f16), llmc compile --kv-type
ART_DIR="$WORK/art-kv-$KV_TYPE$([ -n "$LLMC_FLAGS" ] && echo "$LLMC_FLAGS" | tr -cs 'a-z0-9' '-')"
THREADS=2       # llama-bench -t and OMP_NUM_THREADS: the machine this was written for has 2 cores
PROMPT=128      # llama-bench -p; llmc-run gets the same number of fixed ids
GEN=64          # llama-bench -n; llmc-run -n
CONTEXT=512     # llmc compile --context: room for prompt + generated tokens
RUN_TIMEOUT=900 # seconds per engine run: a hung run becomes a failed row, not a hung benchmark
LLMC="$BUILD/bin/llmc"
LLMC_RUN="$BUILD/bin/llmc-run"

# The settings, checked before anything is built, fetched or written.
for f in $FORMATS; do
  case " real ${SMOL_FORMATS[*]} " in *" $f "*) ;; *) die "BENCH_FORMATS names '$f', which is none of: real ${SMOL_FORMATS[*]}" ;; esac
done
[ -n "${FORMATS//[[:space:]]/}" ] || die "BENCH_FORMATS ('$FORMATS') names no file"
for t in $CONTENDED; do
  case " $FORMATS " in *" $t "*) ;; *) die "BENCH_CONTENDED names $t, which BENCH_FORMATS does not measure" ;; esac
done
case $ROUNDS in '' | *[!0-9]* | 0) die "BENCH_ROUNDS must be a positive integer (got '$ROUNDS')" ;; esac
case $TINYLLAMA in 0 | 1) ;; *) die "BENCH_TINYLLAMA must be 0 or 1 (got '$TINYLLAMA')" ;; esac
case $LLAMA8B_LAYERS in 0 | 1) ;; *) die "BENCH_LLAMA8B_LAYERS must be 0 or 1 (got '$LLAMA8B_LAYERS')" ;; esac

mkdir -p "$WORK/models" "$ART_DIR" "$WORK/logs" "$WORK/bin"
START=$(date +%s)
status=0

WAITED=0      # seconds spent waiting for other work, reported above the table
BUSY_WAITED=0 # of which for a busy CPU without a build
BUSY_MAX=${BENCH_BUSY_WAIT:-600} # at most this long for a busy CPU in all (a test suite may run for hours); then measure anyway
BUSY_NOTE=""
# cpu_busy: % of the machine's CPU time that was not idle over the next second. None of this script's
# own engines runs while it samples, so it is other work: llama.cpp's spinning threads collapse when
# they share 2 cores with anything (tg64 fell from ~65-95 to 3 tokens/s beside one `llmc compile`).
cpu_busy() {
  local a b
  a=($(head -1 /proc/stat))
  sleep 1
  b=($(head -1 /proc/stat))
  awk -v u=$((b[1] + b[2] + b[3] + b[6] + b[7] + b[8] - a[1] - a[2] - a[3] - a[6] - a[7] - a[8])) \
      -v i=$((b[4] + b[5] - a[4] - a[5])) 'BEGIN { printf "%d", (u + i > 0 ? 100 * u / (u + i) : 0) }'
}
# wait_for_builds [builds]: before a measurement, wait while a build runs and (without "builds": the
# compiles are not timed) while the CPU is busy with other work, the latter BUSY_MAX s in all.
wait_for_builds() { # the machine is shared: never time anything while someone compiles or tests
  local t0=$SECONDS said=0 busy b0
  while :; do
    if pgrep -x ninja >/dev/null || pgrep -x cc1plus >/dev/null; then
      [ $said = 1 ] || log "a build (ninja / cc1plus) is running; waiting for it to finish"
      said=1
      sleep 5
    elif [ "${1:-}" != builds ] && [ $BUSY_WAITED -lt $BUSY_MAX ] && busy=$(cpu_busy) && [ "$busy" -gt 25 ]; then
      [ $said = 2 ] || log "the CPUs are ${busy}% busy with other work; waiting (at most $BUSY_MAX s in all)"
      said=2
      b0=$SECONDS
      sleep 4
      BUSY_WAITED=$((BUSY_WAITED + SECONDS - b0 + 1))
      [ $BUSY_WAITED -ge $BUSY_MAX ] && BUSY_NOTE="; the CPUs stayed busy with other work: measured under load after waiting $BUSY_MAX s"
    else
      break
    fi
  done
  [ $said = 0 ] || log "waited $((SECONDS - t0)) s"
  WAITED=$((WAITED + SECONDS - t0))
}

want_format() { case " $FORMATS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# brief <file>: the last meaningful line of a log, short and without '|', for a table cell
brief() { grep -v '^\s*$' "$1" 2>/dev/null | tail -1 | tr '|\t' '/ ' | cut -c1-90; }
# why <log> <exit status>: a failed llmc step for a table cell: its first error line; for a crash the
# signal and the innermost frame of llmc's own code in LLVM's stack dump (the last line is only _start)
why() {
  local err frame=""
  err=$(grep -m1 -iE 'error|assert' "$1" 2>/dev/null | grep -v '^PLEASE' | tr '|\t' '/ ' | cut -c1-90)
  if [ "$2" -gt 128 ] && [ "$2" -ne 124 ]; then
    frame=$(grep -m1 -E '^ *#[0-9]+ 0x[0-9a-f]+ .*([A-Za-z_]+\.cpp:|/bin/llmc(-run)?\+0x)' "$1" 2>/dev/null |
      sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ //; s/\(anonymous namespace\):://g; s/\(.*//')
    echo "crashed (SIG$(kill -l $(($2 - 128)) 2>/dev/null || echo $(($2 - 128)))${frame:+ in $frame})${err:+: $err}"
  elif [ "$2" -eq 124 ]; then
    echo "timed out after $RUN_TIMEOUT s"
  else
    [ -n "$err" ] && echo "$err" || brief "$1"
  fi
}

# ---- 1. tools -----------------------------------------------------------------------------------
PY=$("$ROOT/scripts/reference-venv.sh") || die "scripts/reference-venv.sh failed (the gguf package is needed)"
log "building llama.cpp's llama-bench and llama-quantize if needed (several minutes, once)"
LLAMA_BIN=$(LLMC_LLAMA_CPP_ISA=$ISA "$ROOT/scripts/build-llama-cpp.sh" llama-bench llama-quantize) || die "scripts/build-llama-cpp.sh failed"
LLAMA_BENCH="$LLAMA_BIN/llama-bench"
QUANTIZE="$LLAMA_BIN/llama-quantize"
REAL=$("$ROOT/scripts/fetch-model.sh") || { want_format real && die "scripts/fetch-model.sh failed"; }
gcc -O2 $ISA_CC_FLAGS -pthread -o "$WORK/bin/stream" "$BENCH/stream.c" || die "cannot build bench/stream.c"
gcc -O3 $ISA_CC_FLAGS -pthread -o "$WORK/bin/fma_peak" "$BENCH/fma_peak.c" || die "cannot build bench/fma_peak.c"

LLMC_MISSING=""
if [ ! -x "$LLMC" ] || [ ! -x "$LLMC_RUN" ]; then
  # Not built here (scripts/build.sh may be running elsewhere): llama.cpp's half is still useful.
  LLMC_MISSING="llmc not built ($BUILD/bin; scripts/build.sh)"
  log "$LLMC_MISSING: llmc's columns will say so"
fi
LLMC_STAMP=$(stat -c %Y "$LLMC" 2>/dev/null || echo 0)

# ---- 2. the files -------------------------------------------------------------------------------
# Each file has a key; these arrays hold, per key, its path, its table label and (after step 3) its
# summary from gguf_summary.py.
KEYS=()
declare -A PATH_OF LABEL_OF FTYPE_OF BYTES_OF PERTOK_OF FLOPS_OF MIX_OF ART_OF LLMC_ERR_OF BUSY_OF
add_file() { # <key> <label> <path>
  KEYS+=("$1")
  LABEL_OF[$1]=$2
  PATH_OF[$1]=$3
}

# f32_model <shape> <out>: the random f32 source, regenerated when the generator is newer.
f32_model() {
  local shape=$1 out=$2
  if [ -f "$out" ] && [ "$out" -nt "$BENCH/make_llama_gguf.py" ]; then return 0; fi
  log "writing $out (random $shape weights)"
  "$PY" "$BENCH/make_llama_gguf.py" --shape "$shape" --seed 1 --out "$out.tmp" >"$WORK/logs/make-$shape.log" 2>&1 || {
    tail -5 "$WORK/logs/make-$shape.log" >&2
    rm -f "$out.tmp"
    return 1
  }
  mv "$out.tmp" "$out"
}

# quantized <f32 source> <type> <out>: llama-quantize's own mix for <type> (not --pure: the files
# users download, with llama-quantize's per-tensor choices; the footnote lists the resulting types).
quantized() {
  local src=$1 type=$2 out=$3
  if [ -f "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$QUANTIZE" ]; then return 0; fi
  log "quantizing $(basename "$src") -> $type"
  local qlog="$WORK/logs/quantize-$(basename "$out" .gguf).log"
  "$QUANTIZE" "$src" "$out.tmp" "$type" "$THREADS" >"$qlog" 2>&1 || {
    tail -5 "$qlog" >&2
    rm -f "$out.tmp"
    return 1
  }
  mv "$out.tmp" "$out"
}

want_format real && add_file real "SmolLM2-135M-Instruct" "$REAL"
SMOL_F32="$WORK/models/smollm2-135m-random-F32.gguf"
smol_types=()
for t in "${SMOL_FORMATS[@]}"; do want_format $t && smol_types+=("$t"); done
if [ ${#smol_types[@]} -gt 0 ]; then
  f32_model smollm2-135m "$SMOL_F32" || die "cannot write the random SmolLM2-shaped model"
  for t in "${smol_types[@]}"; do
    out="$WORK/models/smollm2-135m-random-$t.gguf"
    [ "$t" = F32 ] && out=$SMOL_F32
    if [ "$t" = F32 ] || quantized "$SMOL_F32" "$t" "$out"; then
      add_file "smol-$t" "SmolLM2-135M (random)" "$out"
    else
      die "llama-quantize failed on $t"
    fi
  done
fi
# larger_model <key prefix> <make_llama_gguf.py shape> <label>: the random f32 source of a larger
# shape, quantized to those of LARGE_FORMATS that BENCH_FORMATS names.
larger_model() {
  local prefix=$1 shape=$2 label=$3 t out types=()
  local src="$WORK/models/$shape-random-F32.gguf"
  for t in "${LARGE_FORMATS[@]}"; do want_format $t && types+=("$t"); done
  [ ${#types[@]} -gt 0 ] || return 0
  f32_model "$shape" "$src" || die "cannot write the random $label model"
  for t in "${types[@]}"; do
    out="$WORK/models/$shape-random-$t.gguf"
    quantized "$src" "$t" "$out" || die "llama-quantize failed on $t"
    add_file "$prefix-$t" "$label (random)" "$out"
  done
}
[ "$TINYLLAMA" = 1 ] && larger_model tiny tinyllama-1.1b "TinyLlama-1.1B"
[ "$LLAMA8B_LAYERS" = 1 ] && larger_model l8x4 llama3-8b-4-layers "LLaMA-3-8B, 4 layers"
# The contended rows (checked above to be files of BENCH_FORMATS): the same file and artifact as
# their key without "+busy", run beside busy loops.
for t in $CONTENDED; do
  k="smol-$t"
  [ "$t" = real ] && k=real
  add_file "$k+busy" "${LABEL_OF[$k]} +$THREADS busy" "${PATH_OF[$k]}"
  BUSY_OF[$k+busy]=$THREADS
done

for k in "${KEYS[@]}"; do
  IFS=$'\t' read -r FTYPE_OF[$k] BYTES_OF[$k] PERTOK_OF[$k] FLOPS_OF[$k] MIX_OF[$k] < <("$PY" "$BENCH/gguf_summary.py" "${PATH_OF[$k]}") ||
    die "cannot read ${PATH_OF[$k]}"
done

# ---- 3. llmc artifacts (not timed) --------------------------------------------------------------
# One artifact per file, cached: recompiled when llmc or the file is newer than its manifest. A file
# llmc refuses becomes an error row; the other files are still measured.
compile() { # <key>
  local k=$1 art="$ART_DIR/$1" clog="$WORK/logs/compile-$1.log" manifest
  ART_OF[$k]=$art
  manifest=$(ls "$art"/*.json 2>/dev/null | head -1)
  if [ -n "$manifest" ] && [ "$manifest" -nt "$LLMC" ] && [ "$manifest" -nt "${PATH_OF[$k]}" ]; then return 0; fi
  rm -rf "$art"
  wait_for_builds builds # a compile is not timed, but it would slow someone's build
  log "llmc compile ${PATH_OF[$k]}"
  local t0=$(date +%s)
  "$LLMC" compile "${PATH_OF[$k]}" --target=cpu -o "$art" --context=$CONTEXT --kv-type=$KV_TYPE "${LLMC_FLAG_LIST[@]}" >"$clog" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then
    LLMC_ERR_OF[$k]="compile: $(why "$clog" $rc)"
    log "llmc compile failed on $k: ${LLMC_ERR_OF[$k]}"
    rm -rf "$art"
    return
  fi
  log "compiled in $(($(date +%s) - t0)) s"
}
for k in "${KEYS[@]}"; do
  if [ -n "$LLMC_MISSING" ]; then LLMC_ERR_OF[$k]=$LLMC_MISSING
  elif [ -n "${BUSY_OF[$k]:-}" ]; then ART_OF[$k]=${ART_OF[${k%+busy}]}; LLMC_ERR_OF[$k]=${LLMC_ERR_OF[${k%+busy}]:-}
  else compile "$k"; fi
done

# ---- 4. measurements ----------------------------------------------------------------------------
# The prompt: PROMPT fixed pseudo-random ids past the specials and byte tokens (259) and below every
# vocabulary here (TinyLlama's 32000), so each engine and file gets the same ids.
TOKENS=$(awk -v n="$PROMPT" 'BEGIN { x = 12345; for (i = 0; i < n; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%s%d", (i ? " " : ""), 259 + int(x / 1024) % 31741 } }')
# load_start <key> / load_stop: the busy loops a contended row runs beside (none for the others); each
# loop ends by itself after RUN_TIMEOUT s should the bench die before it stops them.
LOAD_PIDS=()
load_start() {
  local i
  LOAD_PIDS=()
  for ((i = 0; i < ${BUSY_OF[$1]:-0}; i++)); do
    timeout $RUN_TIMEOUT sh -c 'while :; do :; done' &
    LOAD_PIDS+=($!)
  done
  [ ${#LOAD_PIDS[@]} -eq 0 ] || sleep 0.2
}
load_stop() {
  [ ${#LOAD_PIDS[@]} -eq 0 ] && return 0
  kill "${LOAD_PIDS[@]}" 2>/dev/null
  wait "${LOAD_PIDS[@]}" 2>/dev/null
  LOAD_PIDS=()
}
trap load_stop EXIT

RESULTS="$WORK/logs/results.tsv" # round, key, engine, prefill tok/s, decode tok/s, error
: >"$RESULTS"
BWFILE="$WORK/logs/bandwidth.tsv" # round, read GB/s at THREADS threads
PEAKFILE="$WORK/logs/fma_peak.tsv" # round, f32 FMA GFLOP/s at THREADS threads
: >"$BWFILE"
: >"$PEAKFILE"

# llama.cpp: one llama-bench process runs pp<PROMPT> from an empty cache and tg<GEN> after PROMPT tokens
# (-d: the depth at which llmc-run decodes, after its prompt), each after its own warm-up run; -d 0,PROMPT
# also runs pp at that depth and tg from an empty cache, which the table leaves out.
run_llama() { # <round> <key>
  local r=$1 k=$2 stem="$WORK/logs/r$1-$2-llama"
  wait_for_builds
  load_start "$k"
  timeout $RUN_TIMEOUT "$LLAMA_BENCH" -m "${PATH_OF[$k]}" -p $PROMPT -n $GEN -d 0,$PROMPT -ctk $KV_TYPE -ctv $KV_TYPE \
    -t $THREADS -r 1 -o json \
    >"$stem.json" 2>"$stem.err"
  local rc=$?
  load_stop
  if [ $rc -ne 0 ]; then
    printf '%s\t%s\tllama\t\t\t%s\n' "$r" "$k" "$(brief "$stem.err")" >>"$RESULTS"
    log "llama-bench failed on $k: $(brief "$stem.err")"
    status=1
    return
  fi
  # avg_ts of pp (n_prompt > 0) at depth 0 and of tg (n_gen > 0) at depth PROMPT
  local rates
  rates=$("$PY" -c '
import json, sys
pp = tg = ""
for t in json.load(open(sys.argv[1])):
    if t["n_prompt"] > 0 and t["n_gen"] == 0 and t["n_depth"] == 0: pp = t["avg_ts"]
    if t["n_gen"] > 0 and t["n_prompt"] == 0 and t["n_depth"] == int(sys.argv[2]): tg = t["avg_ts"]
print("%s\t%s" % (pp, tg))' "$stem.json" $PROMPT 2>>"$stem.err") || rates=$'\t'
  printf '%s\t%s\tllama\t%s\t\n' "$r" "$k" "$rates" >>"$RESULTS"
}

# llmc: --warmup runs the prompt's prefill once untimed (first touch of the mapped weights, libomp
# start-up), as llama-bench's warm-up run does; its rates line reports steady-state decode.
run_llmc() { # <round> <key>
  local r=$1 k=$2 stem="$WORK/logs/r$1-$2-llmc"
  if [ -n "${LLMC_ERR_OF[$k]:-}" ]; then
    printf '%s\t%s\tllmc\t\t\t%s\n' "$r" "$k" "${LLMC_ERR_OF[$k]}" >>"$RESULTS"
    return
  fi
  wait_for_builds
  load_start "$k"
  timeout $RUN_TIMEOUT "$LLMC_RUN" "${ART_OF[$k]}" --weights "${PATH_OF[$k]}" --threads $THREADS \
    --tokens "$TOKENS" -n $GEN --warmup --ignore-eos --print-tokens >"$stem.out" 2>"$stem.err"
  local rc=$?
  load_stop
  if [ $rc -ne 0 ]; then
    printf '%s\t%s\tllmc\t\t\t%s\n' "$r" "$k" "run: $(why "$stem.err" $rc)" >>"$RESULTS"
    log "llmc-run failed on $k: $(why "$stem.err" $rc)"
    return
  fi
  # "llmc-run: prefill: 812.3 tokens/s (...)" and "llmc-run: decode: 95.1 tokens/s (steady state ...)"
  local pp tg
  pp=$(sed -nE 's/^llmc-run: prefill: ([0-9.]+) tokens\/s.*/\1/p' "$stem.err" | tail -1)
  tg=$(sed -nE 's/^llmc-run: decode: ([0-9.]+) tokens\/s.*/\1/p' "$stem.err" | tail -1)
  if [ -z "$pp" ] || [ -z "$tg" ]; then # an older llmc-run: only the summary line
    pp=$(sed -nE 's/.*prefill [0-9]+ tokens in [0-9.]+ ms \(([0-9.]+) tokens\/s\).*/\1/p' "$stem.err" | tail -1)
    tg=$(sed -nE 's/.*decode [0-9]+ tokens in [0-9.]+ ms \(([0-9.]+) tokens\/s\).*/\1/p' "$stem.err" | tail -1)
  fi
  printf '%s\t%s\tllmc\t%s\t%s\t%s\n' "$r" "$k" "$pp" "$tg" "$([ -z "$pp$tg" ] && echo "no rates in llmc-run's output")" >>"$RESULTS"
}

wait_for_builds
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# Round 0 is the warm pass (page cache, first mmap of every file): run, never reported.
for r in $(seq 0 "$ROUNDS"); do
  if [ "$r" -gt 0 ]; then
    wait_for_builds
    # Bandwidth once per measured round, so that the bound comes from the same conditions.
    "$WORK/bin/stream" >"$WORK/logs/stream-r$r.txt" 2>&1 || die "bench/stream.c failed"
    printf '%s\t%s\n' "$r" "$(sed -n "s/^stream read threads=$THREADS GB\/s=//p" "$WORK/logs/stream-r$r.txt")" >>"$BWFILE"
    # The f32 FMA rate likewise: the ceiling of a prefill that multiplies in f32 (float weights).
    "$WORK/bin/fma_peak" >"$WORK/logs/fma_peak-r$r.txt" 2>&1 || die "bench/fma_peak.c failed"
    printf '%s\t%s\n' "$r" "$(sed -n "s/^fma threads=$THREADS GFLOP\/s=//p" "$WORK/logs/fma_peak-r$r.txt")" >>"$PEAKFILE"
  fi
  log "round $r of $ROUNDS$([ "$r" = 0 ] && echo " (warm pass, discarded)")"
  # The engines take turns going first: this host class switches between a fast and a slow memory phase
  # for seconds to minutes at a time, and a fixed order would hand one engine the phase changes.
  for k in "${KEYS[@]}"; do
    if [ $((r % 2)) = 1 ]; then
      run_llama "$r" "$k"
      run_llmc "$r" "$k"
    else
      run_llmc "$r" "$k"
      run_llama "$r" "$k"
    fi
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
[ "$(stat -c %Y "$LLMC" 2>/dev/null || echo 0)" = "$LLMC_STAMP" ] ||
  log "warning: $LLMC changed during the run (someone rebuilt it); llmc rows may mix builds"

# ---- 5. the table -------------------------------------------------------------------------------
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
READBW=$(awk -F'\t' '$1 > 0 && $2 != "" { print $2 }' "$BWFILE" | median)
FMAPEAK=$(awk -F'\t' '$1 > 0 && $2 != "" { print $2 }' "$PEAKFILE" 2>/dev/null | median)
FLAGS=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512.*|fma|f16c|amx.*|avx_vnni)$' | tr '\n' ' ' | sed 's/ $//')
LLAMA_COMMIT=$(sed -nE 's/.*"build_commit": "([^"]*)".*/\1/p' "$WORK"/logs/r1-*-llama.json 2>/dev/null | head -1)

# rows.tsv: one line per file with the medians (or the error) of each engine
ROWS="$WORK/logs/rows.tsv"
: >"$ROWS"
measured=0 # files with llmc numbers: without one the comparison measured nothing
T=$'\t'
for k in "${KEYS[@]}"; do
  line="${LABEL_OF[$k]}$T${FTYPE_OF[$k]}$T${BYTES_OF[$k]}$T${PERTOK_OF[$k]}$T${FLOPS_OF[$k]}"
  for e in llama llmc; do
    sel() { awk -F'\t' -v k="$k" -v e="$e" -v c="$1" '$1 > 0 && $2 == k && $3 == e && $c != "" { print $c }' "$RESULTS"; }
    pp=$(sel 4 | median)
    tg=$(sel 5 | median)
    err=$(sel 6 | tail -1)
    [ -n "$pp" ] && [ -n "$tg" ] && err="" # a round that failed among good ones shows as fewer samples
    [ -n "$pp" ] && [ -n "$tg" ] && [ $e = llmc ] && measured=$((measured + 1))
    line="$line$T$pp$T$tg$T$err"
  done
  # The ratios: each round's llmc ÷ llama.cpp (two runs seconds apart, in one phase of the host), then
  # the median over rounds; the engines' own medians can come from different phases.
  for c in 4 5; do
    line="$line$T$(awk -F'\t' -v k="$k" -v c="$c" '
      $1 > 0 && $2 == k && $c != "" { v[$1, $3] = $c; r[$1] = 1 }
      END { for (i in r) if (v[i, "llama"] + 0 > 0 && v[i, "llmc"] != "") print v[i, "llmc"] / v[i, "llama"] }' "$RESULTS" | median)"
  done
  printf '%s\n' "$line" >>"$ROWS"
done

echo
echo "llmc vs llama.cpp on GGUF files  ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); flags: ${FLAGS:-none of avx2/avx512}; both engines built for $([ "$ISA" = avx2 ] && echo "x86-64-v3 (AVX2, no AVX-512)" || echo "this CPU"))"
echo "threads: $THREADS (llama-bench -t $THREADS; llmc-run --threads $THREADS); prompt $PROMPT tokens, $GEN generated; medians of $ROUNDS round(s) after a discarded warm pass"
echo "llama.cpp: llama-bench from llama-cpp-python 0.3.36's vendored llama.cpp${LLAMA_COMMIT:+ (build $LLAMA_COMMIT)}, $LLAMA_BIN"
echo "llmc: $LLMC ($([ -n "$LLMC_MISSING" ] && echo "missing" || date -u -d "@$LLMC_STAMP" '+built %Y-%m-%d %H:%M UTC')); llmc compile --target=cpu --context=$CONTEXT --kv-type=$KV_TYPE${LLMC_FLAGS:+ $LLMC_FLAGS}; llmc-run --warmup --ignore-eos"
echo "read bandwidth (bench/stream.c, $THREADS threads, median over rounds of best-of-10): ${READBW:-?} GB/s"
echo "f32 FMA rate (bench/fma_peak.c, $THREADS threads, median over rounds of best-of-5): ${FMAPEAK:-?} GFLOP/s"
echo "load average before/after: $LOAD_BEFORE / $LOAD_AFTER$([ $WAITED -gt 0 ] && echo "; waited $WAITED s for other builds (ninja/cc1plus) or a busy CPU")$BUSY_NOTE"
echo
awk -F'\t' -v bw="${READBW:-0}" -v peak="${FMAPEAK:-0}" '
  function fmt(x) { return x == "" ? "-" : (x + 0 >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x)) }
  function ratio(x) { return x == "" ? "-" : sprintf("%.2fx", x) }
  function pct(a, b) { return (a == "" || b + 0 == 0) ? "-" : sprintf("%.0f%%", 100 * a / b) }
  BEGIN {
    f = "| %-30s | %-6s | %9s | %9s | %9s | %9s | %9s | %8s | %8s | %9s | %10s | %10s | %9s | %10s | %10s |\n"
    printf f, "file", "format", "weight MB", "llama pp", "llama tg", "llmc pp", "llmc tg", "pp ratio", "tg ratio", "tg bound", "llama % bd", "llmc % bd", "pp bound", "llama % pk", "llmc % pk"
    printf "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", "--------------------------------", "--------", "-----------",
      "-----------", "-----------", "-----------", "-----------", "----------", "----------", "-----------", "------------", "------------",
      "-----------", "------------", "------------"
  }
  { label = $1; ftype = $2; bytes = $3; pertok = $4; flops = $5; lpp = $6; ltg = $7; lerr = $8; mpp = $9; mtg = $10; merr = $11; ppr = $12; tgr = $13
    bound = (bw + 0 > 0 && pertok + 0 > 0) ? bw * 1e9 / pertok : ""
    # The f32 FMA ceiling of prefill: only where both engines multiply float weights in f32 (block
    # formats go through int8 dot products, whose rate fma_peak.c does not measure).
    float = (ftype == "F32" || ftype == "F16" || ftype == "BF16")
    ppbound = (float && peak + 0 > 0 && flops + 0 > 0) ? peak * 1e9 / flops : ""
    if (lerr != "") { lpp = ""; ltg = ""; ppr = ""; tgr = "" }
    if (merr != "") { mpp = ""; mtg = ""; ppr = ""; tgr = "" }
    printf f, label, ftype, sprintf("%.1f", bytes / 1e6), fmt(lpp), fmt(ltg), (merr != "" ? "failed" : fmt(mpp)), (merr != "" ? "failed" : fmt(mtg)),
      ratio(ppr), ratio(tgr), fmt(bound), pct(ltg, bound), pct(mtg, bound), fmt(ppbound), pct(lpp, ppbound), pct(mpp, ppbound)
    if (lerr != "") printf "|   llama.cpp error: %s\n", lerr
    if (merr != "") printf "|   llmc error: %s\n", merr
  }' "$ROWS"
echo
echo "pp / tg: prefill of $PROMPT tokens and decode of $GEN tokens after them, tokens/s (llama-bench pp$PROMPT and"
echo "  tg$GEN @ d$PROMPT; llmc-run decodes after its prompt, steady state: its first 2 decode steps left out); both"
echo "  engines keep the KV cache in $KV_TYPE (llama-bench -ctk/-ctv $KV_TYPE, llmc compile --kv-type=$KV_TYPE)."
echo "ratio: the median over rounds of each round's llmc / llama.cpp (the two runs of a round are seconds apart;"
echo "  the host's memory switches between phases for seconds to minutes), so not always the ratio of the medians."
echo "tg bound: read bandwidth / weight bytes one decoded token reads (every tensor as stored; an untied"
echo "  token_embd counts one row) = the most tokens/s memory allows; % bd: the engine's tg of it."
echo "pp bound (float formats only): f32 FMA rate / prefill FLOPs per token (2 x the elements of every matrix but"
echo "  token_embd and the LM head, which a prefill applies to its last token; attention's products left out) ="
echo "  the most tokens/s the multiply-adds allow; % pk: the engine's pp of it."
echo "tensor types per file (llama-quantize's mix; rows of 576 fit no 256-element K-quant super-block), and the"
echo "  weight dtypes of llmc's artifact (its manifest):"
# llmc_types <key>: the weight dtypes of llmc's artifact (its manifest's "dtype" per weight)
llmc_types() {
  local m
  m=$(ls "${ART_OF[$1]:-$ART_DIR/$1}"/*.json 2>/dev/null | head -1)
  [ -n "$m" ] || return 0
  # the weights' dtypes only (the manifest's kv_cache has a dtype too)
  "$PY" -c '
import collections, json, sys
counts = collections.Counter(w["dtype"] for w in json.load(open(sys.argv[1]))["weights"])
print(",".join("%s:%d" % kv for kv in counts.most_common()), end="")' "$m" 2>/dev/null
}
[ -z "$CONTENDED" ] || echo "+$THREADS busy: the row above it measured again beside $THREADS busy-looping processes (sh -c 'while :; do :; done'),
  started before and stopped after each engine's run: the cores shared with other work."
for k in "${KEYS[@]}"; do
  [ -n "${BUSY_OF[$k]:-}" ] && continue
  lt=$(llmc_types "$k")
  echo "  ${LABEL_OF[$k]} ${FTYPE_OF[$k]}: ${MIX_OF[$k]}${lt:+; llmc artifact: $lt}  (${PATH_OF[$k]})"
done
echo "total time $(($(date +%s) - START)) s (logs in $WORK/logs)"

[ $measured -gt 0 ] || { log "error: no row could be measured"; status=1; }
exit $status
