#!/usr/bin/env bash
# Runs the whole llmc test suite on a fresh machine: install, build, lit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
BUILD_DIR=${LLMC_BUILD_DIR:-build}
# lit's summary ("Total Discovered Tests", "Passed: N") closes the output;
# it exits non-zero on any failure.
/usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test"
