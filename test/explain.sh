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

# The cause (docs/explain.md, "The cause"), on two planted buggy backends written here in Python
# from the cases' inputs: a bilinear RESAMPLE1 that drops the tap at (floor(y) + 1, floor(x) + 1),
# and an AVERAGE_POOLING whose window starts one element later along the last dimension (what
# falls past the end is not read); and the bilinear RESAMPLE1 summed in FLOAT16. The expected
# causes are derived by hand below. The inputs
# have four random decimals: with one, sums of different elements coincide, and the named cause
# becomes "one of 2" (test/test_cause.cpp has such ties).
cat > "$tmp/bilinear.json" <<'EOF'
{"format": 1, "name": "bilinear", "operator": "RESAMPLE1",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 4, 4]},
          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 8, 8]},
          "InterpolationMode": "LINEAR", "DimensionCount": 4, "Scales": [1, 1, 2, 2],
          "InputPixelOffsets": [0.5, 0.5, 0.5, 0.5], "OutputPixelOffsets": [-0.5, -0.5, -0.5, -0.5]},
 "inputs": {"InputTensor": [2.9952, 3.6825, 6.0149, 3.0802, 3.3502, 3.8593, 1.2818, 3.3762,
                            4.1312, 5.1751, 0.7024, 2.0418, 0.6803, 5.2817, 4.5380, 0.3680]}}
EOF
cat > "$tmp/avgpool.json" <<'EOF'
{"format": 1, "name": "avgpool", "operator": "AVERAGE_POOLING",
 "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 5, 6]},
          "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 3, 4]},
          "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [3, 3], "StartPadding": [0, 0],
          "EndPadding": [0, 0], "IncludePadding": 0},
 "inputs": {"InputTensor": [6.3860, 6.2744, 4.2851, 4.0396, 1.1080, 0.1960, 3.4816, 0.4811, 1.3173, 1.6484,
                            0.2925, 3.0692, 2.9194, 5.4915, 3.4224, 4.1979, 3.2985, 4.3397, 3.0269, 1.8802,
                            6.4850, 6.4724, 5.4774, 4.6300, 2.1178, 1.5699, 1.9499, 0.5494, 5.0042, 2.6626]}}
EOF
"$dmlref" run --quiet "$tmp/bilinear.json" "$tmp/avgpool.json" -o "$tmp/cause" > "$tmp/run2.log" \
  || { cat "$tmp/run2.log"; fail "dmlref run (cause cases)"; }
planted_backend() {  # CASE OUT.npy BUG: the case's output, computed with BUG, as float32 .npy
  python3 - "$1" "$2" "$3" <<'EOF'
import json, math, struct, sys
case, out, bug = sys.argv[1:4]
c = json.load(open(case))
d = c["desc"]
f32 = lambda v: struct.unpack('<f', struct.pack('<f', v))[0]
f16 = lambda v: struct.unpack('<e', struct.pack('<e', v))[0]
x = [f32(v) for v in c["inputs"]["InputTensor"]]
_, _, H, W = d["InputTensor"]["Sizes"]
_, _, OH, OW = d["OutputTensor"]["Sizes"]


def taps(o, i):  # DirectML's coordinate, clamped; the taps floor(x) and floor(x) + 1
    n = d["InputTensor"]["Sizes"][i]
    t = (o - d["OutputPixelOffsets"][i]) / d["Scales"][i] - d["InputPixelOffsets"][i]
    t = min(max(t, 0.0), n - 1.0)
    lo = math.floor(t)
    return [(lo, 1 - (t - lo)), (min(lo + 1, n - 1), t - lo)]


y = []
for oh in range(OH):
    for ow in range(OW):
        if bug == "half-sum":  # every product and partial sum rounded to FLOAT16
            s = 0.0
            for h, wh in taps(oh, 2):
                for w, ww in taps(ow, 3):
                    s = f16(s + f16(f16(wh * ww) * f16(x[h * W + w])))
        elif bug.startswith("dropped-tap"):
            s = 0.0
            for a, (h, wh) in enumerate(taps(oh, 2)):
                for b, (w, ww) in enumerate(taps(ow, 3)):
                    if (a, b) != (1, 1) or bug == "dropped-tap-none":
                        s += wh * ww * x[h * W + w]
        else:  # shifted-window: window rows oh..oh+2, columns ow+1..ow+3 (those before W)
            s = sum(x[h * W + w] for h in range(oh, oh + 3) for w in range(ow + 1, ow + 4) if w < W) / 9
        y.append(s)
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, %d, %d), }" % (OH, OW)
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
data = b''.join(struct.pack('<f', v) for v in y)
open(out, 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + data)
EOF
}
planted_backend "$tmp/bilinear.json" "$tmp/bilinear.npy" dropped-tap
planted_backend "$tmp/avgpool.json" "$tmp/avgpool.npy" shifted-window
planted_backend "$tmp/bilinear.json" "$tmp/half.npy" half-sum
# The backend without its bug is within tolerance: the bug is all that differs.
planted_backend "$tmp/bilinear.json" "$tmp/bilinear-none.npy" dropped-tap-none
"$dmlref" diff "$tmp/cause/bilinear.json" "$tmp/bilinear-none.npy" > "$tmp/diff-none.txt" \
  || { cat "$tmp/diff-none.txt"; fail "the bilinear backend without its bug"; }

