#!/usr/bin/env bash
# The bundled sweeps' ci tier (sweeps/*.json): `dmlref gen` makes every case, `dmlref run` passes
# every one (goldens and expectError cases), one thread gives the same bytes as all cores,
# shards are disjoint and add up to the whole, every rule id of docs/rules.md has an error case
# (or a reason in sweeps/errors-exempt.txt), and a wrong expectError fails.
# Usage: gen_sweeps.sh DMLREF SOURCE_ROOT
set -euo pipefail
dmlref=$1
root=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
specs=("$root"/sweeps/*.json)

"$dmlref" gen "${specs[@]}" --tier ci -o "$out/a" > "$out/gen.log" 2>&1 || { cat "$out/gen.log"; echo "dmlref gen failed"; exit 1; }
cat "$out/gen.log"
"$dmlref" run --quiet "$out/a" > "$out/run.log" 2>&1 || { grep -v ' PASS ' "$out/run.log" | head -60; echo "dmlref run over the generated cases failed"; exit 1; }
tail -1 "$out/run.log"
grep -q ' 0 failed, 0 new (no expected values), 0 errors' "$out/run.log" || { echo "some generated case had no expected values"; exit 1; }

# Coverage: every operator x 11 types x its ranks, every applicable feature.
"$dmlref" coverage "$out/a" --fail-on-holes --html "$out/coverage.html" --json "$out/coverage.json" > "$out/coverage.txt" \
  || { cat "$out/coverage.txt"; echo "the ci tier leaves holes in dmlref's scope (a new operator needs its sweep in sweeps/)"; exit 1; }
grep '^Holes:' "$out/coverage.txt"
grep -q '; 0 (operator, feature) pairs without a case' "$out/coverage.txt" || { grep -B1 'holes:' "$out/coverage.txt"; echo "features without a case"; exit 1; }
grep -q '<table>' "$out/coverage.html" || { echo "no HTML coverage page"; exit 1; }

# run on one thread: the same report.
"$dmlref" run --quiet -j 1 "$out/a" > "$out/run1.log" 2>&1 || true
cmp -s "$out/run.log" "$out/run1.log" || { echo "run -j 1 printed a different report"; diff "$out/run.log" "$out/run1.log" | head; exit 1; }
echo "run -j 1: identical report"

# One thread: the same bytes.
"$dmlref" gen "${specs[@]}" --tier ci -j 1 -o "$out/b" > /dev/null
diff -r "$out/a" "$out/b" > /dev/null || { echo "gen -j 1 wrote different bytes"; diff -r "$out/a" "$out/b" | head; exit 1; }
echo "one thread: identical bytes"

# Shards: disjoint, and together the whole.
"$dmlref" gen "${specs[@]}" --tier full --list | grep -v ' cases (tier' | sort > "$out/all.txt"
for i in 0 1 2; do "$dmlref" gen "${specs[@]}" --tier full --shard $i/3 --list | grep -v ' cases (tier'; done | sort > "$out/shards.txt"
cmp -s "$out/all.txt" "$out/shards.txt" || { echo "the shards are not a partition of the full tier"; exit 1; }
[ "$(sort -u "$out/shards.txt" | wc -l)" = "$(wc -l < "$out/shards.txt")" ] || { echo "shards overlap"; exit 1; }
echo "full tier: $(wc -l < "$out/all.txt") cases; shards 0/3, 1/3, 2/3 partition them"

# Every documented rule has an error case, or a reason.
{ grep -rhoE '"expectError": "[^"]*"' "$out/a" | sed -E 's/.*: "(.*)"/\1/'
  grep -rhoE '"Rule": "[^"]*"' "$out/a" | sed -E 's/.*: "(.*)"/\1/'; } | sort -u > "$out/covered.txt"
grep -vE '^(#|$)' "$root/sweeps/errors-exempt.txt" | awk '{print $1}' | sort -u > "$out/exempt.txt"
bash "$root/test/rule_ids.sh" "$root" > "$out/documented.txt"
# rule_ids.sh misses no literal id that starts a table row (an id after a family table was once lost).
for id in $(grep -oE '^\| `[a-z][a-z0-9-]*\.[a-z0-9.-]*`' "$root/docs/rules.md" | tr -d '|` '); do
  grep -qxF "$id" "$out/documented.txt" || { echo "rule_ids.sh missed the documented rule $id"; exit 1; }
done
status=0
while read -r id; do
  grep -qxF "$id" "$out/covered.txt" || grep -qxF "$id" "$out/exempt.txt" || { echo "rule without an error case: $id"; status=1; }
done < "$out/documented.txt"
while read -r id; do
  grep -qxF "$id" "$out/documented.txt" || grep -qF "\`$id\`" "$root/docs/rules.md" || { echo "error case for an undocumented rule: $id"; status=1; }
  ! grep -qxF "$id" "$out/exempt.txt" || { echo "exempt but covered: $id"; status=1; }
done < "$out/covered.txt"
[ $status = 0 ] || exit 1
echo "$(wc -l < "$out/covered.txt") rule ids have error cases; $(wc -l < "$out/exempt.txt") exempt with reasons"

# A planted wrong expectation fails: the same case expecting another rule.
f="$out/a/errors/relu/tensor.sizes.positive.json"
sed 's/"Rule": "tensor.sizes.positive"/"Rule": "tensor.strides.length"/' "$f" > "$out/wrong.json"
set +e
"$dmlref" run "$out/wrong.json" > "$out/wrong.log" 2>&1
rc=$?
set -e
[ $rc = 1 ] && grep -q 'FAIL' "$out/wrong.log" || { cat "$out/wrong.log"; echo "a wrong expectError passed (exit $rc)"; exit 1; }
sed 's/"Path": "[^"]*"/"Path": "\/desc\/OutputTensor"/' "$f" > "$out/wrong-path.json"
set +e
"$dmlref" run "$out/wrong-path.json" > "$out/wrong.log" 2>&1
rc=$?
set -e
[ $rc = 1 ] || { cat "$out/wrong.log"; echo "a wrong expectError path passed (exit $rc)"; exit 1; }
echo "wrong expectError rule and path: FAIL as they should"
