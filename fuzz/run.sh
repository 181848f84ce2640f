#!/usr/bin/env bash
# Builds the libFuzzer targets with clang, ASan and UBSan (in $BUILD, default build-fuzz) and runs
# each for SECONDS (default 60) on its seed corpus: the bundled cases/ for fuzz_case, the .npy
# files `dmlref run cases --npy` writes for fuzz_npy and fuzz_diff, the bundled sweeps and a few
# specs and descriptors for fuzz_gen, exported models for fuzz_dxdispatch, baselines for
# fuzz_baseline. Further arguments go to
# libFuzzer (e.g. -runs=10000000). A finding lands in $BUILD/fuzz-findings/ and the script exits
# non-zero. docs/fuzzing.md.
# With JOBS=N, each target runs as N libFuzzer jobs at once (-jobs=N -workers=N; -runs and
# -max_total_time then hold per job), and the script prints the inputs all jobs ran together.
# With PARALLEL=N, N targets run at once, each still for SECONDS (CI: one per core); their
# summaries print in target order once all have run.
# Usage: fuzz/run.sh [SECONDS] [LIBFUZZER-ARGS...]   (TARGETS="fuzz_npy" to run only some; JOBS=16)
set -euo pipefail
trap 'echo "fuzz/run.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=${BUILD:-build-fuzz}
targets=${TARGETS:-fuzz_case fuzz_npy fuzz_diff fuzz_gen fuzz_dxdispatch fuzz_baseline}
jobs=${JOBS:-1}
parallel=${PARALLEL:-1}
if [ ! -f "$build/build.ninja" ]; then
  CXX=${CXX_FUZZ:-clang++} meson setup "$build" --wrap-mode=nodownload -Dbuildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false -Dfuzz=true \
    -Dcpp_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" >/dev/null
