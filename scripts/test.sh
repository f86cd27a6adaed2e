#!/usr/bin/env bash
# Runs the whole llmc test suite on a fresh machine: install, build, fetch the test data, lit.
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

# lit's summary ("Total Discovered Tests", "Passed: N") closes the output;
# it exits non-zero on any failure.
/usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test"
