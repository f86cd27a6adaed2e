#!/usr/bin/env bash
# Makes (once) the quantized GGUF test files of the dequant-*.test lit tests with llama.cpp's own llama-quantize.
#
#   scripts/make-quant-testdata.sh        # prints the test-data dir; does nothing when it is complete
#
# Steps: the reference venv (scripts/reference-venv.sh: the gguf package), llama-quantize
# (scripts/build-llama-cpp.sh: a few minutes once), two random-weight f32 LLaMA GGUFs
# (test/runtime/Inputs/make_quant_model.py), then llama-quantize into every type below. Output:
# $LLMC_CACHE_DIR (else ${XDG_CACHE_HOME:-~/.cache}/llmc)/testdata/quant/, with the file COMPLETE
# written last (the lit feature `quant-testdata` keys on it). Quiet on success (the dir on stdout);
# on failure, the failing step's log on stderr and exit 1. Rerunning after a failure starts over.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$HERE")
CACHE=${LLMC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmc}
OUT="$CACHE/testdata/quant"
# Bump when the files or their recipe change: COMPLETE holds it, and a different one regenerates.
RECIPE=1

# Every matrix of k256 gets the type itself (--pure: no mixture, no per-tensor upgrades); the names are
# llama-quantize's (Q3_K, Q4_K, Q5_K are its aliases of the _M mixes, which --pure flattens to the type).
PURE_TYPES=(Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q2_K Q3_K Q4_K Q5_K Q6_K IQ4_NL)
# A real mixture (Q4_K with Q6_K for some tensors), as users download it.
MIXED_TYPES=(Q4_K_M)
# Seeds of the random weights: fixed so that the files are the same on every machine.
SEED_K256=1
SEED_S576=2

die() { echo "make-quant-testdata: error: $*" >&2; exit 1; }

if [ -f "$OUT/COMPLETE" ] && [ "$(cat "$OUT/COMPLETE")" = "recipe $RECIPE" ]; then
  echo "$OUT"
  exit 0
fi

PY=$("$HERE/reference-venv.sh") || die "scripts/reference-venv.sh failed"
BIN=$("$HERE/build-llama-cpp.sh" llama-quantize) || die "scripts/build-llama-cpp.sh failed"
QUANTIZE="$BIN/llama-quantize"

mkdir -p "$CACHE/testdata"
# Built in a fresh dir next to the final one, then swapped in: a reader never sees a partial set.
WORK=$(mktemp -d "$CACHE/testdata/.quant.XXXXXX")
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT
echo "make-quant-testdata: writing test files into $OUT" >&2

run() { # run <log> <command...>: quiet unless it fails
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    die "failed: $*"
  fi
}

run "$WORK/make-k256.log" "$PY" "$REPO/test/runtime/Inputs/make_quant_model.py" k256 "$SEED_K256" \
  "$WORK/k256-F32.gguf"
run "$WORK/make-s576.log" "$PY" "$REPO/test/runtime/Inputs/make_quant_model.py" s576 "$SEED_S576" \
  "$WORK/s576-F32.gguf"
for t in "${PURE_TYPES[@]}"; do
  run "$WORK/quantize-k256-$t.log" "$QUANTIZE" --pure "$WORK/k256-F32.gguf" "$WORK/k256-$t.gguf" "$t"
done
for t in "${MIXED_TYPES[@]}"; do
  run "$WORK/quantize-k256-$t.log" "$QUANTIZE" "$WORK/k256-F32.gguf" "$WORK/k256-$t.gguf" "$t"
  # Rows of 576 fit no 256-element super-block: llama-quantize falls back to Q5_0 / Q8_0 there.
  run "$WORK/quantize-s576-$t.log" "$QUANTIZE" "$WORK/s576-F32.gguf" "$WORK/s576-$t.gguf" "$t"
done
rm -f "$WORK"/*.log "$WORK/s576-F32.gguf"   # logs and the 15 MB f32 source are not test data

rm -rf "$OUT"
mv "$WORK" "$OUT"
trap - EXIT
echo "recipe $RECIPE" >"$OUT/COMPLETE"
echo "$OUT"
