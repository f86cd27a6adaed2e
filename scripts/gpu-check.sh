#!/usr/bin/env bash
# The GPU check: runs a bundle of CUDA correctness checks and benchmarks (scripts/gpu-bundle.sh) on an NVIDIA GPU.
#
#   OUT=<folder> scripts/gpu-check.sh [bundle]   (default gpu-bundle.tar.xz, else gpu-bundle)
#
# Never builds: make the bundle on a machine with the build tools first
# (scripts/gpu-bundle.sh), carry its archive to the GPU machine with a
# checkout of the same commit, and run this from that checkout. An archive
# (<name>.tar.xz) is unpacked into a new folder under $TMPDIR first. It
# needs python3 with numpy there (the kernel checks' comparisons),
# coreutils' timeout, tar and xz.
#
# Every step runs under its own timeout (`timeout`), and the whole run under
# a budget (GPU_CHECK_BUDGET_S, default 480 s): a step that would start with
# less than 15 s left, or that the budget cuts short, is reported as SKIP or
# TIMEOUT, so the script ends inside a 10-minute device run even when
# something hangs. Writes two files under $OUT (default <bundle>/out):
# results.md (one row per step as it finishes, then the numbers) and
# gpu-check-logs.tar.gz (every step's log). The exit status is 0 when every
# step passed, 1 otherwise, 2 without a bundle. Environment: PYTHON (default
# python3), GPU_CHECK_BUDGET_S, GPU_CHECK_MIN_STEP_S (default 15),
# GPU_CHECK_WORK (the logs' folder; default a new one in $TMPDIR),
# LLMC_GPU_PEAK_GBS (the roofline's bandwidth, default the H200's 4800).
#
# Steps, most important first (timeout in seconds):
#   bundle-scripts 10, bundle-libs 10, gpu 20: the bundle matches the
#     checkout's check scripts and its programs find their libraries; the GPU.
#   Kernel checks against float64 references, each a launch manifest run by
#   bin/kernel-manifest-runner, then compared (test/Target/CUDA/*-gpu.test):
#     projection-run 90, projection-compare 120: the GEMVs and GEMMs, tails,
#       biases, tied logits;
#     block-run 60, block-compare 60: the same kernels, the embedding and the
#       fused GEMVs on every GGUF block format;
#     attention 150: prefill and decode attention (+ LLaMA-3-8B-shaped timings);
#     small-run 60, small-compare 90: norms, embedding, RoPE, sampling;
#     fused-run 60, fused-compare 60; paged-kv-run 60, paged-kv-compare 60.
#   LLaMA-3-8B shapes:
#     llama3-8l-cpu 240: the 8-layer model's logits on the CPU (bf16 random
#       weights, a 12-token prompt; the reference);
#     llama3-8l-prefill 90, llama3-8l-decode 90: the same on the GPU, one
#       prefill and token by token (decode kernels, CUDA graph replays):
#       finite, within 4% of the logit scale of the CPU's; llama3-8l-unfused
#       90 (--no-fusion, a prefill), llama3-8l-paged 90 (--paged-kv-cache,
#       token by token): the same for the other benchmark artifacts;
#     llama3-8l-q4_0-cpu 120, llama3-8l-q4_0-prefill 90,
#       llama3-8l-q4_0-decode 90: the same with weights quantized to Q4_0 at
#       load (the block kernels in a whole model), the CPU with x exact;
#     llama3-8b-finite 120: the 32-layer benchmark model's prefill logits are
#       finite.
#   stories260K (the real model; each 60): greedy200 from the GGUF and the
#     .bin, without graphs, paged, the text; device sampling = host sampling;
#     kv-quant-int8, kv-quant-fp8: greedy200's teacher-forced logits with a
#     quantized KV cache (--kv-type), one prefill and token by token, vs the
#     CPU artifact with the same cache.
#   random-variants 240: every architecture variant's logits vs the CPU's.
#   Benchmarks: cublas 120 (cuBLAS and copy bandwidth), llama3-8b-bench 180,
#     llama3-8b-unfused 150, llama3-8b-paged 150, llama3-8b-q8_0 150,
#     llama3-8b-q4_0 150 (decode and prefill tokens/s; the last two with
#     weights quantized at load), llama3-8b-profile 150 (per-kernel times).
#
# Without a GPU: test/runtime/cuda-gpu-check.test runs the script on a small
# bundle with test/runtime/Inputs/fake_libcuda.c; a whole bundle dry-runs
# with LLMC_CUDA_DRIVER=<fake libcuda.so.1>, LD_LIBRARY_PATH=<its folder> and
# FAKE_CUDA_NOOP_IMAGES=1 (real kernels load and do nothing: the GPU steps
# fail, every command runs).
# Steps call functions through `step` (exported to its child bash).
# shellcheck disable=SC2317,SC2016
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
BUNDLE=${1:-}
if [ -z "$BUNDLE" ]; then
  BUNDLE=gpu-bundle
  [ -f gpu-bundle.tar.xz ] && BUNDLE=gpu-bundle.tar.xz
