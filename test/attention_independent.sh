#!/usr/bin/env bash
# The MULTIHEAD_ATTENTION goldens against an independent computation (test/attention_independent.py:
# Python's float64 math.exp and math.fsum): the bundled cases and the ci tier of
# sweeps/multihead_attention.json agree within half an ULP plus float64's own error, and a planted
# wrong golden is caught.
# Usage: attention_independent.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
py="$root/test/attention_independent.py"
"$dmlref" gen "$root/sweeps/multihead_attention.json" --tier ci -o "$tmp/ci" > /dev/null || fail "dmlref gen exited $?"
for dir in "$root/cases/multihead_attention" "$tmp/ci"; do
  if python3 "$py" "$dir" > "$tmp/out.txt" 2>&1; then ok "$(tail -1 "$tmp/out.txt") in ${dir#"$root"/}"; else bad "$dir" "$(tail -5 "$tmp/out.txt")"; fi
done
agree=$(tail -1 "$tmp/out.txt" | awk '{print $2}')
[ "${agree:-0}" -ge 30 ] && ok "$agree ci cases checked" || bad "only ${agree:-0} ci cases checked"
# A planted wrong golden (one_head_2x2's first value sigma(1) made 0.73105866, one ULP up) is caught.
mkdir -p "$tmp/planted"
sed 's/0\.7310586,/0.73105866,/' "$root/cases/multihead_attention/one_head_2x2.json" > "$tmp/planted/p.json"
cmp -s "$tmp/planted/p.json" "$root/cases/multihead_attention/one_head_2x2.json" && bad "the planted golden is unchanged"
if python3 "$py" "$tmp/planted" > "$tmp/out.txt" 2>&1; then bad "a planted wrong golden passed" "$(cat "$tmp/out.txt")"; else ok "a planted wrong golden is caught"; fi
finish "attention-independent: goldens agree with the independent computation"
