#!/usr/bin/env bash
# dmlref explain and dmlref diff --explain on planted wrong actuals (docs/explain.md): the text
# must name the planted element's index, its window and argmax (max pooling), its taps and bound
# (linear resample); bad input is exit 2 with a rule id.
# Usage: explain.sh DMLREF
set -euo pipefail
dmlref=$1
. "$(dirname "$0")/lib.sh"
has() { grep -qF -- "$2" "$1" || { cat "$1"; fail "$3: no \"$2\""; }; }

# X (1x1x4x4) = 1 2 3 4 / 5 16 7 8 / 9 10 11 12 / 13 14 15 6, window 3x3, stride 1: Y is 2x2 and
# Y[0,0,1,0] reads rows 1..3, columns 0..2, whose max 16 is at X[0,0,1,1].
cat > "$tmp/pool.json" <<'EOF'
{"format": 1, "name": "pool", "operator": "MAX_POOLING2",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 4, 4]},
          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]},
          "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [3, 3], "StartPadding": [0, 0],
          "EndPadding": [0, 0], "Dilations": [1, 1]},
 "inputs": {"InputTensor": [1, 2, 3, 4, 5, 16, 7, 8, 9, 10, 11, 12, 13, 14, 15, 6]}}
EOF
# RESAMPLE1 LINEAR, In 3, Out 5, Scale 2: x(2) = (2 + 0.5) / 2 - 0.5 = 0.75, taps 0 (0.25) and 1 (0.75).
cat > "$tmp/linear.json" <<'EOF'
{"format": 1, "name": "linear", "operator": "RESAMPLE1",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [5]},
          "InterpolationMode": "LINEAR", "DimensionCount": 1, "Scales": [2],
          "InputPixelOffsets": [0.5], "OutputPixelOffsets": [-0.5]},
 "inputs": {"InputTensor": [10, 20, 40]}}
EOF
"$dmlref" run --quiet "$tmp/pool.json" "$tmp/linear.json" -o "$tmp/golden" --npy-outputs "$tmp/actual" > "$tmp/run.log" \
  || { cat "$tmp/run.log"; fail "dmlref run"; }

# Plant float32 value V at flat element I of a .npy file (its data are the last bytes).
plant() {
  python3 - "$1" "$2" "$3" "$4" <<'EOF'
import struct, sys
f, i, n, v = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
b = bytearray(open(f, 'rb').read())
o = len(b) - 4 * n + 4 * i
b[o:o + 4] = struct.pack('<f', v)
open(f, 'wb').write(b)
EOF
}
plant "$tmp/actual/pool/OutputTensor.npy" 2 4 15
plant "$tmp/actual/linear/OutputTensor.npy" 2 5 18.5

# explain, N-d index, with the planted actual.
"$dmlref" explain "$tmp/golden/pool.json" 0,0,1,0 "$tmp/actual/pool/OutputTensor.npy" > "$tmp/pool.txt" || fail "explain pool"
has "$tmp/pool.txt" "element [0,0,1,0] (flat 2" "explain pool"
has "$tmp/pool.txt" "InputTensor[0,0,1..3,0..2]" "explain pool window"
has "$tmp/pool.txt" "argmax        InputTensor[0,0,1,1]" "explain pool argmax"
has "$tmp/pool.txt" "1048576 ULP" "explain pool error"
has "$tmp/pool.txt" "OVER tolerance" "explain pool verdict"
# The same element by its flat index, as JSON.
"$dmlref" explain --json "$tmp/golden/pool.json" 2 "$tmp/actual/pool/OutputTensor.npy" > "$tmp/pool.json.out" || fail "explain --json"
python3 - "$tmp/pool.json.out" <<'EOF' || fail "explain --json content"
import json, sys
e = json.load(open(sys.argv[1]))[0]
assert e["index"] == [0, 0, 1, 0] and e["ulp"] == 1 << 20, e
assert [i["index"] for i in e["inputs"] if i["role"] == "argmax"] == [[0, 0, 1, 1]], e["inputs"]
EOF

