#!/usr/bin/env bash
# Every .cpp and .hpp of the tree follows .clang-format (clang-format-14, as the README's first
# command and .ci/run install it). On a failure, it prints the files and the command that fixes them.
set -uo pipefail
src=$1
fmt=$(command -v clang-format-14 || true)
if [ -z "$fmt" ]; then
  echo "clang-format-14 is not installed (apt-get install clang-format-14): skipped"
  exit 77
fi
cd "$src" || exit 1
"$fmt" --dump-config >/dev/null || { echo ".clang-format does not parse"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' 2>/dev/null || find bench fuzz include lib reference test tools -name '*.[ch]pp')
# One run over every file: clang-format names each offending file in its "file:line:col: error" lines.
mapfile -t bad < <("$fmt" --dry-run -Werror "${files[@]}" 2>&1 | sed -nE 's/^([^:]+):[0-9]+:[0-9]+: error: .*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "${#bad[@]} of ${#files[@]} files do not follow .clang-format:"
  printf '  %s\n' "${bad[@]}"
  echo "fix: clang-format-14 -i ${bad[*]}"
  exit 1
fi
echo "${#files[@]} files follow .clang-format"
