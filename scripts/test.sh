#!/usr/bin/env bash
# Runs the whole llmc test suite on a fresh machine: install, build, fetch the test data, lit, then a short fuzz
# run (scripts/fuzz.sh) and the sanitizer run (scripts/sanitize.sh). Every step runs even when one before it
# fails; a summary of the three closes the output and the exit status is non-zero if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
BUILD_DIR=${LLMC_BUILD_DIR:-build}

# Data the tests read from llmc's download cache (outside the clone; fetched once, reused afterwards). Each
# step may fail (no PyPI access): the tests that need its data then report UNSUPPORTED, naming the step.
prepare() {
  local what=$1
  shift
  local t0=$SECONDS
  if "$@" >/dev/null 2>"$BUILD_DIR/test-data-$what.log"; then
    echo "test data: $what ready ($((SECONDS - t0)) s)"
  else
    echo "test data: $what unavailable, its tests will be UNSUPPORTED (see $BUILD_DIR/test-data-$what.log)"
  fi
}
prepare smollm2 scripts/fetch-model.sh        # the real default model (98 MB)
prepare reference-venv scripts/reference-venv.sh   # the gguf package: the reference dequantizer
prepare quant scripts/make-quant-testdata.sh       # llama-quantize's files (builds it once: minutes)

# Each step's result and time, for the summary.
summary=()
failed=0
step() {
  local name=$1
  shift
  local t0=$SECONDS rc=0
  echo "=== test.sh: $name"
  "$@" || rc=$?
  if [ "$rc" -eq 0 ]; then
    summary+=("$(printf '%-11s passed (%d s)' "$name" $((SECONDS - t0)))")
  else
    summary+=("$(printf '%-11s FAILED, exit %d (%d s)' "$name" "$rc" $((SECONDS - t0)))")
    failed=1
  fi
}
# lit exits non-zero on any failure.
step lit /usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test"
# The regression inputs replayed, then a few seconds of each fuzz target, one per core; any finding fails it.
step fuzz env FUZZ_SECONDS="${LLMC_TEST_FUZZ_SECONDS:-10}" FUZZ_JOBS="$(nproc)" scripts/fuzz.sh
# ASan+UBSan: the runtime, e2e and llmc-run tests again; a failure or a sanitizer report fails it.
step sanitizers scripts/sanitize.sh

echo "=== test.sh summary"
printf '  %s\n' "${summary[@]}"
exit $failed