# The same actual as its whole 1-D buffer (as DxDispatch's writeFile dumps it): the same element.
python3 - "$tmp/actual/pool/OutputTensor.npy" "$tmp/flat.npy" <<'EOF'
import sys
b = open(sys.argv[1], 'rb').read()
n = int.from_bytes(b[8:10], 'little')
data = b[10 + n:]
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % (len(data) // 4)
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
open(sys.argv[2], 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + data)
EOF
"$dmlref" explain "$tmp/golden/pool.json" 0,0,1,0 "$tmp/flat.npy" > "$tmp/flat.txt" || fail "explain with a 1-D actual"
has "$tmp/flat.txt" "actual        15  (0x41700000" "explain with a 1-D actual"

# The linear resample: its two taps and its bound from lib/judge/bound.cpp.
"$dmlref" explain "$tmp/golden/linear.json" 2 "$tmp/actual/linear/OutputTensor.npy" > "$tmp/linear.txt" || fail "explain linear"
has "$tmp/linear.txt" "element [2] (flat 2" "explain linear"
has "$tmp/linear.txt" "x = 0.75 -> input 0 (weight 0.25) input 1 (weight 0.75)" "explain linear taps"
has "$tmp/linear.txt" "Summed: bound " "explain linear bound"
has "$tmp/linear.txt" "OVER tolerance" "explain linear verdict"

# diff --explain 3: exit 1 (the planted element is over), and it is explained.
set +e
"$dmlref" diff --explain 3 "$tmp/golden/pool.json" "$tmp/actual/pool/OutputTensor.npy" > "$tmp/diff.txt" 2>&1
rc=$?
set -e
[ $rc = 1 ] || { cat "$tmp/diff.txt"; fail "diff --explain exited $rc, expected 1"; }
has "$tmp/diff.txt" "worst element, explained" "diff --explain"
has "$tmp/diff.txt" "OutputTensor element [0,0,1,0]" "diff --explain index"
has "$tmp/diff.txt" "InputTensor[0,0,1..3,0..2]" "diff --explain window"
set +e
"$dmlref" diff --explain 3 "$tmp/golden/linear.json" "$tmp/actual/linear/OutputTensor.npy" > "$tmp/diff2.txt" 2>&1
set -e
has "$tmp/diff2.txt" "OutputTensor element [2]" "diff --explain linear"
has "$tmp/diff2.txt" "Summed: bound " "diff --explain linear bound"

# Bad input: exit 2 and the rule id.
refused() {  # refused RULE ARGS...: `dmlref explain ARGS` exits 2 naming RULE
  local want=$1; shift
  set +e
  "$dmlref" explain "$@" > "$tmp/bad.txt" 2>&1
  local rc=$?
  set -e
  [ $rc = 2 ] || { cat "$tmp/bad.txt"; fail "explain $* exited $rc, expected 2"; }
  has "$tmp/bad.txt" "[$want]" "explain $*"
}
refused explain.index-range "$tmp/golden/pool.json" 4
refused explain.index-range "$tmp/golden/pool.json" 0,0,2,0
refused explain.index-rank "$tmp/golden/pool.json" 1,0
refused explain.index-syntax "$tmp/golden/pool.json" x
refused explain.not-a-golden "$tmp/pool.json" 0
refused explain.no-output --output Nope "$tmp/golden/pool.json" 0
printf 'short' > "$tmp/short.bin"
refused explain.actual "$tmp/golden/pool.json" 0 "$tmp/short.bin"
set +e
"$dmlref" diff --explain 1 "$tmp/golden" "$tmp/actual" > "$tmp/bad.txt" 2>&1
rc=$?
set -e
[ $rc = 2 ] || { cat "$tmp/bad.txt"; fail "diff --explain on a directory exited $rc, expected 2"; }
has "$tmp/bad.txt" "[explain.single-golden]" "diff --explain on a directory"
echo "explain: all checks passed"
