#!/usr/bin/env bash
# docs/clarifications.md is what `dmlref clarifications cases` writes (docs/cli.md), and it has a
# section for every policy with an alternative reading, each with at least one case.
# Usage: clarifications.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$dmlref" clarifications "$root/cases" -o "$tmp/page.md" || { echo "FAIL: dmlref clarifications exited $?"; exit 1; }
if ! cmp -s "$tmp/page.md" "$root/docs/clarifications.md"; then
  echo "FAIL: docs/clarifications.md is not up to date; run: build/tools/dmlref clarifications cases -o docs/clarifications.md"
  diff "$root/docs/clarifications.md" "$tmp/page.md" | head -20
  fail=1
fi
for policy in ArgmaxNaN GradNaN ClipGradBounds SelectedZero ZeroWeightTaps Subnormals ForwardNaN OldNearestNeighbor; do
  grep -q "^## $policy\$" "$tmp/page.md" || { echo "FAIL: no section for $policy"; fail=1; }
done
# A section lists its cases as tables of differing elements.
grep -q '^| OutputTensor | \[0,0,0,0\] | ' "$tmp/page.md" || { echo "FAIL: no element rows"; fail=1; }
[ $fail -eq 0 ] && echo "clarifications: the page is up to date"
exit $fail
