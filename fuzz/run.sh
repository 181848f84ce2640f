#!/usr/bin/env bash
# Builds fuzz/fuzz_case.cpp with clang's libFuzzer, ASan and UBSan, and fuzzes the case reader
# for SECONDS (default 60) from the bundled cases/. Crashes land in fuzz/crashes/.
# Needs clang and libclang-rt (Debian: clang, libclang-rt-14-dev or clang-14's own runtime).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=build-fuzz
mkdir -p "$out" fuzz/crashes "$out/corpus"
cp cases/*/*.json "$out/corpus/" 2>/dev/null || true
clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -ffp-contract=off -frounding-math -DDMLREF_VERSION='"fuzz"' \
  -Iinclude -Ilib $(pkg-config --cflags eigen3 nlohmann_json) \
  fuzz/fuzz_case.cpp lib/*.cpp reference/*.cpp reference/fast/*.cpp $(pkg-config --libs gmpxx mpfr) -o "$out/fuzz_case"
"$out/fuzz_case" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix=fuzz/crashes/ -dict=fuzz/case.dict "$out/corpus"
