#!/usr/bin/env bash
# A harness's round trip: `dmlref run --npy` writes every case's tensors as .npy, and
# `dmlref diff` of the goldens against those outputs must pass for every case.
# Usage: harness_roundtrip.sh DMLREF CASES
set -euo pipefail
dmlref=$1
cases=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$dmlref" run --quiet "$cases" --npy "$out/npy" > "$out/run.log" || { cat "$out/run.log"; exit 1; }
"$dmlref" diff "$cases" "$out/npy" > "$out/diff.log" || { cat "$out/diff.log"; echo "diff of the goldens against their own .npy dump failed"; exit 1; }
tail -1 "$out/diff.log"
