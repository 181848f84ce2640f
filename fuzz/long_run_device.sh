#!/usr/bin/env bash
# The long fuzz run (docs/fuzzing.md) on a many-core host with no compiler: each target of TARGETS
# (default all six) as `nproc - 2` libFuzzer jobs sharing TOTAL inputs (default ten million), one
# target after the other, each capped at SECS seconds (default 150). Counts come from libFuzzer's
# logs (stat::number_of_executed_units summed over the jobs).
# FUZZ_DIR holds what the host needs: fuzz/<target> as fuzz/run.sh builds them, lib/ with their
# shared libraries, corpus/{case,npy,gen,dxdispatch,baseline} (the seeds fuzz/run.sh makes) and
# case.dict. Results go to $OUT (summary.txt, logs.tgz).
set -u
t0=$(date +%s)
D=${FUZZ_DIR:-$PWD/.dev/robust/fz}
export LD_LIBRARY_PATH=$D/lib
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
W=/tmp/fz; rm -rf $W; mkdir -p $W/findings
S=$OUT/summary.txt
N=$(( $(nproc) - 2 )); [ $N -gt 120 ] && N=120
{ echo "host: $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo); jobs per target: $N"; date -u; } > $S
common=(-max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
seeds() { case $1 in fuzz_case) echo case;; fuzz_gen) echo gen;; fuzz_dxdispatch) echo dxdispatch;; fuzz_baseline) echo baseline;; *) echo npy;; esac; }
dict() { case $1 in fuzz_case|fuzz_gen|fuzz_dxdispatch) echo "-dict=$D/case.dict";; *) echo "-seed=0";; esac; }
runs=$(( (${TOTAL:-10000000} + N - 1) / N ))
targets=${TARGETS:-fuzz_npy fuzz_diff fuzz_baseline fuzz_dxdispatch fuzz_gen fuzz_case}
for t in $targets; do
  mkdir -p $W/run_$t && cd $W/run_$t
  cp -r $D/corpus/$(seeds $t) corpus
  $D/fuzz/$t "${common[@]}" $(dict $t) -jobs=$N -workers=$N -runs=$runs -max_total_time=${SECS:-150} \
    -artifact_prefix=$W/findings/$t- corpus > main.log 2>&1
  rc=$?
  total=0; finds=0
  for f in $W/run_$t/fuzz-*.log; do
    n=$(grep -E '^stat::number_of_executed_units' "$f" | tail -1 | awk '{print $2}')
    total=$(( total + ${n:-0} ))
    finds=$(( finds + $(grep -cE 'ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error' "$f") ))
  done
  echo "$t: $N jobs of $runs (cap ${SECS:-150} s), exit $rc, $total inputs, findings $finds, done at $(( $(date +%s) - t0 )) s" >> $S
done
ls -la $W/findings >> $S
cd $W && tar czf $OUT/logs.tgz run_*/fuzz-*.log run_*/main.log findings 2>/dev/null
cat $S