# Y[0,0,3,4]: y = (3 + 0.5) / 2 - 0.5 = 1.25 (rows 1 and 2, weights 0.75 and 0.25), x = (4 + 0.5)
# / 2 - 0.5 = 1.75 (columns 1 and 2, weights 0.25 and 0.75): the dropped tap is X[0,0,2,2], weight
# 0.25 * 0.75 = 0.1875.
"$dmlref" explain "$tmp/cause/bilinear.json" 0,0,3,4 "$tmp/bilinear.npy" > "$tmp/bilinear.txt" || fail "explain bilinear"
has "$tmp/bilinear.txt" "OVER tolerance" "explain bilinear verdict"
has "$tmp/bilinear.txt" "cause         the term InputTensor[0,0,2,2] x 0.1875 (= " "explain bilinear cause"
has "$tmp/bilinear.txt" ") is missing: that gives " "explain bilinear cause"
# Y[0,0,1,1] averages X[0,0,1..3,1..3]; the backend read X[0,0,1..3,2..4].
"$dmlref" explain --json "$tmp/cause/avgpool.json" 0,0,1,1 "$tmp/avgpool.npy" > "$tmp/avgpool.json.out" || fail "explain avgpool"
python3 - "$tmp/avgpool.json.out" <<'EOF' || fail "explain avgpool cause"
import json, sys
e = json.load(open(sys.argv[1]))[0]
assert e["verdict"] == "OVER tolerance", e
want = ("the window or taps are shifted by +1 along dimension 3 (InputTensor[0,0,1,1] read as "
        "InputTensor[0,0,1,2], ...): that gives ")
assert e["cause"].startswith(want), e["cause"]
assert "cause" not in e["facts"], e["facts"]
assert len(e["terms"]) == 9 and all(t["note"] == "1/9" for t in e["terms"]), e["terms"]
EOF
# diff --explain names the cause of each worst element: every element these bugs touch has it.
for c in bilinear avgpool; do
  set +e
  "$dmlref" diff --explain 4 "$tmp/cause/$c.json" "$tmp/$c.npy" > "$tmp/diff-$c.txt" 2>&1
  rc=$?
  set -e
  [ $rc = 1 ] || { cat "$tmp/diff-$c.txt"; fail "diff --explain $c exited $rc, expected 1"; }
  if [ $c = bilinear ]; then want=") is missing: that gives "; else want="shifted by +1 along dimension 3 ("; fi
  n=$(grep -c -- "^  cause         .*$want" "$tmp/diff-$c.txt" || true)
  [ "$n" = 4 ] || { cat "$tmp/diff-$c.txt"; fail "diff --explain $c: $n of 4 worst elements name the cause"; }
