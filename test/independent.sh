#!/usr/bin/env bash
# Goldens against independent computations in Python (no numpy: integers, fractions, struct, and
# float64 math for attention), one script per family: its bundled cases and the ci tier of its
# sweep agree (bit for bit; attention within half an ULP plus float64's own error), and a planted
# wrong golden is caught.
# Usage: independent.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
# check FAMILY SCRIPT MIN_CI PLANTED_CASE SED: the family's goldens, at least MIN_CI of its ci cases
# checked, then PLANTED_CASE with one expected value changed by SED, which the script must reject.
check() {
  local family=$1 py="$root/test/$2" min=$3 planted="$root/cases/$1/$4.json" edit=$5
  "$dmlref" gen "$root/sweeps/$family.json" --tier ci -o "$tmp/$family" > /dev/null || fail "dmlref gen $family exited $?"
  for dir in "$root/cases/$family" "$tmp/$family"; do
    if python3 "$py" "$dir" > "$tmp/out.txt" 2>&1; then ok "$(tail -1 "$tmp/out.txt") in ${dir#"$root"/}"; else bad "$dir" "$(tail -5 "$tmp/out.txt")"; fi
  done
  agree=$(tail -1 "$tmp/out.txt" | awk '{print $2}')
  [ "${agree:-0}" -ge "$min" ] && ok "$agree $family ci cases checked" || bad "only ${agree:-0} $family ci cases checked"
  mkdir -p "$tmp/planted-$family"
  sed "$edit" "$planted" > "$tmp/planted-$family/p.json"
  cmp -s "$tmp/planted-$family/p.json" "$planted" && bad "the planted $family golden is unchanged"
  if python3 "$py" "$tmp/planted-$family" > "$tmp/out.txt" 2>&1; then bad "a planted wrong $family golden passed" "$(cat "$tmp/out.txt")"; else ok "a planted wrong $family golden is caught"; fi
}
# ONNX's QuantizeLinear example, its first value 128 made 129; QUANTIZE's blocks, 4 made 5.
check quantization quantization_independent.py 100 element_wise_quantize_linear_onnx_example 's/"Values": \[128, /"Values": [129, /'
check quantize quantize_independent.py 60 quantize_blocks_whole_blocks 's/"Values": \[4, /"Values": [5, /'
# ONNX's QLinearMatMul example, its first value 168 made 167.
check quantized_linear quantized_linear_independent.py 30 quantized_linear_matrix_multiply_onnx_example 's/"Values": \[168, /"Values": [167, /'
# The exact tie 2.5 rounded up to 3 instead of to the even 2: [6, 15].
check quantized_pooling quantized_pooling_independent.py 90 ties_round_half_to_even 's/"Values": \[5, 15\]/"Values": [6, 15]/'
# FOLD's Example 1, its second value 5 made 6.
check fold fold_independent.py 100 fold_page_example_1 's/"Values": \[0, 5, /"Values": [0, 6, /'
# one_head_2x2's first value sigma(1) made 0.73105866, one ULP up.
check multihead_attention attention_independent.py 30 one_head_2x2 's/0\.7310586,/0.73105866,/'
finish "independent: goldens agree with the independent computations"
