#!/usr/bin/env bash
# Hostile inputs and hostile surroundings for the command line (issue 12, docs/rules.md): each
# check names the class it covers and fails with what it saw. Nothing may crash (exit codes over
# 128 are signals), leave a broken file behind, write outside the output folder, read outside
# the case's folder, stop a batch at one bad case, or print a forged log line.
# Usage: robustness.sh DMLREF
set -uo pipefail
dmlref=$(realpath "$1")
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1: $2"; failures=$((failures + 1)); }
# expect NAME RC PATTERN -- COMMAND...: the command exits RC and its stderr matches PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3; shift 4
  "$@" >out.txt 2>err.txt
  local rc=$?
  if [ "$rc" -ne "$want" ]; then bad "$name" "exit $rc, wanted $want; stderr: $(head -c 400 err.txt)"; return; fi
  if [ -n "$pattern" ] && ! grep -q -- "$pattern" err.txt; then bad "$name" "stderr lacks '$pattern': $(head -c 400 err.txt)"; return; fi
  ok "$name"
}

relu() {  # relu NAME INPUT-SPEC [EXTRA-TOP-LEVEL-JSON]
  printf '{"format": 1, "name": "%s", "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}, "inputs": {"InputTensor": %s}%s}\n' "$1" "$2" "${3:-}"
}
mkdir cases
relu good '[1, -2, 3, -4]' > cases/good.json

# ---- 1. Atomic outputs -----------------------------------------------------------------------
n=1000000
printf '{"format": 1, "name": "big", "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [%d]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [%d]}}, "inputs": {"InputTensor": {"Random": {"Seed": 1}}}}\n' $n $n > big.json
"$dmlref" run -q big.json -o gold >/dev/null 2>&1 && cp gold/big.json reference.json
broken=0
for delay in 0.05 0.15 0.25 0.35 0.45 0.55 0.65 0.75 0.85 1.0; do
  "$dmlref" run -q big.json -o gold >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  cmp -s gold/big.json reference.json || broken=$((broken + 1))
done
[ "$broken" -eq 0 ] && ok "kill -9 during run -o leaves the old golden" || bad "kill -9 during run -o" "$broken of 10 kills left a broken golden"

# A full disk: writes fail (EFBIG under a file-size limit, as ENOSPC would); exit 2, old file kept.
# (A kill -9 above may leave a stray hidden temporary file in gold/, never a broken golden; this
# check uses a folder of its own.)
mkdir -p full && cp reference.json full/big.json
( ulimit -f 64; trap '' XFSZ; exec "$dmlref" run -q big.json -o full ) >out.txt 2>err.txt
rc=$?
if [ "$rc" -ne 2 ]; then bad "a failed write exits 2" "exit $rc"
elif ! cmp -s full/big.json reference.json; then bad "a failed write keeps the old golden" "the golden changed"
elif [ "$(ls -A full)" != big.json ]; then bad "a failed write removes its temporary file" "$(ls -A full | tr '\n' ' ')"
else ok "a failed write (full disk) exits 2 and keeps the old golden"; fi
"$dmlref" run -q cases/good.json -o g1 >/dev/null 2>&1
expect "diff --json to a device (/dev/full) is refused" 2 "file.not-regular" -- "$dmlref" diff g1/good.json g1/good.json --json /dev/full

# A symbolic link in OUT is not written through.
mkdir -p linked && echo "victim" > victim.txt && ln -s "$work/victim.txt" linked/good.json
expect "a symbolic link in OUT is refused" 2 "file.not-regular" -- "$dmlref" run -q cases/good.json -o linked
[ "$(cat victim.txt)" = victim ] && ok "the link's target is untouched" || bad "the link's target is untouched" "it was overwritten"

# Two cases with the same output path.
mkdir -p a b && cp cases/good.json a/x.json && cp cases/good.json b/x.json
expect "two cases mapping to one golden are refused" 2 "output.collision" -- "$dmlref" run -q a/x.json b/x.json -o coll

