#!/usr/bin/env bash
# Builds (once) llama.cpp's tools from the llama.cpp vendored in PyPI's llama-cpp-python sdist, outside the clone.
#
#   scripts/build-llama-cpp.sh                          # builds llama-quantize
#   scripts/build-llama-cpp.sh llama-bench llama-quantize   # builds the named targets
#
# Prints the bin dir (holding the targets) on stdout; progress and errors go to stderr, the build log to
# <build dir>/build.log. Idempotent: targets already built are not rebuilt (ninja decides), a missing sdist is
# downloaded once. Cache: $LLMC_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/llmc, under
# llama.cpp-<version>/. LLMC_LLAMA_CPP_JOBS sets the build parallelism (default: 2, to share a small machine).
# LLMC_LLAMA_CPP_ISA picks the instruction set: native (default: this machine's, -march=native) or avx2
# (x86-64-v3: AVX2, FMA, F16C, BMI2 and no AVX-512, in build-avx2/), to measure the AVX2 kernels of llama.cpp
# on a machine that also has AVX-512.
# llama.cpp is a baseline and a reference tool here, never part of llmc: nothing of it enters the clone.
set -euo pipefail

# The llama-cpp-python release whose vendored llama.cpp is llmc's pinned baseline.
LLAMA_CPP_PYTHON_VERSION=0.3.36
JOBS=${LLMC_LLAMA_CPP_JOBS:-2}
ISA=${LLMC_LLAMA_CPP_ISA:-native}

CACHE=${LLMC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmc}
ROOT="$CACHE/llama.cpp-$LLAMA_CPP_PYTHON_VERSION"
SRC="$ROOT/src"                 # the unpacked sdist
LLAMA="$SRC/vendor/llama.cpp"   # llama.cpp as vendored by it
die() { echo "build-llama-cpp: error: $*" >&2; exit 1; }
case $ISA in
  native) BUILD="$ROOT/build"; ISA_FLAGS=(-DGGML_NATIVE=ON) ;;
  avx2) BUILD="$ROOT/build-avx2"
        ISA_FLAGS=(-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
                   -DGGML_BMI2=ON -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF) ;;
  *) die "LLMC_LLAMA_CPP_ISA must be native or avx2 (got '$ISA')" ;;
esac
BIN="$BUILD/bin"
CONFIGURE_LOG="$ROOT/configure-$ISA.log"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(llama-quantize)

for tool in cmake ninja; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found (install cmake and ninja-build)"
done

all_built() {
  local t
  for t in "${targets[@]}"; do [ -x "$BIN/$t" ] || return 1; done
}

# Fast path: everything asked for exists. (A later call naming another target still goes through ninja.)
if all_built; then
  echo "$BIN"
  exit 0
fi

mkdir -p "$ROOT"
if [ ! -f "$LLAMA/CMakeLists.txt" ]; then
  TMP=$(mktemp -d "$ROOT/.fetch.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
  PIP=(python3 -m pip)
  command -v pip3 >/dev/null 2>&1 && PIP=(pip3)
  spec="llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
  echo "build-llama-cpp: downloading the $spec source distribution from PyPI (once)" >&2
  if ! "${PIP[@]}" download --quiet --disable-pip-version-check --no-deps --no-binary llama-cpp-python \
       --dest "$TMP" "$spec" >"$TMP/pip.log" 2>&1; then
    tail -n 5 "$TMP/pip.log" >&2
    die "'pip download $spec' failed (no PyPI access?)"
  fi
  sdist=$(ls "$TMP"/llama_cpp_python-*.tar.gz 2>/dev/null | head -n 1)
  [ -n "$sdist" ] || die "pip download left no llama_cpp_python-*.tar.gz in $TMP"
  mkdir -p "$TMP/unpacked"
  tar -xzf "$sdist" -C "$TMP/unpacked"
  top=$(ls -d "$TMP"/unpacked/*/ | head -n 1)
  [ -f "$top/vendor/llama.cpp/CMakeLists.txt" ] || die "$sdist has no vendor/llama.cpp/CMakeLists.txt"
  rm -rf "$SRC"
  mv "$top" "$SRC"   # atomic within the cache: a half-unpacked tree is never at $SRC
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  echo "build-llama-cpp: configuring llama.cpp in $BUILD ($ISA)" >&2
  if ! cmake -S "$LLAMA" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${ISA_FLAGS[@]}" \
       -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
       -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >"$CONFIGURE_LOG" 2>&1; then
    tail -n 20 "$CONFIGURE_LOG" >&2
    rm -f "$BUILD/build.ninja"
    die "cmake configure failed (full log: $CONFIGURE_LOG)"
  fi
fi

echo "build-llama-cpp: building ${targets[*]} with -j$JOBS (a few minutes the first time)" >&2
if ! ninja -C "$BUILD" -j"$JOBS" "${targets[@]}" >"$BUILD/build.log" 2>&1; then
  tail -n 20 "$BUILD/build.log" >&2
  die "ninja ${targets[*]} failed (full log: $BUILD/build.log)"
fi
all_built || die "the build finished but ${targets[*]} are not all in $BIN"
echo "$BIN"
