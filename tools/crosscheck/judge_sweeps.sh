#!/usr/bin/env bash
# Judge PyTorch's outputs for the bundled sweeps of the computed families (docs/crosscheck-gpu.md,
# "The bundled sweeps") and sort every failing case into its named difference:
#   tools/crosscheck/judge_sweeps.sh DMLREF CASES WORK NAME=DIR...
# CASES: the goldens (`dmlref gen sweeps/average_pooling.json sweeps/lrn.json --tier ci -o CASES`);
# each DIR holds the zip files torch_cuda.py --bundle wrote for one backend (NAME: cuda, cpu).
# For every FAIL it re-judges the case under the reading PyTorch takes and prints the class:
#   overhang   average pooling, IncludePadding TRUE: the golden re-evaluated with IncludePadding 0
#              passes (PyTorch's count_include_pad divides a window reaching past the padded input by
#              the taps inside it; with no padding those are the real elements)
#   even-L     LRN with an even LocalSize: the case and the outputs mirrored along the channels pass
#              (flip_channels.py: PyTorch's region is DirectML's read from the other side)
#   zero-sign  passes with --zeros-equal: only zeros of the other sign are over tolerance
#   UNEXPLAINED anything else
set -euo pipefail
dmlref=$1 cases=$2 work=$3
shift 3
here=$(dirname "$0")
for spec in "$@"; do
  name=${spec%%=*} dir=${spec#*=}
  out=$work/$name
  rm -rf "$out" && mkdir -p "$out"
  for z in "$dir"/*.zip; do
    python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])" "$z" "$out"
  done
  # Cases PyTorch cannot express have no actual outputs: errors in directory mode, not counted.
  "$dmlref" diff "$cases" "$out/actual" --json "$out/report.json" > "$out/report.txt" 2>&1 || true
  echo "== $name: $(grep -c '^PASS  ' "$out/report.txt") PASS, $(grep -c '^FAIL  ' "$out/report.txt") FAIL"
  for c in $(grep '^FAIL  ' "$out/report.txt" | awk '{print $2}'); do
    golden=$cases/$c.json class=UNEXPLAINED
    check=$out/check/$c
    mkdir -p "$check"
    op=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['operator'])" "$golden")
    case $op in
      *AVERAGE_POOLING*)
        python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
if c['desc'].get('IncludePadding') != 1: sys.exit(1)
c['desc']['IncludePadding'] = 0
c.pop('expected')
json.dump(c, open(sys.argv[2], 'w'))" "$golden" "$check/case.json" &&
          "$dmlref" run "$check/case.json" -o "$check/golden" -q > /dev/null &&
          "$dmlref" diff "$check/golden/case.json" "$out/actual/$c" > "$check/report.txt" 2>&1 && class=overhang ;;
      *LOCAL_RESPONSE_NORMALIZATION*)
        if [ "$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['desc']['LocalSize'] % 2)" "$golden")" = 0 ]; then
          python3 "$here/flip_channels.py" "$golden" "$out/actual/$c" "$check" > /dev/null &&
            "$dmlref" run "$check/case" -o "$check/golden" -q > /dev/null &&
            "$dmlref" diff "$check/golden" "$check/actual" > "$check/report.txt" 2>&1 && class=even-L
        fi ;;
    esac
    if [ $class = UNEXPLAINED ] && "$dmlref" diff "$golden" "$out/actual/$c" --zeros-equal > "$check/zeros.txt" 2>&1; then
      class=zero-sign
    fi
    echo "$class $c: $(grep -m1 -o '[0-9]* over tolerance' <(sed -n '/^FAIL '"${c//\//\\/}"' /,/^[A-Z]/p' "$out/report.txt"))"
  done
done