fi
if [[ "$BUNDLE" == *.tar.xz && -f "$BUNDLE" ]]; then
  UNPACKED=$(mktemp -d "${TMPDIR:-/tmp}/gpu-bundle.XXXXXX") &&
    tar -xJf "$BUNDLE" -C "$UNPACKED" || { echo "gpu-check: cannot unpack $BUNDLE" >&2; exit 2; }
  BUNDLE=$(find "$UNPACKED" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [ -n "$BUNDLE" ] || BUNDLE=$UNPACKED
fi
OUT=${OUT:-$BUNDLE/out}
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
RESULTS="$OUT/results.md"

if [ ! -f "$BUNDLE/BUNDLE.txt" ]; then
  {
    echo "# llmc GPU check"
    echo
    echo "gpu-check: no bundle at '$BUNDLE' (no BUNDLE.txt): make it on a machine with the"
    echo "build tools (scripts/gpu-bundle.sh $BUNDLE), carry it here with the checkout, and run"
    echo "this again. gpu-check.sh never builds."
  } | tee "$RESULTS"
  exit 2
fi
BUNDLE=$(cd "$BUNDLE" && pwd)
# Logs and scratch outside $OUT: only results.md and the tarball come back.
WORK=${GPU_CHECK_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")}
LOGS="$WORK/logs"
mkdir -p "$LOGS"
BUDGET=${GPU_CHECK_BUDGET_S:-480}
# A step needs at least this long to be worth starting.
MIN_STEP_S=${GPU_CHECK_MIN_STEP_S:-15}
START=$(date +%s)
DEADLINE=$(( START + BUDGET ))
NUMBERS="$WORK/numbers.md"
FAILED=0
: > "$NUMBERS"

export BUNDLE REPO WORK LOGS
export PY=${PYTHON:-python3}
export RUN="$BUNDLE/bin/llmc-run"
# The CPU reference artifact needs the bundle's libomp.
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1

{
  echo "# llmc GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo
  sed 's/^/    /' "$BUNDLE/BUNDLE.txt"
  echo
  echo "Budget ${BUDGET} s. Logs: gpu-check-logs.tar.gz (one <step>.log each)."
  echo
  echo "| step | result | seconds | timeout | note |"
  echo "|---|---|---|---|---|"
} > "$RESULTS"

row() { # row <step> <result> <seconds> <timeout> <note>
  echo "| $1 | $2 | $3 | $4 | $5 |" >> "$RESULTS"
  echo "gpu-check: $2 $1 ($3 s of $4)${5:+: $5}"
}
number() { # number <markdown line>: kept for the end of results.md
  echo "$*" >> "$NUMBERS"
}
summary() { # summary <step> <label> <ERE>: the step log's last matching line, for the numbers
  local line
  line=$(grep -hE "$3" "$LOGS/$1.log" 2>/dev/null | tail -n 1)
  number "${2:+$2: }${line:-$1: no result (see $1.log)}"
}
finish() { # the numbers, the tarball; runs once, also on a signal
  trap - EXIT INT TERM
  {
    echo
    cat "$NUMBERS"
    echo
    echo "Warnings in the logs (CUDA graph capture fallbacks and others):"
    grep -h "warning:" "$LOGS"/*.log 2>/dev/null | sort | uniq -c | sed 's/^/    /' || true
    echo
    echo "Total: $(( $(date +%s) - START )) s."
    [ "$FAILED" = 0 ] && echo "gpu-check: every step passed" || echo "gpu-check: some steps FAILED, timed out or were skipped"
  } >> "$RESULTS"
  tar -czf "$OUT/gpu-check-logs.tar.gz" -C "$WORK" logs
  echo "gpu-check: $RESULTS, $OUT/gpu-check-logs.tar.gz ($(du -k "$OUT/gpu-check-logs.tar.gz" | cut -f1) KiB)"
}
trap 'finish; exit 1' INT TERM
trap finish EXIT

# have <path> <step>...: whether the bundle has <path>; if not, a SKIP row
# for each step that needs it.
have() {
  local path=$1
  shift
  [ -e "$path" ] && return 0
  for name in "$@"; do
    row "$name" SKIP 0 - "not in the bundle"
  done
  FAILED=1
  return 1
}

# step <name> <timeout s> <command or function...>: runs it under `timeout`
# (cut to the budget left), output in $LOGS/<name>.log, one row in results.md.
# Returns the command's status (124: timed out; 125: skipped).
step() {
  local name=$1 limit=$2 left start status result last note=""
  shift 2
  left=$(( DEADLINE - $(date +%s) ))
  if [ "$left" -lt "$MIN_STEP_S" ]; then
    row "$name" SKIP 0 "$limit" "the time budget is spent"
    FAILED=1
    return 125
  fi
  [ "$limit" -gt "$left" ] && { limit=$left; note="cut to the budget left"; }
  start=$(date +%s)
  # bash -c: a step may be a function (exported with export -f).
  timeout -k 10 "$limit" bash -c '"$@"' "$name" "$@" > "$LOGS/$name.log" 2>&1 < /dev/null
  status=$?
  case $status in
    0) result=PASS ;;
    124|137) result=TIMEOUT; FAILED=1 ;;
    *) result="FAIL (exit $status)"; FAILED=1 ;;
  esac
  if [ "$status" != 0 ]; then # the log's last line says why
    last=$(grep -v '^\s*$' "$LOGS/$name.log" | tail -n 1 | cut -c1-160 | tr '|' '/')
    [ -n "$last" ] && note="${note:+$note; }$last"
  fi
  row "$name" "$result" $(( $(date +%s) - start )) "$limit" "$note"
  return "$status"
}
# ---- the bundle and the GPU ----------------------------------------------
step bundle-scripts 10 sha256sum --quiet -c "$BUNDLE/scripts.sha256"
libs() { # every bundled program finds its libraries
  local missing
  missing=$(for f in "$BUNDLE"/bin/* "$BUNDLE"/art/*/lib*.so "$BUNDLE"/random/*/*/lib*.so; do
              ldd "$f" 2>&1 | grep "not found" | sed "s|^|$f: |"
            done)
  echo "${missing:-every program and artifact library finds its libraries}"
  [ -z "$missing" ]
}
export -f libs
step bundle-libs 10 libs
step gpu 20 nvidia-smi --query-gpu=name,compute_cap,memory.total,clocks.max.memory,driver_version --format=csv
number "GPU: $(tail -n +2 "$LOGS/gpu.log" 2>/dev/null | head -n 1)"

# ---- kernel checks --------------------------------------------------------
K="$BUNDLE/kernels"
# kernel_check <name> <script> <run s> <compare s>: the manifest on the GPU,
# then the comparison, whose summary goes into results.md.
kernel_check() {
  local name=$1 script=$2 dir="$K/$1"
  have "$dir" "$name-run" "$name-compare" || return
  rm -rf "$dir/out"
  if step "$name-run" "$3" "$BUNDLE/bin/kernel-manifest-runner" "$dir"; then
    step "$name-compare" "$4" "$PY" "$REPO/$script" compare "$dir"
    summary "$name-compare" "$name kernels" '^[0-9]+ failing'
  fi
}
kernel_check projection test/Target/CUDA/Inputs/projection_gpu.py 90 120
kernel_check block test/Target/CUDA/Inputs/block_projection_gpu.py 60 60
attention() { # every run against float64; the bench runs' timings
  local ptx=()
  for arch in sm_90 sm_80; do
    [ -f "$K/attention/cases_$arch.ptx" ] && ptx+=("$K/attention/cases_$arch.ptx")
  done
  "$BUNDLE/bin/attention-gpu-check" "${ptx[@]}" | tee "$WORK/attention.txt" &&
    grep -q "^0 failing runs" "$WORK/attention.txt"
}
export -f attention
export K
if have "$BUNDLE/bin/attention-gpu-check" attention; then
  step attention 150 attention
  summary attention "attention kernels" '^[0-9]+ failing runs'
fi
kernel_check small test/Target/CUDA/Inputs/small_kernels_gpu.py 60 90
kernel_check fused test/Target/CUDA/Inputs/fused_kernels_check.py 60 60
kernel_check paged-kv test/Target/CUDA/Inputs/paged_kv_check.py 60 60

# ---- LLaMA-3-8B shapes ----------------------------------------------------
# 12 ids of the 128256-token vocabulary, BOS first.
export PROMPT12="128000 791 6864 315 9822 374 12366 13 578 4062 14198 39935"
export VOCAB_LLAMA3=128256
COMPARE="$REPO/test/Integration/GPU/Inputs/compare_logits.py"
export COMPARE
# The bound of random-configs-cuda.test's bf16 comparisons (run_random_configs.py
# BF16_MAX_SCALED): rounding to bf16 in the tensor-core GEMMs and another
# summation order stay far below it, a wrong kernel moves logits by about
# the logit scale. Argmax agreement is printed, not required: 128256 random
# logits have near ties.
export LLAMA3_MAX_SCALED=0.04
dump_logits() { # dump_logits <artifact> <out.f32> [llmc-run flags]: 12-token teacher-forced logits
  local artifact=$1 out=$2
  shift 2
  "$RUN" "$BUNDLE/art/$artifact" --random-weights=1 --tokens "$PROMPT12" --dump-logits "$out" "$@"
}
versus_cpu() { # versus_cpu <label> <artifact> <reference> [llmc-run flags]: an 8-layer model on the GPU
  # vs the CPU's logits (those the step <reference> dumped)
  local label=$1 artifact=$2 reference=$3
  shift 3
  dump_logits "$artifact" "$WORK/$label.f32" --device cuda "$@" &&
    "$PY" "$COMPARE" "$label" "$WORK/$label.f32" "$WORK/$reference.f32" "$VOCAB_LLAMA3" \
      --max-scaled "$LLAMA3_MAX_SCALED"
}
finite() { # finite <label> <artifact> [llmc-run flags]: every logit finite
  local label=$1 artifact=$2
  shift 2
  dump_logits "$artifact" "$WORK/$label.f32" --device cuda "$@" &&
    "$PY" "$COMPARE" "$label" "$WORK/$label.f32" - "$VOCAB_LLAMA3"
}
export -f dump_logits versus_cpu finite
# The benchmark artifacts' 8-layer twins against the CPU: the fused one
# through a prefill and token by token (the decode kernels and the CUDA
# graph's replays), the unfused one through a prefill, the paged one token by
# token (the page-table appends and decode attention).
LLAMA3_8L=(llama3-8l-prefill llama3-8l-decode llama3-8l-unfused llama3-8l-paged)
if have "$BUNDLE/art/llama3-8l-cpu" llama3-8l-cpu "${LLAMA3_8L[@]}" &&
   step llama3-8l-cpu 240 dump_logits llama3-8l-cpu "$WORK/llama3-8l-cpu.f32"; then
  step llama3-8l-prefill 90 versus_cpu llama3-8l-prefill llama3-8l llama3-8l-cpu
  step llama3-8l-decode 90 versus_cpu llama3-8l-decode llama3-8l llama3-8l-cpu --incremental
  have "$BUNDLE/art/llama3-8l-unfused" llama3-8l-unfused &&
    step llama3-8l-unfused 90 versus_cpu llama3-8l-unfused llama3-8l-unfused llama3-8l-cpu
  have "$BUNDLE/art/llama3-8l-paged" llama3-8l-paged &&
    step llama3-8l-paged 90 versus_cpu llama3-8l-paged llama3-8l-paged llama3-8l-cpu --incremental
  for label in "${LLAMA3_8L[@]}"; do
    summary "$label" "" "^$label: rows"
  done
fi
# Weights quantized to Q4_0 at load: the GPU's block kernels in the whole
# model (GEMVs on f32 x, tensor-core GEMMs on f16-rounded x and weights)
# against the CPU decoding the same blocks with x exact (--block-dot=f32).
LLAMA3_8L_Q4_0=(llama3-8l-q4_0-prefill llama3-8l-q4_0-decode)
if have "$BUNDLE/art/llama3-8l-q4_0-cpu" llama3-8l-q4_0-cpu "${LLAMA3_8L_Q4_0[@]}" &&
   have "$BUNDLE/art/llama3-8l-q4_0" "${LLAMA3_8L_Q4_0[@]}" &&
   step llama3-8l-q4_0-cpu 120 dump_logits llama3-8l-q4_0-cpu "$WORK/llama3-8l-q4_0-cpu.f32"; then
  step llama3-8l-q4_0-prefill 90 versus_cpu llama3-8l-q4_0-prefill llama3-8l-q4_0 llama3-8l-q4_0-cpu
  step llama3-8l-q4_0-decode 90 versus_cpu llama3-8l-q4_0-decode llama3-8l-q4_0 llama3-8l-q4_0-cpu --incremental
  for label in "${LLAMA3_8L_Q4_0[@]}"; do
    summary "$label" "" "^$label: rows"
  done
fi
if have "$BUNDLE/art/llama3-8b" llama3-8b-finite; then
  step llama3-8b-finite 120 finite llama3-8b-finite llama3-8b
  summary llama3-8b-finite "" "^llama3-8b-finite: rows"
fi

# ---- stories260K ----------------------------------------------------------
export M="$BUNDLE/models/stories260K"
export A="$BUNDLE/art/stories260k"
greedy() { # greedy <artifact> <weights> [flags]: ids equal greedy200.tokens
  local artifact=$1 weights=$2
  shift 2
  "$RUN" "$artifact" --device cuda --weights "$weights" "$@" --tokens 1 -n 199 --print-tokens > "$WORK/ids.$$" &&
    diff "$M/greedy200.tokens" "$WORK/ids.$$"
}
text() { # the text, as far as greedy200.txt goes
  "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 199 > "$WORK/story.txt" &&
    "$PY" "$REPO/test/runtime/Inputs/is_prefix.py" "$WORK/story.txt" "$M/greedy200.txt" | tee /dev/stderr | grep -q "^prefix of"
}
device_argmax() { # greedy200 drawn by llmc_argmax_v512: 1 + 198 launches
  "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 199 \
    --print-tokens --profile > "$WORK/argmax.ids" 2> "$WORK/argmax.profile" &&
    diff "$M/greedy200.tokens" "$WORK/argmax.ids" &&
    grep -E '^llmc-profile: +llmc_argmax_v512 +199 ' "$WORK/argmax.profile"
}
sampled() { # sampled <name> <llmc-run flags>: device stream = host stream
  local name=$1
  shift
  "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 199 \
    --ignore-eos --print-tokens "$@" > "$WORK/$name.device.ids" &&
    "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 199 \
      --ignore-eos --print-tokens "$@" --host-sampling > "$WORK/$name.host.ids" &&
    diff "$WORK/$name.host.ids" "$WORK/$name.device.ids"
}
on_host() { # an approximate configuration: no sampling kernel
  "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 50 \
    --ignore-eos --print-tokens --profile "$@" > /dev/null 2> "$WORK/on-host.profile" &&
    grep -q '^llmc-profile: decode:' "$WORK/on-host.profile" &&
    ! grep '^llmc-profile: sample:' "$WORK/on-host.profile"
}
# A quantized KV cache: the GPU's logits of greedy200 (teacher-forced), in one
# prefill and token by token, against the CPU artifact with the same cache.
# Token by token both engines run the same GEMVs' arithmetic up to summation
# order: bound 1e-2 (measured on an H200, 2026-12-04: 1.1e-5 for both
# formats; the f32 bound is 1e-3). A prefill computes K and V with a GEMM,
# another summation order, and a value that lands within an ulp of a rounding
# boundary takes the neighbouring code: the CPU's own prefill and token-by-
# token logits differ by 0.081 (int8, from row 11 on) and
# 0.0018 (fp8) while the GPU's two agree to 1.5e-5. Bound 0.25 for the
# prefill: above a few such codes, below what a cache read without its codes
# moves (the quantization itself moves logits by 1.08 (int8) and 2.08 (fp8)
# from an f32 cache); every argmax must agree.
export KV_QUANT_MAX_ABS=1e-2 KV_QUANT_PREFILL_MAX_ABS=0.25
kv_quant() { # kv_quant <int8|fp8>
  local kind=$1 mode bound
  for mode in "" --incremental; do
    bound=$KV_QUANT_PREFILL_MAX_ABS
    [ -n "$mode" ] && bound=$KV_QUANT_MAX_ABS
    "$RUN" "$A-kv-$kind" --device cuda --weights "$M/stories260K.gguf" \
      --tokens-file "$M/greedy200.tokens" --dump-logits "$WORK/kv-$kind-gpu.f32" $mode &&
      "$RUN" "$A-kv-$kind-cpu" --device cpu --weights "$M/stories260K.gguf" \
        --tokens-file "$M/greedy200.tokens" --dump-logits "$WORK/kv-$kind-cpu.f32" $mode &&
      "$PY" "$COMPARE" "kv-quant-$kind${mode:+ (token by token)}" "$WORK/kv-$kind-gpu.f32" \
        "$WORK/kv-$kind-cpu.f32" 512 --max-abs "$bound" --min-agree 1 || return 1
  done
}
export -f greedy text device_argmax sampled on_host kv_quant
if have "$M/stories260K.gguf" stories260k && have "$A" stories260k; then
  step stories260k-gguf 60 greedy "$A" "$M/stories260K.gguf"
  step stories260k-bin 60 greedy "$A" "$M/stories260K.bin" --tokenizer "$M/tok512.bin"
  step stories260k-no-graphs 60 env LLMC_CUDA_GRAPHS=0 bash -c 'greedy "$A" "$M/stories260K.gguf"'
  have "$A-paged" stories260k-paged && step stories260k-paged 60 greedy "$A-paged" "$M/stories260K.gguf"
  step stories260k-text 60 text
  for kv in int8 fp8; do
    have "$A-kv-$kv" kv-quant-$kv && have "$A-kv-$kv-cpu" kv-quant-$kv &&
      { step kv-quant-$kv 60 kv_quant $kv
        summary kv-quant-$kv "" "^kv-quant-$kv: rows"
        summary kv-quant-$kv "" "^kv-quant-$kv \(token by token\): rows"; }
  done
  step sampling-device-argmax 60 device_argmax
  step sampling-top-k-top-p 60 sampled topk --temp 0.8 --top-k 40 --top-p 0.9 --seed 42
  step sampling-top-k-top-p-no-graphs 60 env LLMC_CUDA_GRAPHS=0 bash -c 'sampled topk-nographs --temp 0.8 --top-k 40 --top-p 0.9 --seed 42'
  step sampling-temperature 60 sampled temp --temp 1 --seed 7
  step sampling-top-p-on-host 60 on_host --temp 1 --top-p 0.9 --seed 7
  # Greedy decode rates (steady state): 4 bytes back per token vs the row.
  step stories260k-rates 60 sampled rates --temp 0
  rate() {
    local r
    r=$(sed -nE 's/^llmc-run: decode: ([0-9.]+) tokens\/s.*/\1/p' "$LOGS/stories260k-rates.log" | sed -n "$1p")
    echo "${r:-n/a}"
  }
  number "stories260K decode (greedy, steady state): device sampling $(rate 1) tokens/s, host sampling $(rate 2) tokens/s"
fi

# ---- random-weight variants against the CPU's logits ---------------------
random_variants() {
  # shellcheck disable=SC2046 # the variants are words
  PATH="$BUNDLE/bin:$PATH" "$PY" "$REPO/test/Integration/GPU/Inputs/run_random_configs.py" \
    "$BUNDLE/random" unused "$BUNDLE/bin/step_logits" $(cat "$BUNDLE/random/variants") \
    --f32 gqa,long-prefill --stage check
}
export -f random_variants
if have "$BUNDLE/random" random-variants; then
  step random-variants 240 random_variants
  summary random-variants "random variants" "^bf16 pooled: argmax"
  summary random-variants "random variants" "^(all variants passed|FAILED)"
fi

# ---- benchmarks -----------------------------------------------------------
COPY_GBS=""
if have "$BUNDLE/bin/cublas-baseline" cublas; then
  step cublas 120 "$BUNDLE/bin/cublas-baseline"
  number ""
  number "## cuBLAS baseline and device bandwidth"
  number "$(grep '^|' "$LOGS/cublas.log")"
  # The copy row's GB/s column (bytes read + written per second).
  COPY_GBS=$(awk -F'|' '/^\| device copy/ {gsub(/ /, "", $5); print $5; exit}' "$LOGS/cublas.log")
fi

PROMPT512=$(seq -s ' ' 1 512)
export PROMPT512
bench() { # bench <artifact> <tokens>: one benchmark run; its rates (stderr) must be there
  "$RUN" "$BUNDLE/art/$1" --device cuda --random-weights=1 --tokens "$PROMPT512" -n "$2" \
    --warmup 2>&1 > /dev/null | tee "$WORK/$1.bench" &&
    grep -Eq "^llmc-run: decode: [0-9.]+ tokens/s" "$WORK/$1.bench"
}
export -f bench
rate_of() { # rate_of <step> <prefill|decode>
  sed -nE "s/^llmc-run: $2: ([0-9.]+) tokens\\/s.*/\\1/p" "$LOGS/$1.log" | head -n 1
}
B="$BUNDLE/art/llama3-8b"
DECODE="" PREFILL="" UNFUSED="" PAGED="" QUANT=""
if have "$B" llama3-8b-bench llama3-8b-unfused llama3-8b-paged; then
  step llama3-8b-bench 180 bench llama3-8b 256
  DECODE=$(rate_of llama3-8b-bench decode)
  PREFILL=$(rate_of llama3-8b-bench prefill)
  if have "$B-unfused" llama3-8b-unfused; then
    step llama3-8b-unfused 150 bench llama3-8b-unfused 128
    UNFUSED=$(rate_of llama3-8b-unfused decode)
  fi
  if have "$B-paged" llama3-8b-paged; then
    step llama3-8b-paged 150 bench llama3-8b-paged 128
    PAGED=$(rate_of llama3-8b-paged decode)
  fi
  # Weights quantized at load: the block kernels' decode and prefill rates.
  for format in q8_0 q4_0; do
    if have "$B-$format" "llama3-8b-$format"; then
      step "llama3-8b-$format" 150 bench "llama3-8b-$format" 128
      QUANT+="$format:$(rate_of "llama3-8b-$format" decode):$(rate_of "llama3-8b-$format" prefill) "
    fi
  done
fi
# Weight bytes read per decoded token: every matmul weight once (bf16).
MATMUL=$(sed -nE 's/^flops_per_token.matmul_params: ([0-9]+).*/\1/p' "$BUNDLE/info/llama3-8b.txt" 2>/dev/null)
PEAK_GBS=${LLMC_GPU_PEAK_GBS:-4800} # H200 HBM3e: 4.8 TB/s
if [ -n "$DECODE" ] && [ -n "$MATMUL" ]; then
  "$PY" - "$DECODE" "$PREFILL" "$MATMUL" "$PEAK_GBS" "${COPY_GBS:-0}" "$UNFUSED" "$PAGED" "$QUANT" >> "$NUMBERS" <<'PYEOF'
import sys
decode, prefill, matmul, peak, copy, unfused, paged, quant = sys.argv[1:9]
decode, matmul, peak, copy = float(decode), int(matmul), float(peak), float(copy or 0)
bytes_per_token = 2 * matmul
roof = peak * 1e9 / bytes_per_token
print("\n## LLaMA-3-8B shapes, batch 1, random weights (bf16 where a row names no other format)\n")
print("| figure | ours | roofline (peak %.0f GB/s) | ratio | at measured copy bandwidth |" % peak)
print("|---|---|---|---|---|")
copy_col = ("%.1f tok/s (%.0f%%)" % (copy * 1e9 / bytes_per_token, 100 * decode / (copy * 1e9 / bytes_per_token))) if copy else "n/a"
print("| decode tokens/s | %.1f | %.1f | %.0f%% | %s |" % (decode, roof, 100 * decode / roof, copy_col))
print("| decode weight bandwidth | %.0f GB/s | %.0f GB/s | %.0f%% | |" % (decode * bytes_per_token / 1e9, peak, 100 * decode * bytes_per_token / 1e9 / peak))
print("| prefill tokens/s (512) | %s | | | |" % (prefill or "n/a"))
if unfused:
    print("| decode tokens/s without fusion (--no-fusion) | %s | | fused/unfused %.2f | |"
          % (unfused, decode / float(unfused)))
if paged:
    print("| decode tokens/s, paged KV cache (--paged-kv-cache) | %s | | paged/contiguous %.2f | |"
          % (paged, float(paged) / decode))
# Weights quantized at load (--weight-type): every matrix in blocks of 32
# (bytes per block), the norms f32 (negligible).
BLOCK_BYTES = {"q8_0": 34, "q4_0": 18, "q4_1": 20, "q5_0": 22, "q5_1": 24}
for entry in quant.split():
    fmt, rate, pre = entry.split(":")
    if not rate:
        print("| decode tokens/s, %s weights | n/a | | | |" % fmt.upper())
        continue
    per_token = BLOCK_BYTES[fmt] / 32 * matmul
    roof_q = peak * 1e9 / per_token
    copy_q = ("%.1f tok/s (%.0f%%)" % (copy * 1e9 / per_token, 100 * float(rate) / (copy * 1e9 / per_token))) if copy else "n/a"
    print("| decode tokens/s, %s weights (%.2f GB per token) | %s | %.1f | %.0f%% | %s |"
          % (fmt.upper(), per_token / 1e9, rate, roof_q, 100 * float(rate) / roof_q, copy_q))
    print("| prefill tokens/s (512), %s weights | %s | | | |" % (fmt.upper(), pre or "n/a"))
PYEOF
fi

# The same model profiled (no graphs): per-kernel times -> GB/s and TFLOP/s.
profile() {
  "$RUN" "$BUNDLE/art/llama3-8b" --device cuda --random-weights=1 --tokens "$PROMPT512" -n 32 \
    --warmup --profile 2>&1 > /dev/null | tee "$WORK/profile.txt" &&
    grep -q "^llmc-profile:" "$WORK/profile.txt"
}
export -f profile
if have "$B" llama3-8b-profile && step llama3-8b-profile 150 profile; then
  "$PY" - "$LOGS/llama3-8b-profile.log" "$PEAK_GBS" >> "$NUMBERS" <<'PYEOF'
import re, sys
path, peak = sys.argv[1], float(sys.argv[2])
phase, rows = None, []
for line in open(path):
    m = re.match(r"llmc-profile: (prefill|decode|sample): (\d+) calls", line)
    if m:
        phase = m.group(1)
        continue
    m = re.match(r"llmc-profile:\s+(\S+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)$", line)
    if m and phase and m.group(1) != "kernel":
        rows.append((phase, m.group(1), int(m.group(2)), float(m.group(3)), float(m.group(4)), float(m.group(5))))
def shape(name):
    # (weight rows, K, bytes per weight): gemv_n<N>[_<N>...]_k<K>_<type> (a
    # multi-output GEMV reads all its weights), gemv_glu_* reads a gate and
    # an up weight of N rows each.
    n = re.search(r"_n([\d_]+?)_k(\d+)_(bf16|f16|f32)", name)
    if not n:
        return None
    count = sum(int(r) for r in n.group(1).split("_"))
    if name.startswith("gemv_glu"):
        count *= 2
    return (count, int(n.group(2)), {"bf16": 2, "f16": 2, "f32": 4}[n.group(3)])
print("\n## Per-kernel times (profiled run, no graphs; prefill = 512 tokens)\n")
print("| phase | kernel | calls | mean µs | % of phase | figure | vs peak |")
print("|---|---|---|---|---|---|---|")
for phase, name, calls, total, mean, pct in rows:
    fig, ratio = "", ""
    s = shape(name)
    if s and name.startswith("gemv"):
        gbs = s[0] * s[1] * s[2] / (mean * 1e-6) / 1e9
        fig, ratio = "%.0f GB/s" % gbs, "%.0f%% of %.0f GB/s" % (100 * gbs / peak, peak)
    elif s and name.startswith("gemm"):
        fig = "%.1f TFLOP/s" % (2 * 512 * s[0] * s[1] / (mean * 1e-6) / 1e12)
    elif name.startswith("attention_prefill"):
        d = re.search(r"_d(\d+)_h(\d+)_", name)
        if d:  # causal: half of T x T scores, QK and PV
            flops = 4 * 512 * 512 / 2 * int(d.group(1)) * int(d.group(2))
            fig = "%.2f TFLOP/s" % (flops / (mean * 1e-6) / 1e12)
    if pct >= 0.5:
        print("| %s | %s | %d | %.1f | %.1f | %s | %s |" % (phase, name, calls, mean, pct, fig, ratio))
PYEOF
fi
if [ -f "$LOGS/attention.log" ] && grep -q "bench" "$LOGS/attention.log"; then
  number ""
  number "## Attention kernel timings (attention-gpu-check bench runs)"
  number ""
  number "$(grep -E "^(==|bench)" "$LOGS/attention.log" | sed 's/^/    /')"
fi

exit "$FAILED"