# ---- 2. Sizes, depth, work -------------------------------------------------------------------
printf '{"format": 1, "operator": "DML_OPERATOR_SLICE1", "desc": {"InputTensor": {"DataType": "FLOAT64", "Sizes": [1073741825], "Strides": [2147483648]}, "OutputTensor": {"DataType": "FLOAT64", "Sizes": [1]}, "DimensionCount": 1, "InputWindowOffsets": [1073741824], "InputWindowSizes": [1], "InputWindowStrides": [1]}, "inputs": {"InputTensor": {"Fill": 1}}}\n' > overflow.json
expect "a buffer size past 2^64 is an error (validate)" 2 "tensor.size-overflow" -- "$dmlref" validate overflow.json
expect "a buffer size past 2^64 is an error (run, largest --max-bytes)" 2 "tensor.size-overflow" -- "$dmlref" run -q overflow.json --max-bytes 18446744073709551615
python3 -c "print('{\"format\": 1, \"operator\": \"DML_OPERATOR_ACTIVATION_RELU\", \"desc\": {\"InputTensor\": {\"DataType\": \"FLOAT32\", \"Sizes\": ' + '[' * 100000 + ']' * 100000 + '}}}')" > deep.json
expect "100000 nested arrays: json.depth" 2 "json.depth" -- "$dmlref" validate deep.json
printf '{"format": 1, "operator": "DML_OPERATOR_MAX_POOLING", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2048, 2048]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1025, 1025]}, "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [1024, 1024], "StartPadding": [0, 0], "EndPadding": [0, 0]}, "inputs": {"InputTensor": {"Fill": 1}}}\n' > pool.json
expect "10^12 reads: limit.work names --max-work" 2 "raise it with --max-work" -- timeout 60 "$dmlref" run -q pool.json
relu work '{"Fill": 1}' > work.json
expect "--max-work 7 refuses 8 element reads and writes" 2 "limit.work" -- "$dmlref" run -q work.json --max-work 7
expect "--max-work 8 allows them" 0 "" -- "$dmlref" run -q work.json --max-work 8

# ---- 3. Strict JSON and option values --------------------------------------------------------
printf '{"format": 1, "name": "a", "name": "b", "operator": "DML_OPERATOR_ACTIVATION_RELU"}\n' > dup.json
expect "duplicate keys" 2 "/name: error: .*json.duplicate-key" -- "$dmlref" validate dup.json
relu n '[1, 2, 3, 4]' | sed 's/"name": "n"/"name": 5/' > name.json
expect "name as a number" 2 "/name: error: .*case.type" -- "$dmlref" validate name.json
relu d '[1, 2, 3, 4]' ', "description": ["x"]' > desc.json
expect "description as an array" 2 "/description: error: .*case.type" -- "$dmlref" validate desc.json
relu p '[1, 2, 3, 4]' ', "provenance": {"dmlref": "0.1.0", "format": 1, "secret": 1}' > prov.json
expect "unknown key in provenance" 2 "/provenance/secret: error: .*case.unknown-key" -- "$dmlref" validate prov.json
relu r '{"Random": {"Seed": 1, "Distribution": 7}}' > dist.json
expect "Random Distribution as a number" 2 "/inputs/InputTensor/Random/Distribution: error: .*input.random-distribution" -- "$dmlref" validate dist.json
relu e '[1, 2, 3, 4]' ', "expected": {"OutputTensor": {"Values": [1, 0, 3, 0], "Tolerance": {"Kind": "Bits", "Why": 3}}}' > why.json
expect "Tolerance Why as a number" 2 "/expected/OutputTensor/Tolerance/Why: error: .*case.type" -- "$dmlref" validate why.json
relu k '[1, 2, 3, 4]' ', "expected": {"OutputTensor": {"Values": [1, 0, 3, 0], "Tolerance": {"Kind": 1}}}' > kind.json
expect "Tolerance Kind as a number" 2 "/expected/OutputTensor/Tolerance/Kind: error: .*expected.tolerance" -- "$dmlref" validate kind.json
relu c '[1, 2, 3, 4]' ', "expected": {"OutputTensor": {"Values": [1, 0, 3, 0], "DontCare": [{"Index": 1, "Reason": "r", "Extra": 1}]}}' > dc.json
expect "unknown key in DontCare" 2 "/expected/OutputTensor/DontCare/0/Extra: error: .*case.unknown-key" -- "$dmlref" validate dc.json
expect "negative --max-bytes" 2 "" -- "$dmlref" run -q cases/good.json --max-bytes -1
expect "negative --max-work" 2 "" -- "$dmlref" validate cases/good.json --max-work -5
expect "negative --worst" 2 "" -- "$dmlref" diff g1/good.json g1/good.json --worst -1
expect "negative diff --max-bytes" 2 "" -- "$dmlref" diff g1/good.json g1/good.json --max-bytes -1

