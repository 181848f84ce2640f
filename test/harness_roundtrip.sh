#!/usr/bin/env bash
# A harness's round trip: `dmlref run --npy IN --npy-outputs OUT` writes every case's input
# buffers to IN and dmlref's own outputs to OUT, never to the same place. `dmlref diff` of the
# goldens against OUT passes for every case; against IN (a harness that computed nothing) and
# against OUT with one case's outputs missing (a harness that skipped it) it must not pass.
# Usage: harness_roundtrip.sh DMLREF CASES
set -euo pipefail
dmlref=$1
cases=$2
. "$(dirname "$0")/lib.sh"

"$dmlref" run --quiet "$cases" --npy "$tmp/in" --npy-outputs "$tmp/dmlref" > "$tmp/run.log" || { cat "$tmp/run.log"; fail "dmlref run"; }

# The inputs directory holds inputs only: no output field's file is there.
inputs=$(find "$tmp/in" -name '*.npy' | wc -l)
[ "$inputs" -gt 0 ] || fail "no input .npy files written"
for f in OutputTensor OutputGradientTensor OutputIndicesTensor; do
  [ -z "$(find "$tmp/in" -name "$f.npy" -print -quit)" ] || fail "an output ($f.npy) was written beside the inputs"
done

# dmlref's own outputs, read back, pass.
"$dmlref" diff "$cases" "$tmp/dmlref" > "$tmp/diff.log" || { cat "$tmp/diff.log"; fail "diff of the goldens against dmlref's own outputs"; }
tail -1 "$tmp/diff.log"
# Progress lines are for terminals: with stderr a file, no carriage return or escape reaches it;
# under a pseudo-terminal (script(1), where present) the directory diff shows one per case.
"$dmlref" diff "$cases" "$tmp/dmlref" > /dev/null 2> "$tmp/diff.err" || fail "diff with stderr to a file"
if grep -q $'\r\|\x1b' "$tmp/diff.err"; then fail "a progress line reached a file"; fi
if command -v script > /dev/null; then
  script -qc "'$dmlref' diff '$cases' '$tmp/dmlref' > /dev/null" /dev/null > "$tmp/diff.tty" 2>&1 || true
  grep -q '\[1/' "$tmp/diff.tty" || fail "no progress line on a terminal"
fi

# A harness that wrote nothing: diff against the inputs directory is an error (exit 2), not a pass.
set +e
"$dmlref" diff "$cases" "$tmp/in" > "$tmp/diff-in.log" 2>&1
rc=$?
set -e
[ $rc = 2 ] || { tail -5 "$tmp/diff-in.log"; fail "diff against the inputs directory exited $rc, expected 2"; }

# A harness that skipped one case: that case is an error, so the run does not pass.
victim=$(find "$tmp/dmlref" -name '*.npy' | sort | sed -n 1p)
rm -f "$victim"
set +e
"$dmlref" diff "$cases" "$tmp/dmlref" > "$tmp/diff-skip.log" 2>&1
rc=$?
set -e
[ $rc = 2 ] || { tail -5 "$tmp/diff-skip.log"; fail "diff with a skipped case ($victim removed) exited $rc, expected 2"; }

# The two switches may not name one directory.
set +e
"$dmlref" run --quiet "$cases" --npy "$tmp/same" --npy-outputs "$tmp/same/" > "$tmp/same.log" 2>&1
rc=$?
set -e
[ $rc = 2 ] || fail "--npy and --npy-outputs naming one directory exited $rc, expected 2"
[ ! -e "$tmp/same" ] || fail "a refused run wrote files"
echo "inputs and outputs kept apart; skipped and empty harness outputs are errors"
