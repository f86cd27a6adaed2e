#!/usr/bin/env bash
# Configures (once) and builds llmc in ./build with ninja, ccache, lld and the MLIR dylib.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${LLMC_BUILD_DIR:-build}
# More configure arguments for another build dir (scripts/sanitize.sh: -DLLMC_SANITIZE=...); later -D win.
read -r -a CONFIGURE_ARGS <<< "${LLMC_CONFIGURE_ARGS:-}"
# ccache hashes compiler arguments; with paths relative to the clone, a fresh
# clone elsewhere (as CI makes) still hits the cache.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=true

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_LINKER=lld \
    "${CONFIGURE_ARGS[@]}" \
    >/dev/null
fi
cmake --build "$BUILD_DIR" "$@"
