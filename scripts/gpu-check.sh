#!/usr/bin/env bash
# The GPU check: runs the CUDA backend's correctness tests and benchmarks on
# a machine with an NVIDIA GPU, from a bundle made by scripts/gpu-bundle.sh
# (made here first when this machine has the build tools). Writes every log
# and results.md (the numbers, one table) under $OUT (default
# <bundle>/out). Meant to finish in under 6 minutes on an H200.
#
#   scripts/gpu-check.sh [bundle]      (default gpu-bundle)
#
# Checks (each prints PASS/FAIL and continues; the exit status is 1 if any
# failed):
#   1. stories260K greedy from BOS = greedy200.tokens, from the GGUF and the
#      llama2.c .bin, with and without CUDA graphs, and the text (tokens
#      drawn on the GPU by the artifact's argmax kernel: the profiled run
#      must show its 199 launches);
#      device sampling: seeded top-k/top-p and temperature-only streams equal
#      the same runs with --host-sampling (logits copied back, drawn by the
#      host sampler), with and without graphs; an approximate configuration
#      launches no sampling kernel; stories260K decode rates with device and
#      host sampling;
#   2. random-weight variants: CUDA logits vs the CPU's (bf16 and f32
#      bounds of test/Integration/GPU/Inputs/run_random_configs.py); the
#      fused ops' kernels against float64 references (fused_kernels_check.py)
#      and the paged KV-cache kernels (paged_kv_check.py);
# Benchmarks:
#   3. cuBLAS GEMV/GEMM and device copy bandwidth (bench/gpu/cublas_baseline);
#   4. LLaMA-3-8B-shaped decode (bf16, random weights, batch 1): steady-state
#      tokens/s vs the bandwidth roofline (weight bytes per token / peak and
#      / measured copy bandwidth), the same built with --no-fusion (what the
#      fused phase gains), prefill tokens/s, and the per-kernel
#      profile (GEMV GB/s, GEMM TFLOP/s, attention) from a second, profiled
#      run.
set -uo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${1:-gpu-bundle}
if [ ! -d "$BUNDLE" ]; then
  echo "gpu-check: no bundle at $BUNDLE; making one (needs the build tools)"
  scripts/gpu-bundle.sh "$BUNDLE" || { echo "gpu-check: cannot make the bundle"; exit 2; }
fi
BUNDLE=$(cd "$BUNDLE" && pwd)
OUT=${OUT:-$BUNDLE/out}
mkdir -p "$OUT"
RUN="$BUNDLE/bin/llmc-run"
PY=${PYTHON:-python3}
RESULTS="$OUT/results.md"
FAILED=0
: > "$RESULTS"

note() { echo "$*" | tee -a "$RESULTS"; }
check() { # check <name> <command...>: PASS/FAIL line, log in $OUT/<name>.log
  local name=$1; shift
  if "$@" > "$OUT/$name.log" 2>&1; then note "PASS $name"; else note "FAIL $name (see $name.log)"; FAILED=1; fi
}

note "# llmc GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,compute_cap,memory.total,clocks.max.memory,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
note "GPU: $(tail -n +2 "$OUT/gpu.txt" | head -1)"
note ""

