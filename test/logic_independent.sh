#!/usr/bin/env bash
# The element-wise logic and CAST goldens against an independent computation
# (test/logic_independent.py: Python's own ints, floats and struct): the bundled cases and the ci
# tier of sweeps/element_wise_logic.json and sweeps/cast.json agree bit for bit, and a planted wrong
# golden is caught.
# Usage: logic_independent.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
py="$root/test/logic_independent.py"
"$dmlref" gen "$root/sweeps/element_wise_logic.json" "$root/sweeps/cast.json" --tier ci -o "$tmp/ci" > /dev/null || fail "dmlref gen exited $?"
for dir in "$root/cases/element_wise_logic" "$root/cases/cast" "$tmp/ci"; do
  if python3 "$py" "$dir" > "$tmp/out.txt" 2>&1; then ok "$(tail -1 "$tmp/out.txt") in ${dir#"$root"/}"; else bad "$dir" "$(tail -5 "$tmp/out.txt")"; fi
done
# Most of the ci tier is checked (not skipped): its packed cases with written-out inputs.
agree=$(awk '{print $2}' "$tmp/out.txt")
[ "${agree:-0}" -ge 2000 ] && ok "$agree ci cases checked" || bad "only ${agree:-0} ci cases checked"
# A planted wrong golden (IS_NAN's first expected value flipped) is caught.
mkdir -p "$tmp/planted"
sed 's/"Values": \[1, /"Values": [0, /' "$root/cases/element_wise_logic/is_nan_float32_encodings.json" > "$tmp/planted/p.json"
cmp -s "$tmp/planted/p.json" "$root/cases/element_wise_logic/is_nan_float32_encodings.json" && bad "the planted golden is unchanged"
if python3 "$py" "$tmp/planted" > "$tmp/out.txt" 2>&1; then bad "a planted wrong golden passed" "$(cat "$tmp/out.txt")"; else ok "a planted wrong golden is caught"; fi
finish "logic-independent: goldens agree with the independent computation"
