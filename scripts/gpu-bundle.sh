#!/usr/bin/env bash
# Prepares everything scripts/gpu-check.sh runs, on a machine with the build tools (LLVM/MLIR 22, the CUDA toolkit).
#
#   scripts/gpu-bundle.sh [--no-build] [folder]     (default gpu-bundle/, git-ignored)
#
# Builds llmc (unless --no-build: then ./build must be current), compiles the
# CUDA artifacts, the kernel checks' PTX and launch manifests and the
# CPU-side references, and copies them with the run-time programs into one
# folder that a GPU machine without the compiler runs, and packs the folder
# into <folder>.tar.xz (git-ignored too): carry the archive there and run
# scripts/gpu-check.sh <folder>.tar.xz from a checkout of the same commit
# (the checks' Python scripts come from the checkout; scripts.sha256 records
# their hashes and gpu-check.sh refuses other ones). The archive and the
# checkout must stay under the 64 MiB a device run carries (the folder
# alone is above it: 65 MiB on 2026-12-04, 23 MiB packed): their size is
# printed, and above LLMC_CARRY_MAX_MIB (default 60) the script fails.
#
# Contents:
#   bin/      llmc-run, kernel-manifest-runner, attention-gpu-check,
#             step_logits, cublas-baseline (runtime only; no MLIR)
#   lib/      libomp.so.5, which the CPU reference artifact needs
#   models/   stories260K (from ../shared/models, when present)
#   art/      stories260k (f32, sm_80+sm_90) and stories260k-paged;
#             stories260k-kv-int8 and -kv-fp8 (--kv-type=int8 / fp8) with
#             their CPU twins stories260k-kv-int8-cpu and -kv-fp8-cpu;
#             llama3-8b (LLaMA-3-8B shapes, bf16 weights and KV cache,
#             sm_90), llama3-8b-unfused (--no-fusion), llama3-8b-paged
#             (--paged-kv-cache), llama3-8b-q8_0 and -q4_0 (weights
#             quantized at load); llama3-8l, llama3-8l-unfused,
#             llama3-8l-paged, llama3-8l-q4_0: the same with 8 layers, and
#             llama3-8l-cpu and llama3-8l-q4_0-cpu, their CPU references
#             (x86-64-v3: the GPU machine's processor is unknown here)
#   kernels/  projection, block, attention, small, fused, paged-kv: each kernel
#             check's PTX, launch manifest and what its comparison needs
#             (inputs as seeds where they are large)
#   random/   random-weight variants: CUDA artifacts, prompts and the CPU's
#             logits (test/Integration/GPU/Inputs/run_random_configs.py)
#   info/     llmc info of the benchmark model (weight bytes per token)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=1
if [ "${1:-}" = "--no-build" ]; then
  BUILD=0
  shift
fi
BUNDLE=${1:-gpu-bundle}
BUILD_DIR=${LLMC_BUILD_DIR:-build}
SHARED_MODELS=${LLMC_SHARED_MODELS:-../shared/models}
PY=${PYTHON:-/usr/bin/python3}
# A device run carries 64 MiB in all (the checkout and the bundle); a
# margin for files that appear in the checkout before the run.
MAX_MIB=${LLMC_CARRY_MAX_MIB:-60}
# The variants of test/Integration/GPU/random-configs-cuda.test.
RANDOM_VARIANTS="gqa mha mqa tied qwen2-bias mistral-window llama3-rope yarn-rope dynamic-rope head128 long-prefill"
# What the GPU check runs on (H200: sm_90); the stories260K artifacts carry
# sm_80 too, as test/Integration/GPU builds them.
GPU_ARCHS=${LLMC_GPU_ARCHS:-sm_90}
# The CPU reference runs on the GPU machine's processor, unknown here.
REFERENCE_CPU=${LLMC_REFERENCE_CPU:-x86-64-v3}
# The test scripts gpu-check.sh runs from the checkout, hashed into
# BUNDLE.txt: a bundle only matches the scripts that made it.
CHECK_SCRIPTS="test/lib/llmc_cuda_module.py test/lib/cuda_sim.py
  test/Target/CUDA/Inputs/projection_gpu.py test/Target/CUDA/Inputs/block_projection_gpu.py
  test/Target/CUDA/Inputs/small_kernels_gpu.py
  test/Target/CUDA/Inputs/fused_kernels_check.py test/Target/CUDA/Inputs/paged_kv_check.py
  test/Integration/GPU/Inputs/run_random_configs.py test/Integration/GPU/Inputs/random_model.py
  test/Integration/GPU/Inputs/compare_logits.py test/runtime/Inputs/is_prefix.py"

say() { echo "gpu-bundle: $*" >&2; }

if [ "$BUILD" = 1 ]; then
  scripts/build.sh >/dev/null
fi
for tool in llmc llmc-run; do
  [ -x "$BUILD_DIR/bin/$tool" ] || { say "$BUILD_DIR/bin/$tool is missing (build first)"; exit 1; }
