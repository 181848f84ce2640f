#!/usr/bin/env bash
# The quantization goldens against an independent computation (test/quantization_independent.py:
# Python's fractions and struct): the bundled cases and the ci tier of sweeps/quantization.json
# agree bit for bit, and a planted wrong golden is caught.
# Usage: quantization_independent.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
py="$root/test/quantization_independent.py"
"$dmlref" gen "$root/sweeps/quantization.json" --tier ci -o "$tmp/ci" > /dev/null || fail "dmlref gen exited $?"
for dir in "$root/cases/quantization" "$tmp/ci"; do
  if python3 "$py" "$dir" > "$tmp/out.txt" 2>&1; then ok "$(tail -1 "$tmp/out.txt") in ${dir#"$root"/}"; else bad "$dir" "$(tail -5 "$tmp/out.txt")"; fi
done
agree=$(tail -1 "$tmp/out.txt" | awk '{print $2}')
[ "${agree:-0}" -ge 100 ] && ok "$agree ci cases checked" || bad "only ${agree:-0} ci cases checked"
# A planted wrong golden (ONNX's QuantizeLinear example, its first value 128 made 127) is caught.
mkdir -p "$tmp/planted"
sed 's/"Values": \[128, /"Values": [127, /' "$root/cases/quantization/element_wise_quantize_linear_onnx_example.json" > "$tmp/planted/p.json"
cmp -s "$tmp/planted/p.json" "$root/cases/quantization/element_wise_quantize_linear_onnx_example.json" && bad "the planted golden is unchanged"
if python3 "$py" "$tmp/planted" > "$tmp/out.txt" 2>&1; then bad "a planted wrong golden passed" "$(cat "$tmp/out.txt")"; else ok "a planted wrong golden is caught"; fi
finish "quantization-independent: goldens agree with the independent computation"
