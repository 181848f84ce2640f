#!/usr/bin/env bash
# The bundled sweeps' ci tier (sweeps/*.json): `dmlref gen` makes every case, `dmlref run` passes
# every one (goldens and expectError cases), one thread gives the same bytes as all cores,
# shards are disjoint and add up to the whole, every rule id of docs/rules.md has an error case
# (or a reason in sweeps/errors-exempt.txt), and a wrong expectError fails.
# Usage: gen_sweeps.sh DMLREF SOURCE_ROOT; DMLREF_TEST_TIER=sanitizer runs a fifth of the cases
# and leaves the checks of the whole tier to the release build.
set -euo pipefail
dmlref=$1
root=$2
# `dmlref gen` writes each case as a file of its own, atomically: a temporary file, fsync, rename
# (lib/case/atomic_file.cpp). On the 2-core VM's disk, busy with other builds, the ci tier's 22,492
# fsyncs made most of this test's time (gen: 189 s of wall time for 28 s of CPU, 41 s when quieter;
# a quarter of the tier 31 s on the disk, 7 s in memory). The scratch folder is in /dev/shm (memory, where fsync returns at once) where it has
# room for the tier's cases (about 100 MB; 200 MB free asked), elsewhere where it was (TMPDIR or /tmp).
if [ -d /dev/shm ] && [ -w /dev/shm ] &&
  [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $4}')" -gt 204800 ] 2>/dev/null; then
  export TMPDIR=/dev/shm
