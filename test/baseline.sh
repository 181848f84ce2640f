#!/usr/bin/env bash
# Known-deviation baselines (docs/diff.md, "Baselines"): --write-baseline records a run's failures
# per case, output and reading; --baseline reports new, known and fixed ones and exits 1 only on
# new ones. Planted backends follow alternative readings (run --policy, docs/golden.md).
# Usage: baseline.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"

mkdir -p "$tmp/src"
cp "$root/cases/max_pooling/nan_loses.json" "$root/cases/relu/relu_grad_nan_x_gives_zero.json" \
   "$root/cases/clip/clip_grad1_x_at_min_or_max_gives_zero.json" "$tmp/src/"
"$dmlref" run "$tmp/src" -o "$tmp/gold" -q > /dev/null 2>&1 || bad "run -o"

plant() {  # DIR --policy ...: the outputs of a backend that follows those readings
  local dir=$1
  shift
  "$dmlref" run "$tmp/src" "$@" --npy-outputs "$dir" -q > /dev/null 2>&1
}
plant "$tmp/a1" --policy ArgmaxNaN=NaNWins --policy GradNaN=PassesGradient
plant "$tmp/a2" --policy ArgmaxNaN=NaNWins
plant "$tmp/a3" --policy ArgmaxNaN=NaNWins --policy GradNaN=PassesGradient --policy ClipGradBounds=GradientAtBounds

# Without a baseline the planted backend fails; --write-baseline records its failures.
"$dmlref" diff "$tmp/gold" "$tmp/a1" --write-baseline "$tmp/b.json" > "$tmp/d1.txt" 2>&1
exited 1 $? "diff a1 --write-baseline"
python3 - "$tmp/b.json" <<'EOF' || bad "the written baseline does not hold the two readings' failures"
import json, sys
b = json.load(open(sys.argv[1]))
assert b["dmlrefBaseline"] == 1
got = {(f["case"], f["output"], f["reading"]) for f in b["failures"]}
want = {("max_pooling/nan_loses", "OutputTensor", "ArgmaxNaN=NaNWins"),
        ("max_pooling/nan_loses", "OutputIndicesTensor", "ArgmaxNaN=NaNWins"),
        ("relu_grad/nan_x_gives_zero", "OutputGradientTensor", "GradNaN=PassesGradient")}
assert want <= got, (got, want)
assert all(f["elements"] > 0 for f in b["failures"] if f["reading"] not in ("systematic", "error"))
assert not any(f["case"].startswith("clip") for f in b["failures"]), got
EOF
ls "$tmp"/.b.json* > /dev/null 2>&1 && bad "a temporary file was left beside the baseline"

# The same backend against its baseline: everything known, exit 0.
"$dmlref" diff "$tmp/gold" "$tmp/a1" --baseline "$tmp/b.json" > "$tmp/d2.txt" 2>&1
exited 0 $? "diff a1 --baseline"
grep -q "^baseline .*: 0 new, [1-9][0-9]* known, 0 fixed" "$tmp/d2.txt" || { bad "a1: not all known"; cat "$tmp/d2.txt"; }

# The relu difference fixed: reported fixed, exit 0.
"$dmlref" diff "$tmp/gold" "$tmp/a2" --baseline "$tmp/b.json" > "$tmp/d3.txt" 2>&1
exited 0 $? "diff a2 --baseline"
grep -q "^  fixed  relu_grad/nan_x_gives_zero OutputGradientTensor: .* follows\? GradNaN=PassesGradient" "$tmp/d3.txt" \
  || { bad "a2: the relu failure is not reported fixed"; cat "$tmp/d3.txt"; }

# A new reading: reported new, exit 1, also in the JSON report.
"$dmlref" diff "$tmp/gold" "$tmp/a3" --baseline "$tmp/b.json" --json "$tmp/r3.json" > "$tmp/d4.txt" 2>&1
exited 1 $? "diff a3 --baseline"
grep -q "^  new    clip_grad1/x_at_min_or_max_gives_zero OutputGradientTensor: 2 elements follow ClipGradBounds=GradientAtBounds" "$tmp/d4.txt" \
  || { bad "a3: the new reading is not reported"; cat "$tmp/d4.txt"; }
