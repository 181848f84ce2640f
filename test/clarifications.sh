#!/usr/bin/env bash
# docs/clarifications.md is what `dmlref clarifications cases` writes (docs/cli.md), and it has a
# section for every policy with an alternative reading, each with at least one case.
# Usage: clarifications.sh DMLREF SOURCE_ROOT
set -u
dmlref=$1
root=$2
. "$(dirname "$0")/lib.sh"
"$dmlref" clarifications "$root/cases" -o "$tmp/page.md" || fail "dmlref clarifications exited $?"
if ! cmp -s "$tmp/page.md" "$root/docs/clarifications.md"; then
  bad "docs/clarifications.md is not up to date; run: build/tools/dmlref clarifications cases -o docs/clarifications.md"
  diff "$root/docs/clarifications.md" "$tmp/page.md" | head -20
fi
for policy in ArgmaxNaN GradNaN ClipGradBounds SelectedZero ZeroWeightTaps Subnormals ForwardNaN OldNearestNeighbor BnActivationSignedZero; do
  grep -q "^## $policy\$" "$tmp/page.md" || bad "no section for $policy"
done
# A section lists its cases as tables of differing elements.
grep -q '^| OutputTensor | \[0,0,0,0\] | ' "$tmp/page.md" || bad "no element rows"
finish "clarifications: the page is up to date"