done
# `dmlref test` with the dropped-tap backend: its JSON and HTML report carry the cause of the
# worst elements over tolerance (up to three per output).
printf 'cp "%s" "$2/OutputTensor.npy"\n' "$tmp/bilinear.npy" > "$tmp/dropped-tap-backend.sh"
set +e
"$dmlref" test "$tmp/cause/bilinear.json" --backend "bash $tmp/dropped-tap-backend.sh" -q \
  --json "$tmp/test-cause.json" --html "$tmp/test-cause.html" > "$tmp/test-cause.txt" 2>&1
rc=$?
set -e
[ $rc = 1 ] || { cat "$tmp/test-cause.txt"; fail "dmlref test with the dropped tap exited $rc, expected 1"; }
python3 - "$tmp/test-cause.json" <<'EOF' || fail "dmlref test --json: the cause"
import json, sys
r = json.load(open(sys.argv[1]))
worst = r["cases"][0]["diff"]["outputs"][0]["worst"]
causes = [w.get("cause", "") for w in worst[:3]]
assert all(") is missing: that gives " in c for c in causes), causes
EOF
n=$(grep -c '<tr class="cause"><td colspan="6">cause: the term InputTensor\[' "$tmp/test-cause.html" || true)
[ "$n" = 3 ] || fail "dmlref test --html: $n of 3 worst elements show the cause"
# Its picture draws those three elements in the colour of a named cause (160, 0, 220), the other
# elements over tolerance red: the PNG decoded here with zlib (filter type 0 rows, as written).
python3 - "$tmp/test-cause.html" <<'EOF' || fail "dmlref test --html: the picture's named causes"
import base64, re, struct, sys, zlib
png = base64.b64decode(re.search(r'src="data:image/png;base64,([^"]+)"', open(sys.argv[1]).read()).group(1))
w, h = struct.unpack(">II", png[16:24])
at, idat = 8, b""
while at < len(png):
    n, kind = struct.unpack(">I4s", png[at:at + 8])
    if kind == b"IDAT":
        idat += png[at + 8:at + 8 + n]
    at += 12 + n
raw = zlib.decompress(idat)
pixels = {raw[y * (3 * w + 1) + 1 + 3 * x:y * (3 * w + 1) + 4 + 3 * x] for y in range(h) for x in range(w)}
assert bytes([160, 0, 220]) in pixels and bytes([230, 0, 0]) in pixels, "no purple or no red"
EOF
# A backend that sums in FLOAT16 for the FLOAT32 output: its values are FLOAT16 values.
set +e
"$dmlref" diff --explain 4 "$tmp/cause/bilinear.json" "$tmp/half.npy" > "$tmp/diff-half.txt" 2>&1
set -e
n=$(grep -c "^  cause         the element is computed in FLOAT16 (its products and sums), narrower than FLOAT32: " "$tmp/diff-half.txt" || true)
[ "$n" = 4 ] || { cat "$tmp/diff-half.txt"; fail "diff --explain half-sum: $n of 4 worst elements name FLOAT16"; }
# Within tolerance: no cause row.
"$dmlref" explain "$tmp/cause/bilinear.json" 0,0,3,4 "$tmp/bilinear-none.npy" > "$tmp/within.txt" || fail "explain within"
! grep -q "^  cause " "$tmp/within.txt" || { cat "$tmp/within.txt"; fail "a cause row for an element within tolerance"; }
# The planted linear element above (18.5 for 17.5 = 10 x 0.25 + 20 x 0.75): no candidate gives it.
"$dmlref" explain "$tmp/golden/linear.json" 2 "$tmp/actual/linear/OutputTensor.npy" > "$tmp/nocause.txt" || fail "explain no cause"
has "$tmp/nocause.txt" "cause         no single cause explains it (" "explain no cause"

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