fi
for t in $targets; do meson compile -C "$build" "fuzz/$t" >/dev/null; done
meson compile -C "$build" tools/dmlref >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
mkdir -p "$corpus/case" "$corpus/npy" "$corpus/gen" "$corpus/dxdispatch" "$corpus/baseline" "$build/fuzz-findings"
find cases -name '*.json' -exec cp {} "$corpus/case/" \;
"$build/tools/dmlref" run -q cases --npy "$corpus/dump" >/dev/null
# The first 200 in name order. awk reads to the end: `head` would exit early and, under pipefail,
# find's SIGPIPE would end the script with no message (it did in CI once the cases passed 200 .npy).
find "$corpus/dump" -name '*.npy' | sort | awk 'NR <= 200' | while read -r f; do cp "$f" "$corpus/npy/$(echo "$f" | md5sum | cut -c1-16).npy"; done
# gen: the bundled sweeps, specs with defs, use and deep products (the shapes that once recursed
# without end or expanded past the memory), and descriptors.
cp sweeps/*.json "$corpus/gen/"
cat > "$corpus/gen/defs.json" <<'SPEC'
{"sweep": 1, "name": "d", "defs": {"a": {"pointer": "/x", "values": [1, 2, 3]}, "b": {"product": [{"use": "a"}, {"axis": "k", "pointer": "/k", "values": [0, 1]}]},
 "c": {"concat": [{"use": "b"}, {"zip": [{"use": "a"}, {"use": "a"}]}]}}, "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"use": "c"}}
SPEC
cat > "$corpus/gen/cycle.json" <<'SPEC'
{"sweep": 1, "name": "c", "defs": {"a": {"use": "b"}, "b": {"byTier": {"ci": {"use": "a"}}}}, "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"use": "a"}}
SPEC
printf 'MAX_POOLING_GRAD FLOAT16 2x3x9x9 w3x3 s2x2 p1,1,0,0 d1x1 ceil seed=7' > "$corpus/gen/d1.txt"
printf 'RESAMPLE2 FLOAT32 2x3 linear down sc2x1.5 io0.5x0.5 oo-0.5x-0.5' > "$corpus/gen/d2.txt"
printf 'ELEMENT_WISE_CLIP1 UINT8 4x4 min=2 max=9 inplace recipe=min-max' > "$corpus/gen/d3.txt"
# dxdispatch: the models export-dxdispatch writes for the first 40 bundled cases.
find cases -name '*.json' | sort | awk 'NR <= 40' | while read -r f; do
  "$build/tools/dmlref" export-dxdispatch "$f" -o "$corpus/dxdispatch/$(echo "$f" | md5sum | cut -c1-16).json" >/dev/null 2>&1 || true
done
# baseline: a baseline `diff --write-baseline` would write, and an empty one.
printf '{"dmlrefBaseline": 1, "failures": [{"case": "max_pooling/nan_loses", "output": "OutputTensor", "reading": "ArgmaxNaN=NaNWins", "elements": 2}]}\n' > "$corpus/baseline/one.json"
printf '{"dmlrefBaseline": 1, "failures": []}\n' > "$corpus/baseline/empty.json"
# fuzz_one T: runs target T; its summary goes to $build/fuzz-findings/T.summary, and it exits
# non-zero on a finding.
fuzz_one() {
  local t=$1 seeds extra log findings dir bin rc
  case $t in
    fuzz_case) seeds=$corpus/case; extra=(-dict="$PWD/fuzz/case.dict") ;;
    fuzz_gen) seeds=$corpus/gen; extra=(-dict="$PWD/fuzz/case.dict") ;;
    fuzz_dxdispatch) seeds=$corpus/dxdispatch; extra=(-dict="$PWD/fuzz/case.dict") ;;
    fuzz_baseline) seeds=$corpus/baseline; extra=() ;;
    *) seeds=$corpus/npy; extra=() ;;
  esac
  log="$build/fuzz-findings/$t.log"
  findings=$(realpath "$build/fuzz-findings")
  {
    echo "fuzzing $t for ${seconds}s${JOBS:+ in $jobs jobs}"
    set +e
    if [ "$jobs" -gt 1 ]; then
      # libFuzzer writes each job's log to fuzz-J.log in the working folder.
      dir="$findings/$t-jobs"
      rm -rf "$dir" && mkdir -p "$dir"
      bin=$(realpath "$build/fuzz/$t")
      (cd "$dir" && "$bin" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$findings/$t-" -jobs="$jobs" -workers="$jobs" "${extra[@]}" "${args[@]}" "$seeds") >"$log" 2>&1
      rc=$?
      cat "$dir"/fuzz-*.log >>"$log"
      echo "$t: $(awk '/^stat::number_of_executed_units/ {s += $2} END {print s + 0}' "$dir"/fuzz-*.log) inputs in $jobs jobs"
      grep -qE '^==[0-9]+==ERROR|runtime error|deadly signal' "$dir"/fuzz-*.log && rc=1
    else
      "$build/fuzz/$t" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$findings/$t-" "${extra[@]}" "${args[@]}" "$seeds" >"$log" 2>&1
      rc=$?
    fi
    set -e
    grep -E '^(stat::number_of_executed_units|Done)' "$log" | tail -2 || true
    if [ "$rc" -ne 0 ]; then tail -60 "$log"; echo "$t: a finding (exit $rc), see $build/fuzz-findings/"; fi
  } >"$build/fuzz-findings/$t.summary" 2>&1
  return "$rc"
}
args=("$@")
# Targets in batches of $parallel; every summary printed, then the first finding ends the script.
failed=""
set -- $targets
while [ $# -gt 0 ]; do
  batch=()
  while [ $# -gt 0 ] && [ ${#batch[@]} -lt "$parallel" ]; do batch+=("$1"); shift; done
  pids=()
  for t in "${batch[@]}"; do fuzz_one "$t" & pids+=($!); done
  for k in "${!batch[@]}"; do
    wait "${pids[$k]}" || failed="$failed ${batch[$k]}"
    cat "$build/fuzz-findings/${batch[$k]}.summary"
  done
  [ -z "$failed" ] || break
done
if [ -n "$failed" ]; then echo "fuzz/run.sh: findings in:$failed" >&2; exit 1; fi