# ---- 4. Paths confined to the case's folder --------------------------------------------------
mkdir -p inner/sub
python3 - <<'EOF'
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
data = b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + b'\x00' * 16
open('secret.npy', 'wb').write(data)
open('inner/sub/ok.npy', 'wb').write(data)
EOF
ln -s "$work/secret.npy" inner/link.npy
relu u '{"Npy": "../secret.npy"}' > inner/up.json
relu s '{"Npy": "'"$work"'/secret.npy"}' > inner/abs.json
relu l '{"Npy": "link.npy"}' > inner/link.json
relu z '{"Npy": "sub/ok.npy\u0000.txt"}' > inner/nul.json
relu i '{"Npy": "sub/ok.npy"}' > inner/in.json
expect "Npy path with .. out of the folder" 2 "input.npy-path" -- "$dmlref" validate inner/up.json
expect "absolute Npy path" 2 "input.npy-path" -- "$dmlref" validate inner/abs.json
expect "Npy through a link out of the folder" 2 "input.npy-path" -- "$dmlref" validate inner/link.json
expect "Npy name with a NUL byte" 2 "input.npy-path" -- "$dmlref" validate inner/nul.json
expect "Npy inside the folder is read" 0 "" -- "$dmlref" validate inner/in.json
expect "--allow-paths lets .. through" 0 "" -- "$dmlref" validate --allow-paths inner/up.json

# ---- 5. Batches go on ------------------------------------------------------------------------
mkdir -p batch && cp dist.json batch/a_bad.json && cp cases/good.json batch/z_good.json
ln -s "$work/nowhere.json" batch/m_dangling.json
printf 'x' > "batch/n_$(printf '\xff')name.json"
expect "a batch reports its broken cases" 2 "m_dangling.json: /: error: .*file.read" -- "$dmlref" run -q batch -o batch_out
grep -q "file.name" err.txt && ok "a non-UTF-8 file name is an error" || bad "a non-UTF-8 file name is an error" "$(head -c 300 err.txt)"
[ -s batch_out/z_good.json ] && ok "the good case after the broken ones still ran" || bad "the good case after the broken ones still ran" "no golden"
# A .npy header holding bytes that are not UTF-8: an error in the report, and the report written whole.
python3 - <<'PY'
h = "{'descr': '<f\xff4', 'fortran_order': False, 'shape': (4,), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open('bad_header.npy', 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode('latin-1') + b'\x00' * 16)
PY
expect "a .npy header that is not UTF-8 is an error" 2 "" -- "$dmlref" diff g1/good.json --output OutputTensor=bad_header.npy --json report.json
python3 -c "import json; json.load(open('report.json'))" 2>/dev/null && ok "the JSON report is still written, whole" || bad "the JSON report is still written, whole" "report.json missing or broken"
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p locked/inner && cp cases/good.json locked/inner/x.json && chmod 000 locked/inner
  expect "an unreadable folder is an error" 2 "cannot read the folder" -- "$dmlref" validate locked
  chmod 755 locked/inner
fi

# ---- 6. Names are printed escaped ------------------------------------------------------------
relu 'x\n[1/1] PASS  forged\u001b[2K' '[1, 2, 3, 4]' > forged.json
"$dmlref" run forged.json >out.txt 2>err.txt
if grep -q $'\x1b' out.txt err.txt; then bad "names are escaped" "an escape character reached the log"
elif [ "$(grep -c '^\[1/1\]' out.txt)" -ne 1 ]; then bad "names are escaped" "a forged line: $(cat out.txt)"
else ok "names are escaped (no forged line, no terminal escape)"; fi

echo "$failures failed"
[ "$failures" -eq 0 ]