python3 - "$tmp/r3.json" <<'EOF' || bad "the JSON report's baseline section"
import json, sys
r = json.load(open(sys.argv[1]))
b = r["baseline"]
assert [n["reading"] for n in b["new"]] == ["ClipGradBounds=GradientAtBounds"], b["new"]
assert b["new"][0]["baseline_elements"] == 0
assert len(b["known"]) >= 3 and b["fixed"] == []
EOF

# More elements than the baseline knows is new; dmlref's own outputs fix everything.
python3 - "$tmp/b.json" "$tmp/b-small.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
for f in b["failures"]:
    if f["reading"] == "ArgmaxNaN=NaNWins" and f["output"] == "OutputTensor": f["elements"] -= 1
json.dump(b, open(sys.argv[2], "w"))
EOF
"$dmlref" diff "$tmp/gold" "$tmp/a1" --baseline "$tmp/b-small.json" > "$tmp/d5.txt" 2>&1
exited 1 $? "diff a1 --baseline with one element fewer known"
grep -q "^  new    max_pooling/nan_loses OutputTensor: .*(the baseline has " "$tmp/d5.txt" || { bad "growth not reported new"; cat "$tmp/d5.txt"; }
plant "$tmp/own"
"$dmlref" diff "$tmp/gold" "$tmp/own" --baseline "$tmp/b.json" > "$tmp/d6.txt" 2>&1
exited 0 $? "diff own --baseline"
grep -q "^baseline .*: 0 new, 0 known, [1-9][0-9]* fixed" "$tmp/d6.txt" || { bad "own outputs: not all fixed"; cat "$tmp/d6.txt"; }

# Bad baselines: exit 2 with the rule id, before anything is compared.
echo '{"dmlrefBaseline": 1, "failures": [{"case": "x"}]}' > "$tmp/bad1.json"
echo 'not json' > "$tmp/bad2.json"
echo '{"failures": []}' > "$tmp/bad3.json"
# A duplicate key: the strict reader refuses it (the last one no longer wins).
echo '{"dmlrefBaseline": 1, "failures": [], "failures": [{"case": "x", "output": "y", "reading": "none", "elements": 1}]}' > "$tmp/bad4.json"
for f in bad1 bad2 bad3 bad4; do
  "$dmlref" diff "$tmp/gold" "$tmp/a1" --baseline "$tmp/$f.json" > "$tmp/out.txt" 2> "$tmp/err.txt"
  exited 2 $? "--baseline $f"
  grep -q "\[baseline.format\]" "$tmp/err.txt" || { bad "$f: no [baseline.format]"; cat "$tmp/err.txt"; }
done
"$dmlref" diff "$tmp/gold" "$tmp/a1" --baseline "$tmp/missing.json" > /dev/null 2> "$tmp/err.txt"
exited 2 $? "--baseline missing"
grep -q "\[baseline.read\]" "$tmp/err.txt" || bad "missing baseline: no [baseline.read]"
# --write-baseline never writes through a link (lib/atomic_file).
ln -s "$tmp/b.json" "$tmp/link.json"
"$dmlref" diff "$tmp/gold" "$tmp/a2" --write-baseline "$tmp/link.json" > /dev/null 2> "$tmp/err.txt"
exited 2 $? "--write-baseline through a link"
grep -q "GradNaN=PassesGradient" "$tmp/b.json" || bad "the baseline behind the link was changed"

# A case name with a newline and a terminal escape in a baseline is printed escaped: it forges no
# "new" line and clears no screen.
printf '{"dmlrefBaseline": 1, "failures": [{"case": "x\\n  new    forged: 9 elements\\u001b[2J", "output": "OutputTensor", "reading": "none", "elements": 1}]}\n' > "$tmp/forge.json"
"$dmlref" diff "$tmp/gold" "$tmp/own" --baseline "$tmp/forge.json" > "$tmp/d7.txt" 2>&1
exited 0 $? "diff own --baseline forge.json"
if grep -q $'\x1b' "$tmp/d7.txt"; then bad "a terminal escape from the baseline reached the report"
elif grep -q "^  new    forged" "$tmp/d7.txt"; then bad "a baseline's case name forged a new line"; cat "$tmp/d7.txt"
else ok "baseline names are printed escaped"; fi

finish "baseline: new, known and fixed failures reported"
