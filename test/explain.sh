#!/usr/bin/env bash
# dmlref explain and dmlref diff --explain on planted wrong actuals (docs/explain.md): the text
# must name the planted element's index, its window and argmax (max pooling), its taps and bound
# (linear resample); bad input is exit 2 with a rule id.
# Usage: explain.sh DMLREF
set -euo pipefail
dmlref=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qF -- "$2" "$1" || { cat "$1"; fail "$3: no \"$2\""; }; }

# X (1x1x4x4) = 1 2 3 4 / 5 16 7 8 / 9 10 11 12 / 13 14 15 6, window 3x3, stride 1: Y is 2x2 and
# Y[0,0,1,0] reads rows 1..3, columns 0..2, whose max 16 is at X[0,0,1,1].
cat > "$out/pool.json" <<'EOF'
{"format": 1, "name": "pool", "operator": "MAX_POOLING2",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 4, 4]},
          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2, 2]},
          "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [3, 3], "StartPadding": [0, 0],
          "EndPadding": [0, 0], "Dilations": [1, 1]},
 "inputs": {"InputTensor": [1, 2, 3, 4, 5, 16, 7, 8, 9, 10, 11, 12, 13, 14, 15, 6]}}
EOF
# RESAMPLE1 LINEAR, In 3, Out 5, Scale 2: x(2) = (2 + 0.5) / 2 - 0.5 = 0.75, taps 0 (0.25) and 1 (0.75).
cat > "$out/linear.json" <<'EOF'
{"format": 1, "name": "linear", "operator": "RESAMPLE1",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [5]},
          "InterpolationMode": "LINEAR", "DimensionCount": 1, "Scales": [2],
          "InputPixelOffsets": [0.5], "OutputPixelOffsets": [-0.5]},
 "inputs": {"InputTensor": [10, 20, 40]}}
EOF
"$dmlref" run --quiet "$out/pool.json" "$out/linear.json" -o "$out/golden" --npy-outputs "$out/actual" > "$out/run.log" \
  || { cat "$out/run.log"; fail "dmlref run"; }

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
plant "$out/actual/pool/OutputTensor.npy" 2 4 15
plant "$out/actual/linear/OutputTensor.npy" 2 5 18.5

# explain, N-d index, with the planted actual.
"$dmlref" explain "$out/golden/pool.json" 0,0,1,0 "$out/actual/pool/OutputTensor.npy" > "$out/pool.txt" || fail "explain pool"
has "$out/pool.txt" "element [0,0,1,0] (flat 2" "explain pool"
has "$out/pool.txt" "InputTensor[0,0,1..3,0..2]" "explain pool window"
has "$out/pool.txt" "argmax        InputTensor[0,0,1,1]" "explain pool argmax"
has "$out/pool.txt" "1048576 ULP" "explain pool error"
has "$out/pool.txt" "OVER tolerance" "explain pool verdict"
# The same element by its flat index, as JSON.
"$dmlref" explain --json "$out/golden/pool.json" 2 "$out/actual/pool/OutputTensor.npy" > "$out/pool.json.out" || fail "explain --json"
python3 - "$out/pool.json.out" <<'EOF' || fail "explain --json content"
import json, sys
e = json.load(open(sys.argv[1]))[0]
assert e["index"] == [0, 0, 1, 0] and e["ulp"] == 1 << 20, e
assert [i["index"] for i in e["inputs"] if i["role"] == "argmax"] == [[0, 0, 1, 1]], e["inputs"]
EOF

# The same actual as its whole 1-D buffer (as DxDispatch's writeFile dumps it): the same element.
python3 - "$out/actual/pool/OutputTensor.npy" "$out/flat.npy" <<'EOF'
import sys
b = open(sys.argv[1], 'rb').read()
n = int.from_bytes(b[8:10], 'little')
data = b[10 + n:]
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % (len(data) // 4)
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
open(sys.argv[2], 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + data)
EOF
"$dmlref" explain "$out/golden/pool.json" 0,0,1,0 "$out/flat.npy" > "$out/flat.txt" || fail "explain with a 1-D actual"
has "$out/flat.txt" "actual        15  (0x41700000" "explain with a 1-D actual"

# The linear resample: its two taps and its bound from lib/bound.cpp.
"$dmlref" explain "$out/golden/linear.json" 2 "$out/actual/linear/OutputTensor.npy" > "$out/linear.txt" || fail "explain linear"
has "$out/linear.txt" "element [2] (flat 2" "explain linear"
has "$out/linear.txt" "x = 0.75 -> input 0 (weight 0.25) input 1 (weight 0.75)" "explain linear taps"
has "$out/linear.txt" "Summed: bound " "explain linear bound"
has "$out/linear.txt" "OVER tolerance" "explain linear verdict"

# diff --explain 3: exit 1 (the planted element is over), and it is explained.
set +e
"$dmlref" diff --explain 3 "$out/golden/pool.json" "$out/actual/pool/OutputTensor.npy" > "$out/diff.txt" 2>&1
rc=$?
set -e
[ $rc = 1 ] || { cat "$out/diff.txt"; fail "diff --explain exited $rc, expected 1"; }
has "$out/diff.txt" "worst element, explained" "diff --explain"
has "$out/diff.txt" "OutputTensor element [0,0,1,0]" "diff --explain index"
has "$out/diff.txt" "InputTensor[0,0,1..3,0..2]" "diff --explain window"
set +e
"$dmlref" diff --explain 3 "$out/golden/linear.json" "$out/actual/linear/OutputTensor.npy" > "$out/diff2.txt" 2>&1
set -e
has "$out/diff2.txt" "OutputTensor element [2]" "diff --explain linear"
has "$out/diff2.txt" "Summed: bound " "diff --explain linear bound"

# Bad input: exit 2 and the rule id.
bad() {
  local want=$1; shift
  set +e
  "$dmlref" explain "$@" > "$out/bad.txt" 2>&1
  local rc=$?
  set -e
  [ $rc = 2 ] || { cat "$out/bad.txt"; fail "explain $* exited $rc, expected 2"; }
  has "$out/bad.txt" "[$want]" "explain $*"
}
bad explain.index-range "$out/golden/pool.json" 4
bad explain.index-range "$out/golden/pool.json" 0,0,2,0
bad explain.index-rank "$out/golden/pool.json" 1,0
bad explain.index-syntax "$out/golden/pool.json" x
bad explain.not-a-golden "$out/pool.json" 0
bad explain.no-output --output Nope "$out/golden/pool.json" 0
printf 'short' > "$out/short.bin"
bad explain.actual "$out/golden/pool.json" 0 "$out/short.bin"
set +e
"$dmlref" diff --explain 1 "$out/golden" "$out/actual" > "$out/bad.txt" 2>&1
rc=$?
set -e
[ $rc = 2 ] || { cat "$out/bad.txt"; fail "diff --explain on a directory exited $rc, expected 2"; }
has "$out/bad.txt" "[explain.single-golden]" "diff --explain on a directory"
echo "explain: all checks passed"