fi
. "$(dirname "$0")/lib.sh"
specs=("$root"/sweeps/*.json)

# The sanitizer build runs a fifth of the ci tier's cases (every fifth one: all 180 sweeps, so
# every operator, are in it, as `dmlref gen --list` shows; a sixth drops one sweep;
# DMLREF_SANITIZER_SHARD=1/5 gives the next fifth, 0/1 all): the sanitizers at -O0 (.ci/run) slow
# it about ten times, it is the sanitizer tests' longest (319 s of a cold CI run at a quarter), and
# the checks of the whole tier below (coverage, rule ids) are the release build's.
shard=0/1
[ "${DMLREF_TEST_TIER:-release}" = sanitizer ] && shard=${DMLREF_SANITIZER_SHARD:-0/5}
"$dmlref" gen "${specs[@]}" --tier ci --shard "$shard" -o "$tmp/a" > "$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log"; fail "dmlref gen failed"; }
cat "$tmp/gen.log"
"$dmlref" run --quiet "$tmp/a" > "$tmp/run.log" 2>&1 || { grep -v ' PASS ' "$tmp/run.log" | head -60; fail "dmlref run over the generated cases failed"; }
tail -1 "$tmp/run.log"
grep -q ' 0 failed, 0 new (no expected values), 0 errors' "$tmp/run.log" || fail "some generated case had no expected values"

if [ "$shard" != 0/1 ]; then
  echo "sanitizer tier: shard $shard of the ci tier run; coverage, shards and rule ids are the release build's checks"
  exit 0
fi

# Coverage: every operator x 11 types x its ranks, every applicable feature.
"$dmlref" coverage "$tmp/a" --all --fail-on-holes --html "$tmp/coverage.html" --json "$tmp/coverage.json" > "$tmp/coverage.txt" \
  || { cat "$tmp/coverage.txt"; fail "the ci tier leaves holes in dmlref's scope (a new operator needs its sweep in sweeps/)"; }
grep '^Holes:' "$tmp/coverage.txt"
grep -q '; 0 (operator, feature) pairs without a case' "$tmp/coverage.txt" || { grep -B1 'holes:' "$tmp/coverage.txt"; fail "features without a case"; }
grep -q '<table>' "$tmp/coverage.html" || fail "no HTML coverage page"

if [ "${DMLREF_TEST_TIER:-release}" = sanitizer ]; then
  echo "sanitizer tier: the one-thread repeats of run and gen are left to the release build"
else
  # run on one thread: the same report.
  "$dmlref" run --quiet -j 1 "$tmp/a" > "$tmp/run1.log" 2>&1 || true
  cmp -s "$tmp/run.log" "$tmp/run1.log" || { echo "run -j 1 printed a different report"; diff "$tmp/run.log" "$tmp/run1.log" | head; exit 1; }
  echo "run -j 1: identical report"

  # One thread: the same bytes, over every fourth case (shard 0/4: every sweep and family is in
  # it; the whole tier on one thread cost a minute of CI).
  "$dmlref" gen "${specs[@]}" --tier ci --shard 0/4 -j 1 -o "$tmp/b" > /dev/null
  # Each file of b against a's of the same name, by their SHA-256 in one pass over each folder (a
  # cmp per file was 5,623 processes: minutes of a loaded VM). A file a lacks fails sha256sum.
  (cd "$tmp/b" && find . -type f | sort) > "$tmp/b.txt"
  nb=$(wc -l < "$tmp/b.txt")
  (cd "$tmp/b" && xargs -d '\n' sha256sum < "$tmp/b.txt") > "$tmp/b.sum"
  (cd "$tmp/a" && xargs -d '\n' sha256sum < "$tmp/b.txt") > "$tmp/a.sum" 2> "$tmp/a.err" ||
    { head "$tmp/a.err"; fail "gen -j 1 wrote files gen did not"; }
  cmp -s "$tmp/a.sum" "$tmp/b.sum" || { echo "gen -j 1 wrote different bytes:"; diff "$tmp/a.sum" "$tmp/b.sum" | head; exit 1; }
  [ "$nb" -gt 1000 ] || fail "gen --shard 0/4 -j 1 wrote only $nb files"
  echo "one thread: identical bytes ($nb files of shard 0/4)"
fi

# Shards: disjoint, and together the whole.
"$dmlref" gen "${specs[@]}" --tier full --list | grep -v ' cases (tier' | sort > "$tmp/all.txt"
for i in 0 1 2; do "$dmlref" gen "${specs[@]}" --tier full --shard $i/3 --list | grep -v ' cases (tier'; done | sort > "$tmp/shards.txt"
cmp -s "$tmp/all.txt" "$tmp/shards.txt" || fail "the shards are not a partition of the full tier"
[ "$(sort -u "$tmp/shards.txt" | wc -l)" = "$(wc -l < "$tmp/shards.txt")" ] || fail "shards overlap"
echo "full tier: $(wc -l < "$tmp/all.txt") cases; shards 0/3, 1/3, 2/3 partition them"

# Every documented rule has an error case, or a reason.
{ grep -rhoE '"expectError": "[^"]*"' "$tmp/a" | sed -E 's/.*: "(.*)"/\1/'
  grep -rhoE '"Rule": "[^"]*"' "$tmp/a" | sed -E 's/.*: "(.*)"/\1/'; } | sort -u > "$tmp/covered.txt"
grep -vE '^(#|$)' "$root/sweeps/errors-exempt.txt" | awk '{print $1}' | sort -u > "$tmp/exempt.txt"
bash "$root/test/rule_ids.sh" "$root" > "$tmp/documented.txt"
# rule_ids.sh misses no literal id that starts a table row (an id after a family table was once lost).
# The checks below are set differences, each one grep over the lists (grep -vxF -f: the lines of a
# file that are not a line of the other), not a grep per id.
grep -oE '^\| `[a-z][a-z0-9-]*\.[a-z0-9.-]*`' "$root/docs/rules.md" | tr -d '|` ' | sort -u > "$tmp/tabled.txt"
missed=$(grep -vxF -f "$tmp/documented.txt" "$tmp/tabled.txt" || true)
[ -z "$missed" ] || fail "rule_ids.sh missed the documented rule(s) $(echo $missed)"
status=0
cat "$tmp/covered.txt" "$tmp/exempt.txt" > "$tmp/accounted.txt"
lacking=$(grep -vxF -f "$tmp/accounted.txt" "$tmp/documented.txt" || true)
[ -z "$lacking" ] || { sed 's/^/rule without an error case: /' <<< "$lacking"; status=1; }
while read -r id; do  # the few covered ids rule_ids.sh does not list: named in rules.md's text?
  grep -qF "\`$id\`" "$root/docs/rules.md" || { echo "error case for an undocumented rule: $id"; status=1; }
done < <(grep -vxF -f "$tmp/documented.txt" "$tmp/covered.txt" || true)
both=$(grep -xF -f "$tmp/exempt.txt" "$tmp/covered.txt" || true)
[ -z "$both" ] || { sed 's/^/exempt but covered: /' <<< "$both"; status=1; }
[ $status = 0 ] || exit 1
echo "$(wc -l < "$tmp/covered.txt") rule ids have error cases; $(wc -l < "$tmp/exempt.txt") exempt with reasons"

# A planted wrong expectation fails: the same case expecting another rule.
f="$tmp/a/errors/relu/tensor.sizes.positive.json"
sed 's/"Rule": "tensor.sizes.positive"/"Rule": "tensor.strides.length"/' "$f" > "$tmp/wrong.json"
set +e
"$dmlref" run "$tmp/wrong.json" > "$tmp/wrong.log" 2>&1
rc=$?
set -e
[ $rc = 1 ] && grep -q 'FAIL' "$tmp/wrong.log" || { cat "$tmp/wrong.log"; fail "a wrong expectError passed (exit $rc)"; }
sed 's/"Path": "[^"]*"/"Path": "\/desc\/OutputTensor"/' "$f" > "$tmp/wrong-path.json"
set +e
"$dmlref" run "$tmp/wrong-path.json" > "$tmp/wrong.log" 2>&1
rc=$?
set -e
[ $rc = 1 ] || { cat "$tmp/wrong.log"; fail "a wrong expectError path passed (exit $rc)"; }
echo "wrong expectError rule and path: FAIL as they should"
