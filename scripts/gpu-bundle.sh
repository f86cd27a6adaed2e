#!/usr/bin/env bash
# Prepares everything the GPU check needs, on a machine with the build tools
# (LLVM/MLIR 22, the CUDA toolkit): builds llmc, compiles the CUDA artifacts
# and the CPU reference dumps, and copies them with the run-time binaries
# into one folder (default gpu-bundle/, git-ignored) that a GPU machine
# without the compiler can run: scripts/gpu-check.sh <folder>.
#
# Contents:
#   bin/        llmc-run, cublas-baseline, step_logits (runtime only; no MLIR)
#   models/     stories260K (from ../shared/models, when present)
#   art/        stories260k (f32, sm_80+sm_90) and stories260k-paged (the
#               same with --paged-kv-cache), llama3-8b (bf16 weights and
#               KV cache, sm_90: the decode benchmark, random weights),
#               llama3-8b-unfused (the same built with --no-fusion) and
#               llama3-8b-paged (the same with --paged-kv-cache)
#   random/     random-weight variants: CUDA artifacts, weights, prompts and
#               the CPU's logits to compare with (Integration/GPU harness)
#   info/       llmc info of the benchmark model (weight bytes per token)
#   fused-kernels/  the fused ops' kernel cases: PTX, inputs, manifest and
#               references (run by bin/kernel-manifest-runner)
#   paged-kv/   the same for the paged KV-cache kernels
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${1:-gpu-bundle}
BUILD_DIR=${LLMC_BUILD_DIR:-build}
SHARED_MODELS=${LLMC_SHARED_MODELS:-../shared/models}

# The variants of test/Integration/GPU/random-configs-cuda.test.
RANDOM_VARIANTS="gqa mha mqa tied qwen2-bias mistral-window llama3-rope yarn-rope dynamic-rope partial-rotary head128 long-prefill"
# The random variants are built for the GPU that will run them (H200: sm_90).
GPU_ARCHS=${LLMC_GPU_ARCHS:-sm_90}

scripts/build.sh >/dev/null
LLMC="$BUILD_DIR/bin/llmc"
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE"/{bin,models,art,info}

cp "$BUILD_DIR/bin/llmc-run" "$BUNDLE/bin/"
[ -x "$BUILD_DIR/bin/cublas-baseline" ] && cp "$BUILD_DIR/bin/cublas-baseline" "$BUNDLE/bin/"
if [ -d "$SHARED_MODELS/stories260K" ]; then
  cp -r "$SHARED_MODELS/stories260K" "$BUNDLE/models/"
else
  echo "gpu-bundle: $SHARED_MODELS/stories260K is absent; the stories260K checks will be skipped" >&2
fi

"$LLMC" compile configs/stories260k.json --target=cuda:sm_80,sm_90 -o "$BUNDLE/art/stories260k" >/dev/null
"$LLMC" compile configs/stories260k.json --target=cuda:sm_80,sm_90 --paged-kv-cache \
  -o "$BUNDLE/art/stories260k-paged" >/dev/null
# The benchmark model: LLaMA-3-8B's shapes, bf16 weights and cache, a 4096-
# position cache (the prompt and generation stay far below it).
"$LLMC" compile configs/llama-3-8b.json --target=cuda:sm_90 --weight-type=bf16 \
  --kv-type=bf16 --context=4096 -o "$BUNDLE/art/llama3-8b" >/dev/null
# The same without the fusion passes, to measure what they gain.
"$LLMC" compile configs/llama-3-8b.json --target=cuda:sm_90 --weight-type=bf16 \
  --kv-type=bf16 --context=4096 --no-fusion -o "$BUNDLE/art/llama3-8b-unfused" >/dev/null
# The same with a paged cache, to measure what the page table costs.
"$LLMC" compile configs/llama-3-8b.json --target=cuda:sm_90 --weight-type=bf16 \
  --kv-type=bf16 --context=4096 --paged-kv-cache -o "$BUNDLE/art/llama3-8b-paged" >/dev/null
"$LLMC" info configs/llama-3-8b.json --kv-type=bf16 > "$BUNDLE/info/llama3-8b.txt"

# Random-weight variants (test/Integration/GPU/random-configs-cuda.test's):
# everything but the CUDA runs. step_logits drives the runtime's C API.
cc -std=c99 -O2 test/Integration/GPU/Inputs/step_logits.c -Iruntime/include \
  "$BUILD_DIR/runtime/libllmc_runtime.a" -lpcre2-8 -lstdc++ -lpthread -ldl -lm \
  -o "$BUNDLE/bin/step_logits"
PATH="$PWD/$BUILD_DIR/bin:$PATH" "${PYTHON:-python3}" \
  test/Integration/GPU/Inputs/run_random_configs.py "$BUNDLE/random" \
  "cuda:$GPU_ARCHS" "$BUNDLE/bin/step_logits" $RANDOM_VARIANTS \
  --f32 gqa,long-prefill --stage prepare > "$BUNDLE/random-prepare.log" ||
  { cat "$BUNDLE/random-prepare.log"; exit 1; }
echo "$RANDOM_VARIANTS" > "$BUNDLE/random/variants"
# The fused kernels' cases (test/Target/CUDA/fused-kernels-gpu.test): PTX,
# inputs and launch manifest, and the driver-API runner.
PATH="$PWD/$BUILD_DIR/bin:$PATH" "${PYTHON:-python3}" \
  test/Target/CUDA/Inputs/fused_kernels_check.py generate "$BUNDLE/fused-kernels"
# The paged KV-cache kernels' cases (test/Target/CUDA/paged-kv-cache-gpu.test).
PATH="$PWD/$BUILD_DIR/bin:$PATH" "${PYTHON:-python3}" \
  test/Target/CUDA/Inputs/paged_kv_check.py generate "$BUNDLE/paged-kv"
c++ -O2 -std=c++17 -o "$BUNDLE/bin/kernel-manifest-runner" \
  test/Target/CUDA/Inputs/kernel_manifest_runner.cpp -ldl
# What the GPU machine does not need: the CPU artifacts (their logits are
# dumped), the weights (regenerated there, deterministically), the objects
# and archives of the CUDA artifacts (llmc-run loads lib<P>.so).
rm -rf "$BUNDLE"/random/*/cpu "$BUNDLE"/random/*/cpu-bf16 "$BUNDLE"/random/*/model.safetensors
rm -f "$BUNDLE"/random/*/*/*.o "$BUNDLE"/random/*/*/*.a "$BUNDLE"/art/*/*.o "$BUNDLE"/art/*/*.a
du -sh "$BUNDLE"
