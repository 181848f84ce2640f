#!/usr/bin/env bash
# The QUANTIZED_LINEAR_AVERAGE_POOLING goldens against an independent computation
# (test/quantized_pooling_independent.py: Python's fractions): the bundled cases and the ci tier of
# sweeps/quantized_pooling.json agree bit for bit, and a planted wrong golden is caught.
# Usage: quantized_pooling_independent.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
py="$root/test/quantized_pooling_independent.py"
"$dmlref" gen "$root/sweeps/quantized_pooling.json" --tier ci -o "$tmp/ci" > /dev/null || fail "dmlref gen exited $?"
for dir in "$root/cases/quantized_pooling" "$tmp/ci"; do
  if python3 "$py" "$dir" > "$tmp/out.txt" 2>&1; then ok "$(tail -1 "$tmp/out.txt") in ${dir#"$root"/}"; else bad "$dir" "$(tail -5 "$tmp/out.txt")"; fi
done
agree=$(tail -1 "$tmp/out.txt" | awk '{print $2}')
[ "${agree:-0}" -ge 90 ] && ok "$agree ci cases checked" || bad "only ${agree:-0} ci cases checked"
# A planted wrong golden (the exact tie 2.5 rounded up to 3 instead of to the even 2: [6, 15]) is caught.
mkdir -p "$tmp/planted"
sed 's/"Values": \[5, 15\]/"Values": [6, 15]/' "$root/cases/quantized_pooling/ties_round_half_to_even.json" > "$tmp/planted/p.json"
cmp -s "$tmp/planted/p.json" "$root/cases/quantized_pooling/ties_round_half_to_even.json" && bad "the planted golden is unchanged"
if python3 "$py" "$tmp/planted" > "$tmp/out.txt" 2>&1; then bad "a planted wrong golden passed" "$(cat "$tmp/out.txt")"; else ok "a planted wrong golden is caught"; fi
finish "quantized-pooling-independent: goldens agree with the independent computation"