# 1. stories260K.
M="$BUNDLE/models/stories260K"
A="$BUNDLE/art/stories260k"
if [ -f "$M/stories260K.gguf" ]; then
  greedy() { # greedy <weights> [extra llmc-run args]: ids equal greedy200.tokens
    local weights=$1; shift
    "$RUN" "$A" --device cuda --weights "$weights" "$@" --tokens 1 -n 199 --print-tokens > "$OUT/ids.tmp" &&
      diff -q "$M/greedy200.tokens" "$OUT/ids.tmp"
  }
  check stories260k-gguf greedy "$M/stories260K.gguf"
  check stories260k-bin greedy "$M/stories260K.bin" --tokenizer "$M/tok512.bin"
  check stories260k-no-graphs env LLMC_CUDA_GRAPHS=0 bash -c "$(declare -f greedy); RUN='$RUN' A='$A' M='$M' OUT='$OUT' greedy '$M/stories260K.gguf'"
  check stories260k-paged bash -c "$(declare -f greedy); RUN='$RUN' A='$BUNDLE/art/stories260k-paged' M='$M' OUT='$OUT' greedy '$M/stories260K.gguf'"
  check stories260k-text bash -c "'$RUN' '$A' --device cuda --weights '$M/stories260K.gguf' --tokens 1 -n 199 > '$OUT/story.txt' && $PY test/runtime/Inputs/is_prefix.py '$OUT/story.txt' '$M/greedy200.txt'"

  # Device sampling (llmc_session_sample / llmc_session_decode_sample).
  with_env() { # with_env VAR=VALUE <command...>: the command with VAR set
    (export "$1"; shift; "$@")
  }
  device_argmax() { # greedy200 drawn by llmc_argmax_v512: 1 + 198 launches
    "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 199 \
      --print-tokens --profile > "$OUT/argmax.ids" 2> "$OUT/argmax.profile" &&
      diff -q "$M/greedy200.tokens" "$OUT/argmax.ids" &&
      grep -Eq '^llmc-profile: +llmc_argmax_v512 +199 ' "$OUT/argmax.profile"
  }
  sampled() { # sampled <name> <llmc-run flags>: device stream = host stream
    local name=$1; shift
    "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 199 \
      --ignore-eos --print-tokens "$@" > "$OUT/$name.device.ids" 2> "$OUT/$name.device.log" &&
      "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 199 \
        --ignore-eos --print-tokens "$@" --host-sampling > "$OUT/$name.host.ids" 2> "$OUT/$name.host.log" &&
      diff "$OUT/$name.host.ids" "$OUT/$name.device.ids"
  }
  on_host() { # on_host <llmc-run flags>: an approximate config, no sampling kernel
    "$RUN" "$A" --device cuda --weights "$M/stories260K.gguf" --tokens 1 -n 50 \
      --ignore-eos --print-tokens --profile "$@" > /dev/null 2> "$OUT/on-host.profile" &&
      grep -q '^llmc-profile: decode:' "$OUT/on-host.profile" &&
      ! grep -q '^llmc-profile: sample:' "$OUT/on-host.profile"
  }
  check sampling-device-argmax device_argmax
  check sampling-top-k-top-p sampled topk --temp 0.8 --top-k 40 --top-p 0.9 --seed 42
  check sampling-top-k-top-p-no-graphs with_env LLMC_CUDA_GRAPHS=0 sampled topk-nographs --temp 0.8 --top-k 40 --top-p 0.9 --seed 42
  check sampling-temperature sampled temp --temp 1 --seed 7
  check sampling-top-p-on-host on_host --temp 1 --top-p 0.9 --seed 7
  # Greedy decode rates (steady state): 4 bytes back per token vs the row.
  rate() { sed -nE 's/^llmc-run: decode: ([0-9.]+) tokens\/s.*/\1/p' "$1"; }
  sampled greedy-rate --temp 0 > /dev/null 2>&1
  note "stories260K decode (greedy, steady state): device sampling $(rate "$OUT/greedy-rate.device.log") tokens/s, host sampling $(rate "$OUT/greedy-rate.host.log") tokens/s"
else
  note "SKIP stories260k (no model files in the bundle)"
fi

# Kernel cases run from a launch manifest (PTX, inputs, launches): the fused
# ops' kernels against float64 references, and the paged KV-cache kernels
# against their contiguous twins and references. The runner writes their
# outputs, which come back under $OUT; the comparison needs numpy (else run
# `<script> compare` on the fetched copy).
kernel_cases() { # kernel_cases <bundle folder name> <checking script>
  local name=$1 script=$2
  [ -d "$BUNDLE/$name" ] || return 0
  check "$name-run" "$BUNDLE/bin/kernel-manifest-runner" "$BUNDLE/$name"
  mkdir -p "$OUT/$name" && cp -r "$BUNDLE/$name/out" "$BUNDLE/$name/expected.pkl" "$OUT/$name/" 2>/dev/null
  if "$PY" -c "import numpy" 2>/dev/null; then
    check "$name" "$PY" "$script" compare "$BUNDLE/$name"
    sed 's/^/    /' "$OUT/$name.log" >> "$RESULTS"
  else
    note "SKIP $name comparison (no numpy here): run $script compare on \$OUT/$name"
  fi
}
kernel_cases fused-kernels test/Target/CUDA/Inputs/fused_kernels_check.py
kernel_cases paged-kv test/Target/CUDA/Inputs/paged_kv_check.py

# 2. Random-weight variants against the CPU's logits.
if [ -d "$BUNDLE/random" ]; then
  check random-variants env PATH="$BUNDLE/bin:$PATH" "$PY" \
    test/Integration/GPU/Inputs/run_random_configs.py "$BUNDLE/random" unused \
    "$BUNDLE/bin/step_logits" $(cat "$BUNDLE/random/variants") \
    --f32 gqa,long-prefill --stage check
  grep -E "vs CPU|pooled" "$OUT/random-variants.log" | sed 's/^/    /' >> "$RESULTS"
fi
note ""

# 3. cuBLAS and copy bandwidth.
COPY_GBS=""
if [ -x "$BUNDLE/bin/cublas-baseline" ]; then
  "$BUNDLE/bin/cublas-baseline" > "$OUT/cublas.txt" 2>&1
  note "## cuBLAS baseline and device bandwidth"
  tee -a "$RESULTS" < "$OUT/cublas.txt"
  # The copy row's GB/s column (bytes read + written per second).
  COPY_GBS=$(awk -F'|' '/^\| device copy/ {gsub(/ /, "", $5); print $5; exit}' "$OUT/cublas.txt")
fi

