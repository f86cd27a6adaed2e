#!/usr/bin/env bash
# Runs the runtime, end-to-end and llmc-run lit tests against an ASan+UBSan build of the runtime and its programs.
#
#   scripts/sanitize.sh [lit options]      # after scripts/build.sh (llmc comes from ./build)
#
# build-asan/ is the top-level project configured with LLMC_SANITIZE (runtime/CMakeLists.txt), of which only
# llmc-run and llmc-runtime-test are built: they and the runtime they link are instrumented, and so are the C
# programs the tests build against it (%cc: mock artifacts, examples/generate.c). The compiler links libMLIR and
# is not instrumented: build-asan/bin/llmc and llmc-opt link to the normal build's. The kernels llmc compiles are
# not instrumented either, but every buffer they get from the runtime is, and their malloc/free go through ASan.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${LLMC_SANITIZE_BUILD_DIR:-build-asan}
COMPILER_DIR=${LLMC_BUILD_DIR:-build}/bin
# float-cast-overflow is not part of GCC's "undefined": out-of-range float -> int conversions (quantizers,
# samplers) are UB too.
SANITIZERS=${LLMC_SANITIZERS:-address,undefined,float-cast-overflow}
# The tests that run what build-asan builds (test/tools/llmc-run-*: llmc-run's own error paths).
FILTER=${LLMC_SANITIZE_FILTER:-'^llmc :: (runtime/|e2e/|tools/llmc-run)'}

for tool in llmc llmc-opt; do
  if [ ! -x "$COMPILER_DIR/$tool" ]; then
    echo "sanitize.sh: no $COMPILER_DIR/$tool: run scripts/build.sh first" >&2
    exit 1
  fi
done

# One run per build dir: a second one would clear the sanitizer logs under the first.
mkdir -p "$BUILD_DIR"
exec 9>"$BUILD_DIR/sanitize.lock"
if ! flock -n 9; then
  echo "sanitize.sh: another scripts/sanitize.sh is using $BUILD_DIR (LLMC_SANITIZE_BUILD_DIR names another)" >&2
  exit 1
fi

t0=$SECONDS
# scripts/build.sh configures a build dir once; another LLMC_SANITIZERS reconfigures this one.
if [ -f "$BUILD_DIR/CMakeCache.txt" ] && ! grep -qx "LLMC_SANITIZE:STRING=$SANITIZERS" "$BUILD_DIR/CMakeCache.txt"; then
  cmake "$BUILD_DIR" -DLLMC_SANITIZE="$SANITIZERS" >/dev/null
fi
LLMC_BUILD_DIR=$BUILD_DIR \
  LLMC_CONFIGURE_ARGS="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLLMC_SANITIZE=$SANITIZERS" \
  scripts/build.sh --target llmc-run llmc-runtime-test
for tool in llmc llmc-opt; do
  ln -sfn "$(realpath "$COMPILER_DIR/$tool")" "$BUILD_DIR/bin/$tool"
done
build_seconds=$((SECONDS - t0))

# ASan's and LSan's reports also go to files in LOG_DIR (log_path), so that a finding in a command whose exit
# status or stderr a test ignores (`not`, `2> /dev/null`, a script's subprocess) still fails this script. GCC's
# UBSan, inside ASan's runtime, ignores log_path and writes to stderr only; its reports abort the process
# (-fno-sanitize-recover, abort_on_error), which fails every RUN line but one that expects a crash.
LOG_DIR=$BUILD_DIR/sanitizer-logs
rm -rf "$LOG_DIR"
mkdir -p "$LOG_DIR"
LOG_DIR=$(realpath "$LOG_DIR")
# abort_on_error: a finding ends the process with SIGABRT, which fails a `not` RUN line (an exit status of 1
#   would satisfy it).
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads the dynamic TLS of libomp's threads (glibc 2.36)
#   and its tracer dies with SIGSEGV at exit; without the interception it scans static TLS and stacks only.
# print_suppressions=0: LSan's built-in suppression of __tls_get_addr's blocks would write a log every run.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:check_initialization_order=1:intercept_tls_get_addr=0:log_path=$LOG_DIR/asan"
export LSAN_OPTIONS="print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"

t1=$SECONDS
status=0
/usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test" --filter "$FILTER" "$@" || status=$?
test_seconds=$((SECONDS - t1))

reports=$(find "$LOG_DIR" -type f | sort)
if [ -n "$reports" ]; then
  for report in $reports; do
    echo "=== sanitizer report $report"
    cat "$report"
  done
  echo "sanitize.sh: $(echo "$reports" | wc -l) sanitizer report(s) above"
  status=1
fi
echo "sanitize.sh ($SANITIZERS): build ${build_seconds} s, tests ${test_seconds} s"
exit $status
