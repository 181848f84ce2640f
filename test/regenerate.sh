#!/usr/bin/env bash
# Regenerates every golden under CASES with `dmlref run` and compares the files byte for byte
# with the checked-in ones: the goldens must be reproducible from the cases they hold.
# Usage: regenerate.sh DMLREF CASES
set -euo pipefail
dmlref=$1
cases=$2
. "$(dirname "$0")/lib.sh"
"$dmlref" run --quiet "$cases" -o "$tmp" > "$tmp.log" || { cat "$tmp.log"; fail "dmlref run failed"; }
status=0
checked=0
while IFS= read -r -d '' f; do
  rel=${f#"$cases"/}
  checked=$((checked + 1))
  if ! cmp -s "$f" "$tmp/$rel"; then
    echo "golden differs after regeneration: $rel"
    diff -u "$f" "$tmp/$rel" | head -40 || true
    status=1
  fi
done < <(find "$cases" -name '*.json' -print0)
rm -f "$tmp.log"
echo "$checked goldens regenerated; $([ $status = 0 ] && echo 'all identical' || echo 'some differ')"
exit $status