# 4. LLaMA-3-8B-shaped decode.
B="$BUNDLE/art/llama3-8b"
PROMPT=$(seq -s ' ' 1 512)
"$RUN" "$B" --device cuda --random-weights=1 --tokens "$PROMPT" -n 256 --warmup > /dev/null 2> "$OUT/llama3-8b.log"
DECODE=$(sed -nE 's/^llmc-run: decode: ([0-9.]+) tokens\/s.*/\1/p' "$OUT/llama3-8b.log")
PREFILL=$(sed -nE 's/^llmc-run: prefill: ([0-9.]+) tokens\/s.*/\1/p' "$OUT/llama3-8b.log")
# Weight bytes read per decoded token: every matmul weight once (bf16).
MATMUL=$(sed -nE 's/^flops_per_token.matmul_params: ([0-9]+).*/\1/p' "$BUNDLE/info/llama3-8b.txt")
PEAK_GBS=${LLMC_GPU_PEAK_GBS:-4800}   # H200 HBM3e: 4.8 TB/s
[ -n "$DECODE" ] || FAILED=1
# The same decode without the fusion passes (7 → 19 launches per layer).
UNFUSED=""
if [ -d "$BUNDLE/art/llama3-8b-unfused" ]; then
  "$RUN" "$BUNDLE/art/llama3-8b-unfused" --device cuda --random-weights=1 --tokens "$PROMPT" -n 128 --warmup > /dev/null 2> "$OUT/llama3-8b-unfused.log"
  UNFUSED=$(sed -nE 's/^llmc-run: decode: ([0-9.]+) tokens\/s.*/\1/p' "$OUT/llama3-8b-unfused.log")
fi
# The same decode with a paged KV cache (page-table lookups in the append
# and attention kernels).
PAGED=""
if [ -d "$BUNDLE/art/llama3-8b-paged" ]; then
  "$RUN" "$BUNDLE/art/llama3-8b-paged" --device cuda --random-weights=1 --tokens "$PROMPT" -n 128 --warmup > /dev/null 2> "$OUT/llama3-8b-paged.log"
  PAGED=$(sed -nE 's/^llmc-run: decode: ([0-9.]+) tokens\/s.*/\1/p' "$OUT/llama3-8b-paged.log")
  [ -n "$PAGED" ] || FAILED=1
fi
"$PY" - "$DECODE" "$PREFILL" "$MATMUL" "$PEAK_GBS" "${COPY_GBS:-0}" "$UNFUSED" "$PAGED" <<'PYEOF' | tee -a "$RESULTS"
import sys
decode, prefill, matmul, peak, copy, unfused, paged = sys.argv[1:8]
note = lambda s: print(s)
if not decode:
    note("\nFAIL llama3-8b decode benchmark (see llama3-8b.log)")
    sys.exit(0)
decode, matmul, peak, copy = float(decode), int(matmul), float(peak), float(copy or 0)
bytes_per_token = 2 * matmul
roof = peak * 1e9 / bytes_per_token
print("\n## LLaMA-3-8B shapes, bf16, batch 1, random weights\n")
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
PYEOF

# The same model profiled (no graphs): per-kernel times → GB/s and TFLOP/s.
"$RUN" "$B" --device cuda --random-weights=1 --tokens "$PROMPT" -n 32 --warmup --profile > /dev/null 2> "$OUT/llama3-8b-profile.log"
grep -q "^llmc-profile:" "$OUT/llama3-8b-profile.log" || FAILED=1
"$PY" - "$OUT/llama3-8b-profile.log" "$PEAK_GBS" <<'PYEOF' | tee -a "$RESULTS"
import re, sys
path, peak = sys.argv[1], float(sys.argv[2])
phase, rows = None, []
for line in open(path):
    m = re.match(r"llmc-profile: (prefill|decode|sample): (\d+) calls", line)
    if m:
        phase, calls = m.group(1), int(m.group(2))
        continue
    m = re.match(r"llmc-profile:\s+(\S+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)$", line)
    if m and phase and m.group(1) != "kernel":
        rows.append((phase, m.group(1), int(m.group(2)), float(m.group(3)), float(m.group(4)), float(m.group(5))))
if not rows:
    print("\nFAIL profile (see llama3-8b-profile.log)")
    sys.exit(0)
def shape(name):
    # (weight rows, K, bytes per weight): gemv_n<N>[_<N>...]_k<K>_<type> (a
    # multi-output GEMV reads all its weights), gemv_glu_* reads a gate and
    # an up weight of N rows each.
    n = re.search(r"_n([\d_]+?)_k(\d+)_(bf16|f16|f32)", name)
    if not n:
        return None
    rows = sum(int(r) for r in n.group(1).split("_"))
    if name.startswith("gemv_glu"):
        rows *= 2
    return (rows, int(n.group(2)), {"bf16": 2, "f16": 2, "f32": 4}[n.group(3)])
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

note ""
note "Logs: $OUT"
[ $FAILED -eq 0 ] && note "gpu-check: all checks passed" || note "gpu-check: some checks FAILED"
exit $FAILED
