#!/usr/bin/env bash
# The rest of the long fuzz run (docs/fuzzing.md): fuzz_case and fuzz_diff, ten million inputs
# each, spread over every core of a many-core host (one call). Counts come from libFuzzer's logs.
# FUZZ_DIR holds what the host needs (it has no compiler): fuzz/fuzz_{case,diff} as fuzz/run.sh
# builds them, lib/ with their shared libraries, corpus/{case,npy} (fuzz/corpus) and case.dict.
# Options: TOTAL (inputs per target, 10000000), CASE_SECS (fuzz_case's cap, 300), SKIP_DIFF=1.
# Results go to $OUT (summary.txt, logs.tgz).
set -u
t0=$(date +%s)
D=${FUZZ_DIR:-$PWD/.dev/robust/fz}
export LD_LIBRARY_PATH=$D/lib
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
W=/tmp/fz; rm -rf $W; mkdir -p $W/findings
S=$OUT/summary.txt
N=$(( $(nproc) - 2 )); [ $N -gt 120 ] && N=120
{ echo "host: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo); jobs per target: $N"; date -u; } > $S
mkdir -p $W/seed_case $W/seed_npy && cp $D/corpus/case/* $W/seed_case/ && cp $D/corpus/npy/* $W/seed_npy/
common=(-max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
seeds() { case $1 in fuzz_case) echo "$W/seed_case";; *) echo "$W/seed_npy";; esac; }
dict() { case $1 in fuzz_case) echo "-dict=$D/case.dict";; *) echo "-seed=0";; esac; }
runs=$(( (${TOTAL:-10000000} + N - 1) / N ))
jobs() {
  local t=$1 secs=$2
  mkdir -p $W/run_$t && cd $W/run_$t
  cp -r $(seeds $t) corpus
  $D/fuzz/$t "${common[@]}" $(dict $t) -jobs=$N -workers=$N -runs=$runs -max_total_time=$secs \
    -artifact_prefix=$W/findings/$t- corpus > main.log 2>&1
  echo "$t: $N jobs of $runs, exit $?, $(date -u +%T), at $(( $(date +%s) - t0 )) s" >> $S
}
jobs fuzz_case ${CASE_SECS:-300}
[ -n "${SKIP_DIFF:-}" ] || jobs fuzz_diff $(( 520 - ($(date +%s) - t0) ))
for t in fuzz_case fuzz_diff; do
  total=0; finds=0
  [ -d $W/run_$t ] || continue
  for f in $W/run_$t/fuzz-*.log; do
    n=$(grep -E '^stat::number_of_executed_units' "$f" | tail -1 | awk '{print $2}')
    total=$(( total + ${n:-0} ))
    finds=$(( finds + $(grep -cE 'ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error' "$f") ))
  done
  echo "$t total executed units: $total; findings: $finds" >> $S
done
ls -la $W/findings >> $S
cd $W && tar czf $OUT/logs.tgz run_*/fuzz-*.log run_*/main.log findings 2>/dev/null
cat $S
