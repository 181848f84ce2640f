#!/usr/bin/env bash
# `dmlref reduce` against planted buggy backends (test/planted_backend.py: dmlref's own outputs
# with one bug class planted): a large case shrinks to a case of a few elements on which the
# backend still fails the same way; a correct backend has nothing to reduce.
# Usage: reduce_planted.sh DMLREF SOURCE_ROOT
set -euo pipefail
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
backend() { echo "python3 $root/test/planted_backend.py $dmlref $1"; }

cat > "$tmp/relu_grad_big.json" <<'JSON'
{"format": 1, "name": "relu_grad_big", "operator": "ACTIVATION_RELU_GRAD",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4, 6, 8]},
          "InputGradientTensor": {"DataType": "FLOAT32", "Sizes": [4, 6, 8]},
          "OutputGradientTensor": {"DataType": "FLOAT32", "Sizes": [4, 6, 8]}},
 "inputs": {"InputTensor": {"Random": {"Seed": 7, "Distribution": "Uniform", "Min": -1, "Max": 1}},
            "InputGradientTensor": {"Fill": -0.0}}}
JSON
cat > "$tmp/max_pool_big.json" <<'JSON'
{"format": 1, "name": "max_pool_big", "operator": "MAX_POOLING",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2, 10, 12]},
          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2, 8, 10]},
          "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [3, 3], "StartPadding": [0, 0], "EndPadding": [0, 0]},
 "inputs": {"InputTensor": {"Random": {"Seed": 3, "Distribution": "Uniform", "Min": -1, "Max": 1, "SpecialFraction": 0.3}}}}
JSON
cat > "$tmp/resample_big.json" <<'JSON'
{"format": 1, "name": "resample_big", "operator": "RESAMPLE1",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2, 6, 7]},
          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 2, 12, 14]},
          "InterpolationMode": "NEAREST_NEIGHBOR", "DimensionCount": 4,
          "Scales": [1, 1, 2, 2], "InputPixelOffsets": [0.5, 0.5, 0.5, 0.5], "OutputPixelOffsets": [-0.5, -0.5, -0.5, -0.5]},
 "inputs": {"InputTensor": {"Random": {"Seed": 5, "Distribution": "Uniform", "Min": 0, "Max": 3}}}}
JSON

# The number of logical elements of every tensor of a case file, and its failure kind line.
elements() { python3 -c "
import json, math, sys
d = json.load(open(sys.argv[1]))['desc']
print(sum(math.prod(v['Sizes']) for v in d.values() if isinstance(v, dict) and 'Sizes' in v))" "$1"; }

check() {  # case bug expected-class max-elements
  local case=$1 bug=$2 class=$3 most=$4
  "$dmlref" reduce "$tmp/$case.json" --backend "$(backend "$bug")" -o "$tmp/$case.reduced.json" > "$tmp/$case.log" 2>&1 \
    || { cat "$tmp/$case.log"; fail "reduce $case"; }
  grep -q "kept failure: .* $class;" "$tmp/$case.log" || { cat "$tmp/$case.log"; fail "$case: not the $class failure"; }
  local before after
  before=$(elements "$tmp/$case.json"); after=$(elements "$tmp/$case.reduced.json")
  [ "$after" -le "$most" ] || { cat "$tmp/$case.log"; fail "$case: $before -> $after elements, expected at most $most"; }
  # The reproducer is a valid golden, and the planted backend still fails on it.
  "$dmlref" run --quiet "$tmp/$case.reduced.json" > /dev/null || fail "$case: the reduced golden does not run clean"
  mkdir -p "$tmp/$case.actual"
  $(backend "$bug") "$tmp/$case.reduced.json" "$tmp/$case.actual"
  set +e; "$dmlref" diff "$tmp/$case.reduced.json" "$tmp/$case.actual" > "$tmp/$case.diff" 2>&1; rc=$?; set -e
  [ $rc = 1 ] || { cat "$tmp/$case.diff"; fail "$case: the planted backend passes the reduced case (diff exit $rc)"; }
  echo "$case ($bug): $before -> $after elements"
}

check relu_grad_big negative-zero SignedZero 3
check max_pool_big inf-to-max Infinity 2
check resample_big last-bit Finite 2

# A correct backend (no bug planted): nothing to reduce, exit 1, nothing written.
set +e
"$dmlref" reduce "$tmp/relu_grad_big.json" --backend "$(backend none)" -o "$tmp/none.json" > "$tmp/none.log" 2>&1
rc=$?
set -e
[ $rc = 1 ] || { cat "$tmp/none.log"; fail "reduce with a correct backend exited $rc, expected 1"; }
[ ! -e "$tmp/none.json" ] || fail "reduce with a correct backend wrote a file"
echo "a correct backend: nothing to reduce"

# A backend that crashes, writes garbage, writes nothing or hangs on the original: an error (exit
# 2, rule reduce.backend), never "nothing to reduce" (exit 1), which a CI job would read as a pass.
printf '#!/bin/sh\nkill -SEGV $$\n' > "$tmp/crash.sh"
printf '#!/bin/sh\nfor f in OutputTensor InputGradientTensor OutputGradientTensor; do echo garbage > "$2/$f.npy"; done\n' > "$tmp/garbage.sh"
printf '#!/bin/sh\nexit 0\n' > "$tmp/nothing.sh"
printf '#!/bin/sh\nsleep 1000\n' > "$tmp/hang.sh"
for b in crash garbage nothing hang; do
  set +e
  start=$(date +%s)
  timeout 60 "$dmlref" reduce "$tmp/relu_grad_big.json" --backend "sh $tmp/$b.sh" --timeout 2 -o "$tmp/$b.json" > "$tmp/$b.log" 2>&1
  rc=$?
  set -e
  [ $rc = 2 ] || { cat "$tmp/$b.log"; fail "reduce with a backend that does '$b' exited $rc, expected 2"; }
  grep -q 'reduce.backend' "$tmp/$b.log" || { cat "$tmp/$b.log"; fail "$b: no reduce.backend rule in the error"; }
  [ ! -e "$tmp/$b.json" ] || fail "$b: reduce wrote a file"
  echo "a backend that does '$b': exit 2 in $(( $(date +%s) - start )) s"
done
grep -q 'killed after --timeout' "$tmp/hang.log" || { cat "$tmp/hang.log"; fail "the hung backend's error does not say it was killed"; }