done
LLMC="$BUILD_DIR/bin/llmc"
export PATH="$PWD/$BUILD_DIR/bin:$PATH"
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE"/{bin,lib,models,art,info,kernels}

cp "$BUILD_DIR/bin/llmc-run" "$BUNDLE/bin/"
if [ -x "$BUILD_DIR/bin/cublas-baseline" ]; then
  cp "$BUILD_DIR/bin/cublas-baseline" "$BUNDLE/bin/"
else
  say "no $BUILD_DIR/bin/cublas-baseline (no CUDA headers at configure time): no cuBLAS baseline"
fi
cp -L "${LLMC_LLVM_LIB_DIR:-/usr/lib/llvm-22/lib}/libomp.so.5" "$BUNDLE/lib/"
if [ -d "$SHARED_MODELS/stories260K" ]; then
  cp -r "$SHARED_MODELS/stories260K" "$BUNDLE/models/"
else
  say "$SHARED_MODELS/stories260K is absent; the stories260K checks will be skipped"
fi

# compile <name> <config> <llmc compile flags...>: an artifact in art/.
compile() {
  local name=$1 config=$2
  shift 2
  "$LLMC" compile "$config" -o "$BUNDLE/art/$name" "$@" >/dev/null
}
compile stories260k configs/stories260k.json --target=cuda:sm_80,sm_90
compile stories260k-paged configs/stories260k.json --target=cuda:sm_80,sm_90 --paged-kv-cache
# A quantized KV cache, and the CPU artifacts the GPU's logits are compared with.
for kv in int8 fp8; do
  compile stories260k-kv-$kv configs/stories260k.json --target=cuda:sm_80,sm_90 --kv-type=$kv
  compile stories260k-kv-$kv-cpu configs/stories260k.json --target=cpu --cpu="$REFERENCE_CPU" --kv-type=$kv
done
# The benchmark model: LLaMA-3-8B's shapes, bf16 weights and cache, a 4096-
# position cache (the prompt and generation stay far below it); without the
# fusion passes (what they gain) and with a paged cache (what the page table
# costs).
LLAMA3_CACHE=(--kv-type=bf16 --context=4096)
LLAMA3=(--weight-type=bf16 "${LLAMA3_CACHE[@]}")
compile llama3-8b configs/llama-3-8b.json --target=cuda:"$GPU_ARCHS" "${LLAMA3[@]}"
compile llama3-8b-unfused configs/llama-3-8b.json --target=cuda:"$GPU_ARCHS" "${LLAMA3[@]}" --no-fusion
compile llama3-8b-paged configs/llama-3-8b.json --target=cuda:"$GPU_ARCHS" "${LLAMA3[@]}" --paged-kv-cache
"$LLMC" info configs/llama-3-8b.json --kv-type=bf16 > "$BUNDLE/info/llama3-8b.txt"
# Its layers on the GPU against the CPU: every per-layer shape, 8 layers
# (5.6 GB of bf16 weights instead of 16), the same random weights on both.
"$PY" - configs/llama-3-8b.json "$BUNDLE/info/llama3-8l.json" <<'PYEOF'
import json, sys
config = json.load(open(sys.argv[1]))
config["num_hidden_layers"] = 8
json.dump(config, open(sys.argv[2], "w"), indent=2)
PYEOF
compile llama3-8l "$BUNDLE/info/llama3-8l.json" --target=cuda:"$GPU_ARCHS" "${LLAMA3[@]}"
compile llama3-8l-unfused "$BUNDLE/info/llama3-8l.json" --target=cuda:"$GPU_ARCHS" "${LLAMA3[@]}" --no-fusion
compile llama3-8l-paged "$BUNDLE/info/llama3-8l.json" --target=cuda:"$GPU_ARCHS" "${LLAMA3[@]}" --paged-kv-cache
compile llama3-8l-cpu "$BUNDLE/info/llama3-8l.json" --target=cpu --cpu="$REFERENCE_CPU" "${LLAMA3[@]}"
# Weights quantized at load: the benchmark model's decode on Q8_0 and Q4_0
# blocks, and the 8 layers on Q4_0 against the CPU decoding the same blocks
# with x exact (--block-dot=f32).
for format in q8_0 q4_0; do
  compile llama3-8b-$format configs/llama-3-8b.json --target=cuda:"$GPU_ARCHS" "${LLAMA3_CACHE[@]}" --weight-type=$format
done
compile llama3-8l-q4_0 "$BUNDLE/info/llama3-8l.json" --target=cuda:"$GPU_ARCHS" "${LLAMA3_CACHE[@]}" --weight-type=q4_0
compile llama3-8l-q4_0-cpu "$BUNDLE/info/llama3-8l.json" --target=cpu --cpu="$REFERENCE_CPU" "${LLAMA3_CACHE[@]}" \
  --weight-type=q4_0 --block-dot=f32

