#!/usr/bin/env bash
# The quantization goldens against an independent computation (test/quantization_independent.py:
# Python's fractions and struct), and QUANTIZE's and DEQUANTIZE's (test/quantize_independent.py:
# their blocks expanded, then the same fractions): the bundled cases and the ci tiers of
# sweeps/quantization.json and sweeps/quantize.json agree bit for bit, and a planted wrong golden
# is caught.
# Usage: quantization_independent.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
# FAMILY SCRIPT MIN_CI PLANTED_CASE FIRST_VALUE: the family's goldens, then one planted wrong golden
# (the case's first expected value FIRST_VALUE made one more).
check() {
  local family=$1 py="$root/test/$2" min=$3 planted="$root/cases/$1/$4.json" first=$5
  "$dmlref" gen "$root/sweeps/$family.json" --tier ci -o "$tmp/$family" > /dev/null || fail "dmlref gen exited $?"
  for dir in "$root/cases/$family" "$tmp/$family"; do
    if python3 "$py" "$dir" > "$tmp/out.txt" 2>&1; then ok "$(tail -1 "$tmp/out.txt") in ${dir#"$root"/}"; else bad "$dir" "$(tail -5 "$tmp/out.txt")"; fi
  done
  agree=$(tail -1 "$tmp/out.txt" | awk '{print $2}')
  [ "${agree:-0}" -ge "$min" ] && ok "$agree $family ci cases checked" || bad "only ${agree:-0} $family ci cases checked"
  mkdir -p "$tmp/planted-$family"
  sed "s/\"Values\": \[$first, /\"Values\": [$((first + 1)), /" "$planted" > "$tmp/planted-$family/p.json"
  cmp -s "$tmp/planted-$family/p.json" "$planted" && bad "the planted $family golden is unchanged"
  if python3 "$py" "$tmp/planted-$family" > "$tmp/out.txt" 2>&1; then bad "a planted wrong $family golden passed" "$(cat "$tmp/out.txt")"; else ok "a planted wrong $family golden is caught"; fi
}
# ONNX's QuantizeLinear example, its first value 128 made 129; QUANTIZE's blocks, 4 made 5.
check quantization quantization_independent.py 100 element_wise_quantize_linear_onnx_example 128
check quantize quantize_independent.py 60 quantize_blocks_whole_blocks 4
finish "quantization-independent: goldens agree with the independent computation"
