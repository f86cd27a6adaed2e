#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan) into build-fuzz/, replays fuzz/regressions/, then
# fuzzes each target in turn; prints a line per target (executions, corpus, findings) and exits non-zero on any
# finding: a crash, a sanitizer report, a leak, a timeout, an out-of-memory, a failed fuzz invariant.
#   FUZZ_SECONDS=15        time per target (the CI default)
#   FUZZ_RUNS=1000000      a number of executions per target instead of a time (with FUZZ_SECONDS as well:
#                          whichever comes first)
#   FUZZ_TARGETS="gguf dequant"   a subset (names as in fuzz/CMakeLists.txt)
#   FUZZ_TIMEOUT=25        seconds one input may take before it counts as a finding (a hang)
#   FUZZ_JOBS=1            targets fuzzed at the same time (CI: one per core)
#   FUZZ_BUILD_DIR=build-fuzz; LLMC_SHARED_MODELS (../shared/models): stories260K's tokenizer joins the seeds
# The corpus grows in $FUZZ_BUILD_DIR/corpus/<target> from run to run; findings land in
# $FUZZ_BUILD_DIR/findings/<target>/ with the log beside them. Replay one: build-fuzz/fuzz-<target> FILE.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-15}
RUNS=${FUZZ_RUNS:-}
TIMEOUT=${FUZZ_TIMEOUT:-25}
JOBS=${FUZZ_JOBS:-1}
SHARED_MODELS=${LLMC_SHARED_MODELS:-$(cd .. && pwd)/shared/models}
ALL_TARGETS=(gguf gguf_config safetensors safetensors_index llama2c llama2c_tokenizer hf_config manifest
             tokenizer_json tokenizer_encode chat_template chat_messages model_dir_json dequant)
read -r -a TARGETS <<< "${FUZZ_TARGETS:-${ALL_TARGETS[*]}}"

# libFuzzer ships with clang's compiler-rt: Debian's clang-22 + libclang-rt-22-dev (scripts/setup.sh).
if ! command -v clang++-22 >/dev/null || [ ! -f "$(clang++-22 -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
  echo "fuzz: no clang-22 with libFuzzer; install clang-22 and libclang-rt-22-dev (scripts/setup.sh)" >&2
  exit 1
fi

# One run per build dir: a second one would rebuild the targets and replace the findings under the first.
mkdir -p "$BUILD_DIR"
exec 9>"$BUILD_DIR/fuzz.lock"
if ! flock -n 9; then
  echo "fuzz: another scripts/fuzz.sh is using $BUILD_DIR (FUZZ_BUILD_DIR names another)" >&2
  exit 1
fi

# As scripts/build.sh: a clone elsewhere (CI) still hits ccache.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=true
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S fuzz -B "$BUILD_DIR" -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
build_t0=$SECONDS
cmake --build "$BUILD_DIR" >"$BUILD_DIR/build.log" 2>&1 || { tail -40 "$BUILD_DIR/build.log"; exit 1; }
echo "fuzz: targets built ($((SECONDS - build_t0)) s; log $BUILD_DIR/build.log)"

rm -rf "$BUILD_DIR/seeds"
python3 fuzz/make_seeds.py "$BUILD_DIR/seeds" "$SHARED_MODELS"

binary() { echo "$BUILD_DIR/fuzz-${1//_/-}"; }
# gguf_config reads the same files as gguf (the frontend's reader instead of the runtime's).
seed_dir() { [ "$1" = gguf_config ] && echo "$BUILD_DIR/seeds/gguf" || echo "$BUILD_DIR/seeds/$1"; }

failed=0
# Findings are those of this run: the previous run's were reported by it.
for target in "${TARGETS[@]}"; do
  rm -rf "$BUILD_DIR/findings/$target"
  mkdir -p "$BUILD_DIR/findings/$target"
done

# Every input that once found a bug, run once: each must pass again.
replayed=0
for target in "${TARGETS[@]}"; do
  inputs=(fuzz/regressions/"$target"/*)
  [ -e "${inputs[0]}" ] || continue
  log="$BUILD_DIR/findings/$target/regressions.log"
  if "$(binary "$target")" -timeout="$TIMEOUT" -rss_limit_mb=2048 "${inputs[@]}" >"$log" 2>&1; then
    replayed=$((replayed + ${#inputs[@]}))
  else
    echo "fuzz: $target: a regression input fails again (see $log)"
    failed=1
  fi
done
echo "fuzz: $replayed regression inputs replayed"

budget=()
[ -z "$RUNS" ] || budget+=(-runs="$RUNS")
if [ -z "$RUNS" ] || [ -n "${FUZZ_SECONDS:-}" ]; then budget+=(-max_total_time="$SECONDS_EACH"); fi
# One target: prints its line and leaves its executions and verdict (0 or 1) in $findings/result.
fuzz_target() {
  local target=$1
  local corpus="$BUILD_DIR/corpus/$target" findings="$BUILD_DIR/findings/$target"
  local log="$findings/fuzz.log" t0=$SECONDS rc=0 execs found status verdict=0
  mkdir -p "$corpus"
  "$(binary "$target")" "${budget[@]}" -timeout="$TIMEOUT" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" "$(seed_dir "$target")" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  execs=${execs:-0}
  found=$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
          -o -name 'oom-*' \) | wc -l)
  status="0 findings"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    status="FINDING (exit $rc; inputs in $findings/, log $log)"
    verdict=1
  fi
  printf 'fuzz: %-18s %10s executions in %4d s, corpus %5d, %s\n' "$target" "$execs" \
    "$((SECONDS - t0))" "$(find "$corpus" -type f | wc -l)" "$status"
  echo "$execs $verdict" >"$findings/result"
}

fuzz_t0=$SECONDS
for target in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  fuzz_target "$target" &
done
wait
total=0
for target in "${TARGETS[@]}"; do
  read -r execs verdict <"$BUILD_DIR/findings/$target/result"
  total=$((total + execs))
  [ "$verdict" -eq 0 ] || failed=1
done
echo "fuzz: ${#TARGETS[@]} targets, $total executions in $((SECONDS - fuzz_t0)) s ($JOBS at a time)"
exit $failed