# The kernel checks (test/Target/CUDA/*-gpu.test): PTX, launch manifests and
# references; one runner program for the manifests.
K="$BUNDLE/kernels"
"$PY" test/Target/CUDA/Inputs/projection_gpu.py generate "$K/projection"
# Block-quantized weights: the references are dequantized here by the gguf
# package (the reference venv's), so that the GPU machine needs numpy only.
"$(scripts/reference-venv.sh)" test/Target/CUDA/Inputs/block_projection_gpu.py generate "$K/block"
"$PY" test/Target/CUDA/Inputs/small_kernels_gpu.py generate "$K/small"
"$PY" test/Target/CUDA/Inputs/fused_kernels_check.py generate "$K/fused"
"$PY" test/Target/CUDA/Inputs/paged_kv_check.py generate "$K/paged-kv"
c++ -O2 -std=c++17 -o "$BUNDLE/bin/kernel-manifest-runner" \
  test/Target/CUDA/Inputs/kernel_manifest_runner.cpp -ldl
# Attention (attention-gpu.test): the runs are compiled into the program.
mkdir -p "$K/attention"
"$PY" test/Target/CUDA/Inputs/attention_gpu_cases.py "$K/attention"
"$LLMC" --compile-to=ptx --target=cuda:sm_80,sm_90 "$K/attention/cases.mlir" > "$K/attention/cases.ptx"
"$PY" test/Target/CUDA/Inputs/attention_gpu_cases.py --split "$K/attention/cases.ptx" "$K/attention"
c++ -O2 -std=c++17 -I"$K/attention" -o "$BUNDLE/bin/attention-gpu-check" \
  test/Target/CUDA/Inputs/attention_gpu_check.cpp -ldl
# The kernels phase and module text only serve the simulator here.
rm -f "$K"/*/*.kernels.mlir "$K"/*/*.mlir "$K/attention/cases.ptx" "$K/attention/cases.inc"

# Random-weight variants (test/Integration/GPU/random-configs-cuda.test's):
# everything but the CUDA runs. step_logits drives the runtime's C API.
cc -std=c99 -O2 test/Integration/GPU/Inputs/step_logits.c -Iruntime/include \
  "$BUILD_DIR/runtime/libllmc_runtime.a" -lpcre2-8 -lstdc++ -lpthread -ldl -lm \
  -o "$BUNDLE/bin/step_logits"
# shellcheck disable=SC2086 # the variants are words
"$PY" test/Integration/GPU/Inputs/run_random_configs.py "$BUNDLE/random" \
  "cuda:$GPU_ARCHS" "$BUNDLE/bin/step_logits" $RANDOM_VARIANTS \
  --f32 gqa,long-prefill --stage prepare > "$BUNDLE/random-prepare.log" ||
  { cat "$BUNDLE/random-prepare.log"; exit 1; }
echo "$RANDOM_VARIANTS" > "$BUNDLE/random/variants"

# What the GPU machine does not need: the CPU artifacts of the variants
# (their logits are dumped), the weights (regenerated there, seeded), the
# objects and archives of every artifact (llmc-run loads lib<P>.so).
rm -rf "$BUNDLE"/random/*/cpu "$BUNDLE"/random/*/cpu-bf16 "$BUNDLE"/random/*/model.safetensors
rm -f "$BUNDLE"/random/*/*/*.o "$BUNDLE"/random/*/*/*.a "$BUNDLE"/art/*/*.o "$BUNDLE"/art/*/*.a

# shellcheck disable=SC2086 # the list is words
sha256sum $CHECK_SCRIPTS > "$BUNDLE/scripts.sha256"
BYTES=$(du -sb "$BUNDLE" | cut -f1)
MIB() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
{
  echo "llmc GPU bundle"
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "size: $(MIB "$BYTES") MiB unpacked"
  echo "gpu archs: $GPU_ARCHS; reference cpu: $REFERENCE_CPU"
} > "$BUNDLE/BUNDLE.txt"
du -sh "$BUNDLE"/* | sed 's/^/  /' >&2
# What a device run carries: the archive (PTX and references pack to about a
# third), the tracked files and the untracked ones git does not ignore.
ARCHIVE="$BUNDLE.tar.xz"
tar -C "$(dirname "$BUNDLE")" -cf - "$(basename "$BUNDLE")" | xz -T0 -6 > "$ARCHIVE"
PACKED=$(stat -c %s "$ARCHIVE")
TREE=$({ git ls-files -z; git ls-files -z --others --exclude-standard; } |
       xargs -0 du -cb 2>/dev/null | awk '$2 == "total" { n += $1 } END { print n + 0 }')
say "$BUNDLE is $(MIB "$BYTES") MiB, $ARCHIVE $(MIB "$PACKED") MiB; with the checkout ($(MIB "$TREE") MiB) a device run carries $(MIB $((PACKED + TREE))) MiB (at most $MAX_MIB, LLMC_CARRY_MAX_MIB; the limit is 64)"
if [ $((PACKED + TREE)) -gt $((MAX_MIB * 1048576)) ]; then
  say "too large to carry to the GPU machine"
  exit 1
fi
