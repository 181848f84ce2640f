#!/usr/bin/env bash
# The FOLD and UNFOLD goldens against an independent computation (test/fold_independent.py:
# Python's integers, fractions and struct): the bundled cases and the ci tier of sweeps/fold.json
# agree bit for bit, and a planted wrong golden is caught.
# Usage: fold_independent.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
py="$root/test/fold_independent.py"
"$dmlref" gen "$root/sweeps/fold.json" --tier ci -o "$tmp/ci" > /dev/null || fail "dmlref gen exited $?"
for dir in "$root/cases/fold" "$tmp/ci"; do
  if python3 "$py" "$dir" > "$tmp/out.txt" 2>&1; then ok "$(tail -1 "$tmp/out.txt") in ${dir#"$root"/}"; else bad "$dir" "$(tail -5 "$tmp/out.txt")"; fi
done
agree=$(tail -1 "$tmp/out.txt" | awk '{print $2}')
[ "${agree:-0}" -ge 100 ] && ok "$agree ci cases checked" || bad "only ${agree:-0} ci cases checked"
# A planted wrong golden (FOLD's Example 1, its second value 5 made 6) is caught.
mkdir -p "$tmp/planted"
sed 's/"Values": \[0, 5, /"Values": [0, 6, /' "$root/cases/fold/fold_page_example_1.json" > "$tmp/planted/p.json"
cmp -s "$tmp/planted/p.json" "$root/cases/fold/fold_page_example_1.json" && bad "the planted golden is unchanged"
if python3 "$py" "$tmp/planted" > "$tmp/out.txt" 2>&1; then bad "a planted wrong golden passed" "$(cat "$tmp/out.txt")"; else ok "a planted wrong golden is caught"; fi
finish "fold-independent: goldens agree with the independent computation"
