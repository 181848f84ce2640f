#!/usr/bin/env bash
# Every rule id the code can emit (a string literal "family.rule" in lib/, reference/ or tools/)
# is listed in docs/rules.md.
# Usage: rules_documented.sh SOURCE_ROOT
set -euo pipefail
root=$1
missing=0
ids=$(grep -ohE '"[a-z][a-z0-9-]*\.[a-z0-9][a-z0-9.-]*"' "$root"/lib/*/*.cpp "$root"/reference/*.cpp "$root"/tools/*.cpp "$root"/python/*.cpp \
      | tr -d '"' | grep -vE '\.(hpp|cpp|json|npy|md|txt)$' | sort -u)
for id in $ids; do
  grep -qF "\`$id\`" "$root/docs/rules.md" || { echo "rule id not in docs/rules.md: $id"; missing=1; }
done
echo "$(echo "$ids" | grep -c .) rule ids checked against docs/rules.md"
exit $missing
