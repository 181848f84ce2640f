#!/usr/bin/env bash
# Prints every rule id docs/rules.md documents, one per line, sorted: the literal ids, and the
# family tables ("named `<op>.<rule>` with `<op>` one of `a`, `b`:") expanded for each operator.
# Usage: rule_ids.sh SOURCE_ROOT
set -euo pipefail
{ awk '
  /`<op>\.<rule>`/ { collecting = 1; ops = ""; }
  collecting {
    line = $0
    while (match(line, /`[a-z][a-z0-9-]*`/)) { ops = ops " " substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) }
    if ($0 ~ /:$/) { collecting = 0; n = split(ops, family, " "); intable = 1; next }
    next
  }
  intable && /^\|/ {
    first = $0; sub(/^\| */, "", first); sub(/ *\|.*/, "", first)
    while (match(first, /`[a-z][a-z0-9-]*`/)) {
      r = substr(first, RSTART + 1, RLENGTH - 2); first = substr(first, RSTART + RLENGTH)
      for (i = 1; i <= n; ++i) print family[i] "." r
    }
    seen_row = 1
    next
  }
  intable && /^$/ && seen_row { intable = 0; seen_row = 0 }
  !intable {
    line = $0
    while (match(line, /`[a-z][a-z0-9-]*\.[a-z0-9][a-z0-9.-]*`/)) { print substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) }
  }
' "$1/docs/rules.md" | grep -vE '\.(hpp|cpp|json|npy|md)$'
  # Ids that start a table row are rules even when they look like file names (input.npy).
  grep -oE '^\| `[a-z][a-z0-9-]*\.[a-z0-9.-]*`' "$1/docs/rules.md" | tr -d '|` '; } | sort -u
