#!/usr/bin/env bash
# Judge a GPU cross-check run with dmlref diff (docs/crosscheck-gpu.md):
#   tools/crosscheck/judge.sh DMLREF CORPUS RESULTS WORK
# RESULTS holds bundle-*.zip (torch_cuda.py --planted --bundle) and optionally jax-bundle.zip.
# Writes WORK/goldens, WORK/torch/{actual,planted}, WORK/jax/actual and the reports; prints a
# summary: every case of each backend, and every planted bug (each must FAIL).
set -euo pipefail
dmlref=$1 corpus=$2 results=$3 work=$4
here=$(dirname "$0")
mkdir -p "$work"
echo "goldens: $dmlref run $corpus -o $work/goldens"
"$dmlref" run "$corpus" -o "$work/goldens" -q > /dev/null
python3 "$here/unbundle.py" "$results" "$work/torch"
if [ -f "$results/jax-bundle.zip" ]; then
  python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$results/jax-bundle.zip" "$work/jax"
fi
for backend in torch jax; do
  [ -d "$work/$backend/actual" ] || continue
  echo "== $backend"
  "$dmlref" diff "$work/goldens" "$work/$backend/actual" --json "$work/$backend/report.json" > "$work/$backend/report.txt" 2>&1 || true
  # Cases a backend cannot map are errors in directory mode (no actual outputs): not shown.
  grep -E '^(status|PASS|FAIL|ERROR)  ' "$work/$backend/report.txt" | grep -v 'see below' || true
done
echo "== planted bugs (each must FAIL)"
caught=0 missed=0
for bug in "$work"/torch/planted/*/; do
  for c in "$bug"*/; do
    name=$(basename "$c")
    if "$dmlref" diff "$work/goldens/$name.json" "$c" > "$c/report.txt" 2>&1; then
      echo "MISSED $(basename "$bug") $name"; missed=$((missed + 1))
    else
      echo "caught $(basename "$bug") $name: $(grep -m1 -o '[0-9]* over tolerance' "$c/report.txt")"; caught=$((caught + 1))
    fi
  done
done
echo "planted: $caught caught, $missed missed"
