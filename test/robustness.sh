#!/usr/bin/env bash
# Hostile inputs and hostile surroundings for the command line (issue 12, docs/rules.md): each
# check names the class it covers and fails with what it saw. Nothing may crash (exit codes over
# 128 are signals), leave a broken file behind, write outside the output folder, read outside
# the case's folder, stop a batch at one bad case, or print a forged log line.
# Usage: robustness.sh DMLREF
set -uo pipefail
dmlref=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

relu() {  # relu NAME INPUT-SPEC [EXTRA-TOP-LEVEL-JSON]
  printf '{"format": 1, "name": "%s", "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}, "inputs": {"InputTensor": %s}%s}\n' "$1" "$2" "${3:-}"
}
mkdir cases
relu good '[1, -2, 3, -4]' > cases/good.json

# ---- 1. Atomic outputs -----------------------------------------------------------------------
n=20000  # a golden of about 300 KB: past the 64 KiB file-size limit of the full-disk check
printf '{"format": 1, "name": "big", "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [%d]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [%d]}}, "inputs": {"InputTensor": {"Random": {"Seed": 1}}}}\n' $n $n > big.json
"$dmlref" run -q big.json -o gold >/dev/null 2>&1 && cp gold/big.json reference.json
# kill -9 at known points of the write, with no delay to guess: the test hook
# DMLREF_TEST_STOP_WRITE (include/dmlref/atomic_file.hpp) makes dmlref stop itself (SIGSTOP) with
# half of the temporary file written ("partial"), or with it whole and flushed but not yet renamed
# ("before-rename"). The new golden (another seed, the same output path) differs from the old one,
# so "the old golden, exactly" is what must be left.
mkdir -p next && sed 's/"Seed": 1/"Seed": 2/' big.json > next/big.json
"$dmlref" run -q next/big.json -o new >/dev/null 2>&1
for point in partial before-rename; do
  DMLREF_TEST_STOP_WRITE=$point "$dmlref" run -q next/big.json -o gold >/dev/null 2>&1 &
  pid=$!
  if ! stopped "$pid"; then
    wait "$pid" 2>/dev/null
    bad "kill -9 at $point" "dmlref never stopped at the test hook"
    cp reference.json gold/big.json
    continue
  fi
  temp=$(ls -A gold | grep '^\.big\.json\.tmp-' | head -1)
  size=$(stat -c %s "gold/$temp" 2>/dev/null || echo 0)
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  if ! cmp -s gold/big.json reference.json; then bad "kill -9 at $point" "the golden is not the old one"
  elif [ -z "$temp" ]; then bad "kill -9 at $point" "no temporary file at the stop"
  elif [ "$point" = partial ] && ! { [ "$size" -gt 0 ] && [ "$size" -lt "$(stat -c %s new/big.json)" ]; }; then
    bad "kill -9 at $point" "the temporary file is not part-written ($size bytes)"
  elif [ "$point" = before-rename ] && ! cmp -s "gold/$temp" new/big.json; then
    bad "kill -9 at $point" "the temporary file is not the whole new golden"
  else ok "kill -9 at $point (temporary file $size bytes) leaves the old golden exactly"; fi
  # A kill -9 leaves its hidden temporary file (never a broken golden); the next write of the same
  # file removes the temporary files of writers that are gone (their pid is in the name).
  "$dmlref" run -q next/big.json -o gold >/dev/null 2>&1
  [ -z "$(ls -A gold | grep '^\.big\.json\.tmp-')" ] && ok "the next write removed the killed writer's temporary file" \
    || bad "the next write removed the killed writer's temporary file" "$(ls -A gold)"
  cp reference.json gold/big.json
done
"$dmlref" run -q next/big.json -o gold >/dev/null 2>&1
cmp -s gold/big.json new/big.json && [ "$(ls -A gold)" = big.json ] && ok "an uninterrupted run -o replaces the golden with the new one, no temporary file left" \
  || bad "an uninterrupted run -o replaces the golden" "$(ls -A gold | tr '\n' ' ')"

# Concurrent writers (parallel CI shards): two run -o of different cases with one name into one
# folder. The golden and its .npy files are one unit under the folder's lock
# (include/dmlref/folder_lock.hpp), so whatever the interleaving, the folder holds one writer's
# whole golden: byte for byte the golden that writer makes alone, every .npy it names present
# with the digest it states, and no other .npy. Without the lock, one writer's clean-up removed
# the .npy the other's golden was about to name (about one trial in five). 30 trials, about 2 s.
mkdir -p shardA shardB
for s in 1 2; do
  d=$([ "$s" = 1 ] && echo shardA || echo shardB)
  printf '{"format": 1, "name": "c", "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4096]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4096]}}, "inputs": {"InputTensor": {"Random": {"Seed": %d}}}}\n' "$s" > "$d/c.json"
  "$dmlref" run -q "$d/c.json" -o "alone$s" --npy-threshold 99 >/dev/null 2>&1
done
rcs=""
for i in $(seq 30); do
  [ $((i % 2)) = 1 ] && rm -rf conc  # half into an empty folder, half over the last trial's golden
  "$dmlref" run -q shardA/c.json -o conc --npy-threshold 99 >/dev/null 2>&1 &
  a=$!
  "$dmlref" run -q shardB/c.json -o conc --npy-threshold 99 >/dev/null 2>&1 &
  b=$!
  wait "$a"; ra=$?
  wait "$b"; rb=$?
  rcs="$rcs $ra$rb"
  cp -r conc "trial$i"
done
if echo "$rcs" | grep -q '[^0 ]'; then bad "concurrent run -o: both writers exit 0" "exit codes:$rcs"; fi
python3 - "$(seq -s ' ' 30)" <<'PY' && ok "concurrent run -o (30 trials): one writer's whole golden, its .npy files present and matching, no other" || bad "concurrent run -o leaves one writer's whole golden"
import hashlib, json, os, sys
alone = [open(f"alone{s}/c.json", "rb").read() for s in (1, 2)]
broken = []
for i in sys.argv[1].split():
    d = f"trial{i}"
    text = open(f"{d}/c.json", "rb").read()
    golden = json.loads(text)
    named = {}
    for o in golden["expected"].values():
        if "Npy" in o:
            named[o["Npy"]] = o["Sha256"]
    present = {f for f in os.listdir(d) if f.endswith(".npy")}
    why = []
    if text not in alone:
        why.append("the golden is neither writer's")
    for f, digest in named.items():
        if f not in present:
            why.append(f"names {f}, which is gone")
        elif hashlib.sha256(open(f"{d}/{f}", "rb").read()).hexdigest() != digest:
            why.append(f"{f} does not match its Sha256")
    if present - set(named):
        why.append(f"stray .npy files {sorted(present - set(named))}")
    if why:
        broken.append(f"trial {i}: " + "; ".join(why))
if broken:
    print("\n".join(broken))
sys.exit(1 if broken else 0)
PY

# The same for gen -o: two specs giving one case name, written at once. The first gen is stopped
# (the test hook) with its file written but not yet renamed into place; the second must wait for
# the folder's lock, then find the first's file and refuse to replace it without --overwrite
# (exit 2). Without the lock both checked an empty folder, and both exited 0, the second's file
# silently replaced.
for s in 1 2; do
  printf '{"sweep": 1, "sweeps": [{"name": "same", "seed": %d, "base": {"operator": "ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "auto", "Sizes": "auto"}}, "inputs": {"InputTensor": {"Recipe": "random"}}}}]}\n' "$s" > "spec$s.json"
done
"$dmlref" gen spec1.json -o genalone >/dev/null 2>&1
DMLREF_TEST_STOP_WRITE=before-rename "$dmlref" gen spec1.json -o genconc >/dev/null 2>&1 &
g1=$!
if ! stopped "$g1"; then
  wait "$g1" 2>/dev/null
  bad "concurrent gen -o" "the first gen never stopped at the test hook"
else
  "$dmlref" gen spec2.json -o genconc >/dev/null 2>gen2.err &
  g2=$!
  # Until the second gen has ended, or waits for the lock (a "->" line of /proc/locks).
  for _ in $(seq 500); do
    kill -0 "$g2" 2>/dev/null || break
    grep -q -- "-> FLOCK.* $g2 " /proc/locks && break
    sleep 0.01
  done
  kill -CONT "$g1"
  wait "$g1"; r1=$?
  wait "$g2"; r2=$?
  if [ "$r1" != 0 ] || [ "$r2" != 2 ]; then bad "concurrent gen -o: the first writes, the second finds its file" "exits $r1 and $r2, want 0 and 2"
  elif ! grep -q "exists with different contents" gen2.err; then bad "concurrent gen -o: the second says why" "$(head -c 300 gen2.err)"
  elif ! cmp -s genconc/same/random.json genalone/same/random.json; then bad "concurrent gen -o: the first's file is kept" "it changed"
  else ok "concurrent gen -o: the second waits for the first, then refuses to replace its file (exit 2)"; fi
fi

# A full disk: writes fail (EFBIG under a file-size limit, as ENOSPC would); exit 2, old file kept.
# (A kill -9 above may leave a stray hidden temporary file in gold/, never a broken golden; this
# check uses a folder of its own.)
mkdir -p full && cp reference.json full/big.json
( ulimit -f 64; trap '' XFSZ; exec "$dmlref" run -q big.json -o full ) >out.txt 2>err.txt
rc=$?
if [ "$rc" -ne 2 ]; then bad "a failed write exits 2" "exit $rc"
elif ! cmp -s full/big.json reference.json; then bad "a failed write keeps the old golden" "the golden changed"
elif [ "$(ls -A full)" != big.json ]; then bad "a failed write removes its temporary file" "$(ls -A full | tr '\n' ' ')"
else ok "a failed write (full disk) exits 2 and keeps the old golden"; fi
"$dmlref" run -q cases/good.json -o g1 >/dev/null 2>&1
expect "diff --json to a device (/dev/full) is refused" 2 "file.not-regular" -- "$dmlref" diff g1/good.json g1/good.json --json /dev/full

# A symbolic link in OUT is not written through.
mkdir -p linked && echo "victim" > victim.txt && ln -s "$tmp/victim.txt" linked/good.json
expect "a symbolic link in OUT is refused" 2 "file.not-regular" -- "$dmlref" run -q cases/good.json -o linked
[ "$(cat victim.txt)" = victim ] && ok "the link's target is untouched" || bad "the link's target is untouched" "it was overwritten"

gname0=$("$dmlref" gen "ACTIVATION_RELU FLOAT32 4" --list 2>/dev/null | head -1)
# A linked folder inside OUT is not written through either (only the last component was checked):
# run -o, --npy and gen -o refuse it and leave the folder it points at empty.
mkdir -p nested/sub elsewhere linkout/ npyout/ genout/ && relu nested '[1, 2, 3, 4]' > nested/sub/one.json
ln -s "$tmp/elsewhere" linkout/sub && ln -s "$tmp/elsewhere" npyout/one && ln -s "$tmp/elsewhere" "genout/$(dirname "$gname0")"
expect "run -o refuses a linked folder inside OUT" 2 "linkout/sub is a symbolic link.*file.not-regular" -- "$dmlref" run -q nested -o linkout
expect "run --npy refuses a linked folder inside DIR" 2 "npyout/one is a symbolic link.*file.not-regular" -- "$dmlref" run -q nested/sub/one.json --npy npyout
expect "gen -o refuses a linked folder inside DIR" 2 "file.not-regular" -- "$dmlref" gen "ACTIVATION_RELU FLOAT32 4" -o genout
[ -z "$(ls -A elsewhere)" ] && ok "nothing was written into the linked folder" || bad "nothing was written into the linked folder" "$(ls elsewhere)"

# The same for coverage's reports (--json, --html), and gen's case files: gen's temporary file was
# a fixed name beside the target (NAME.json.tmp), so a link planted there was written through.
mkdir -p covlink && echo "victim" > covvictim.txt && ln -s "$tmp/covvictim.txt" covlink/cov.json
expect "coverage --json refuses a symbolic link" 2 "file.not-regular" -- "$dmlref" coverage cases --json covlink/cov.json
[ "$(cat covvictim.txt)" = victim ] && ok "coverage: the link's target is untouched" || bad "coverage: the link's target is untouched" "it was overwritten"
gname=$("$dmlref" gen "ACTIVATION_RELU FLOAT32 4" --list 2>/dev/null | head -1)
mkdir -p "gdir/$(dirname "$gname")" && echo "victim" > genvictim.txt && ln -s "$tmp/genvictim.txt" "gdir/$gname.json.tmp"
"$dmlref" gen "ACTIVATION_RELU FLOAT32 4" -o gdir >/dev/null 2>&1
if [ -z "$gname" ]; then bad "gen writes no file through a planted link" "gen --list named no case"
elif [ "$(cat genvictim.txt)" != victim ]; then bad "gen writes no file through a planted link" "the link's target was overwritten"
elif ! grep -q '"operator"' "gdir/$gname.json" 2>/dev/null; then bad "gen writes no file through a planted link" "gdir/$gname.json was not written"
else ok "gen writes its case whole, through no planted link"; fi

# Two cases with the same output path.
mkdir -p a b && cp cases/good.json a/x.json && cp cases/good.json b/x.json
expect "two cases mapping to one golden are refused" 2 "output.collision" -- "$dmlref" run -q a/x.json b/x.json -o coll

# ---- 2. Sizes, depth, work -------------------------------------------------------------------
printf '{"format": 1, "operator": "DML_OPERATOR_SLICE1", "desc": {"InputTensor": {"DataType": "FLOAT64", "Sizes": [1073741825], "Strides": [2147483648]}, "OutputTensor": {"DataType": "FLOAT64", "Sizes": [1]}, "DimensionCount": 1, "InputWindowOffsets": [1073741824], "InputWindowSizes": [1], "InputWindowStrides": [1]}, "inputs": {"InputTensor": {"Fill": 1}}}\n' > overflow.json
expect "a buffer size past 2^64 is an error (validate)" 2 "tensor.size-overflow" -- "$dmlref" validate overflow.json
expect "a buffer size past 2^64 is an error (run, largest --max-bytes)" 2 "tensor.size-overflow" -- "$dmlref" run -q overflow.json --max-bytes 18446744073709551615
python3 -c "print('{\"format\": 1, \"operator\": \"DML_OPERATOR_ACTIVATION_RELU\", \"desc\": {\"InputTensor\": {\"DataType\": \"FLOAT32\", \"Sizes\": ' + '[' * 100000 + ']' * 100000 + '}}}')" > deep.json
expect "100000 nested arrays: json.depth" 2 "json.depth" -- "$dmlref" validate deep.json
printf '{"format": 1, "operator": "DML_OPERATOR_MAX_POOLING", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2048, 2048]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1025, 1025]}, "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [1024, 1024], "StartPadding": [0, 0], "EndPadding": [0, 0]}, "inputs": {"InputTensor": {"Fill": 1}}}\n' > pool.json
expect "10^12 reads: limit.work names --max-work" 2 "raise it with --max-work" -- timeout 60 "$dmlref" run -q pool.json
relu work '{"Fill": 1}' > work.json
expect "--max-work 7 refuses 8 element reads and writes" 2 "limit.work" -- "$dmlref" run -q work.json --max-work 7
expect "--max-work 8 allows them" 0 "" -- "$dmlref" run -q work.json --max-work 8
# LRN within the channel: LocalSize 1024 over a 1024x1024 plane is a million reads per element
# (10^12 in all, hours of exact arithmetic); the work estimate counts the window.
printf '{"format": 1, "operator": "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1024, 1024]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 1024, 1024]}, "CrossChannel": 0, "LocalSize": 1024, "Alpha": 1, "Beta": 0.75, "Bias": 1}, "inputs": {"InputTensor": {"Fill": 1}}}\n' > lrn_wide.json
expect "LRN's window counts in --max-work (LocalSize 1024 within the channel)" 2 "limit.work" -- timeout 60 "$dmlref" run -q lrn_wide.json
# The computed operators: rounding an element correctly (Ziv's loop in MPFR, exact rationals) costs
# hundreds of reads, which the estimate counts from the operator's rounding cost (docs/rules.md,
# limit.work). ACTIVATION_SIGMOID, 700 an element, over 4 FLOAT32 elements: 4 reads, 4 writes and
# 4 x 700, 2808 in all.
printf '{"format": 1, "operator": "DML_OPERATOR_ACTIVATION_SIGMOID", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}, "inputs": {"InputTensor": {"Fill": 1}}}\n' > sigmoid.json
expect "a computed case one over --max-work is refused (SIGMOID: 2808 > 2807)" 2 "limit.work" -- "$dmlref" run -q sigmoid.json --max-work 2807
expect "a computed case at --max-work is admitted (SIGMOID: 2808)" 0 "" -- "$dmlref" run -q sigmoid.json --max-work 2808
# LP_POOLING's cost grows with its window, 70 a tap: P = 3 over 1x1x6, window 3, stride 3 (two
# outputs) is (6 + 2) x 3 reads and writes and 2 x 3 x 70, 444 in all.
printf '{"format": 1, "operator": "DML_OPERATOR_LP_POOLING", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 6]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1, 1, 2]}, "DimensionCount": 1, "Strides": [3], "WindowSize": [3], "StartPadding": [0], "EndPadding": [0], "P": 3}, "inputs": {"InputTensor": {"Fill": 1}}}\n' > lp_pool.json
expect "LP_POOLING one over --max-work is refused (444 > 443)" 2 "limit.work" -- "$dmlref" run -q lp_pool.json --max-work 443
expect "LP_POOLING at --max-work is admitted (444)" 0 "" -- "$dmlref" run -q lp_pool.json --max-work 444
# At the default limit: GELU over 4Mi FLOAT64 elements (about 25 us an element, well over a
# minute) was admitted at 8Mi reads and writes; its 1600 an element put it past 2^32.
expect "a 4Mi-element FLOAT64 GELU is refused at the default --max-work" 2 "limit.work" -- timeout 60 "$dmlref" run -q "ACTIVATION_GELU FLOAT64 4194304"
# All-padding pooling windows: each is an entry of the operator's own DontCare list, which counts
# 128 element reads and writes (docs/rules.md, limit.work). A 1x1 input padded by 65000 after it
# along both axes, window 1: 65001^2 = 4,225,130,001 outputs, all but one all padding. As outputs
# alone that is under the default 2^32; as a DontCare list it would take some 500 GB.
pool_pad() {  # pool_pad DATATYPE END-PADDING
  local o=$(($2 + 1))
  printf '{"format": 1, "operator": "DML_OPERATOR_MAX_POOLING", "desc": {"InputTensor": {"DataType": "%s", "Sizes": [1, 1, 1, 1]}, "OutputTensor": {"DataType": "%s", "Sizes": [1, 1, %d, %d]}, "DimensionCount": 2, "Strides": [1, 1], "WindowSize": [1, 1], "StartPadding": [0, 0], "EndPadding": [%d, %d]}, "inputs": {"InputTensor": {"Fill": 1}}}\n' "$1" "$1" $o $o "$2" "$2"
}
pool_pad INT8 65000 > padded_huge.json
expect "a huge all-padding DontCare list is refused (validate)" 2 "limit.work" -- timeout 60 "$dmlref" validate padded_huge.json
expect "a huge all-padding DontCare list is refused before any allocation (run)" 2 "limit.work" -- timeout 60 "$dmlref" run -q padded_huge.json
# Hand count for EndPadding 3: 1 input element + 16 outputs x window 1 + 15 empty windows x 128 = 1937.
pool_pad FLOAT32 3 > padded_small.json
expect "15 all-padding windows: --max-work 1936 refuses" 2 "limit.work" -- "$dmlref" run -q padded_small.json --max-work 1936
expect "15 all-padding windows: --max-work 1937 allows" 0 "" -- "$dmlref" run -q padded_small.json --max-work 1937 -o padded_out
[ "$(grep -c '"Reason": "EmptyWindow' padded_out/padded_small.json)" -eq 15 ] && ok "the golden lists the 15 empty windows" \
  || bad "the golden lists the 15 empty windows" "$(grep -c '"Reason": "EmptyWindow' padded_out/padded_small.json) listed"
# A million all-padding windows: the golden's DontCare list is merged in n log n (a search of the
# list per entry took some 5 * 10^11 comparisons here, minutes; hours at four million). The
# release build writes its 160 MB golden in 10 to 20 s; under the sanitizers that took 180 s, so a
# sanitizer build (DMLREF_TEST_TIER, set by test/meson.build) writes 63,000 instead and
# leaves the time bound to the release build.
if [ "${DMLREF_TEST_TIER:-release}" = sanitizer ]; then
  pool_pad INT8 250 > padded_million.json; empty_windows=63000; million_label="63,000 empty windows are written (sanitizer tier)"
else
  pool_pad INT8 1000 > padded_million.json; empty_windows=1002000; million_label="a million empty windows are written in time"
fi
expect "$million_label" 0 "" -- timeout 90 "$dmlref" run -q padded_million.json -o padded_million_out
[ "$(grep -c '"Reason": "EmptyWindow' padded_million_out/padded_million.json)" -eq $empty_windows ] && ok "the golden lists the $empty_windows empty windows" \
  || bad "the golden lists the $empty_windows empty windows" "$(grep -c '"Reason": "EmptyWindow' padded_million_out/padded_million.json) listed"
rm -rf padded_million_out

# ---- 3. Strict JSON and option values --------------------------------------------------------
printf '{"format": 1, "name": "a", "name": "b", "operator": "DML_OPERATOR_ACTIVATION_RELU"}\n' > dup.json
expect "duplicate keys" 2 "/name: error: .*json.duplicate-key" -- "$dmlref" validate dup.json
relu n '[1, 2, 3, 4]' | sed 's/"name": "n"/"name": 5/' > name.json
expect "name as a number" 2 "/name: error: .*case.type" -- "$dmlref" validate name.json
relu d '[1, 2, 3, 4]' ', "description": ["x"]' > desc.json
expect "description as an array" 2 "/description: error: .*case.type" -- "$dmlref" validate desc.json
relu p '[1, 2, 3, 4]' ', "provenance": {"dmlref": "0.1.0", "format": 1, "secret": 1}' > prov.json
expect "unknown key in provenance" 2 "/provenance/secret: error: .*case.unknown-key" -- "$dmlref" validate prov.json
relu r '{"Random": {"Seed": 1, "Distribution": 7}}' > dist.json
expect "Random Distribution as a number" 2 "/inputs/InputTensor/Random/Distribution: error: .*input.random-distribution" -- "$dmlref" validate dist.json
relu e '[1, 2, 3, 4]' ', "expected": {"OutputTensor": {"Values": [1, 0, 3, 0], "Tolerance": {"Kind": "Bits", "Why": 3}}}' > why.json
expect "Tolerance Why as a number" 2 "/expected/OutputTensor/Tolerance/Why: error: .*case.type" -- "$dmlref" validate why.json
relu k '[1, 2, 3, 4]' ', "expected": {"OutputTensor": {"Values": [1, 0, 3, 0], "Tolerance": {"Kind": 1}}}' > kind.json
expect "Tolerance Kind as a number" 2 "/expected/OutputTensor/Tolerance/Kind: error: .*expected.tolerance" -- "$dmlref" validate kind.json
relu c '[1, 2, 3, 4]' ', "expected": {"OutputTensor": {"Values": [1, 0, 3, 0], "DontCare": [{"Index": 1, "Reason": "r", "Extra": 1}]}}' > dc.json
expect "unknown key in DontCare" 2 "/expected/OutputTensor/DontCare/0/Extra: error: .*case.unknown-key" -- "$dmlref" validate dc.json
expect "negative --max-bytes" 2 "" -- "$dmlref" run -q cases/good.json --max-bytes -1
expect "negative --max-work" 2 "" -- "$dmlref" validate cases/good.json --max-work -5
expect "negative --worst" 2 "" -- "$dmlref" diff g1/good.json g1/good.json --worst -1
expect "negative diff --max-bytes" 2 "" -- "$dmlref" diff g1/good.json g1/good.json --max-bytes -1
expect "negative coverage --max-bytes" 2 "" -- "$dmlref" coverage cases/good.json --max-bytes -1
mkdir -p broken && printf '{"format": 1, "operator": "NO_SUCH_OPERATOR"}\n' > broken/a.json && printf '[' > broken/b.json
expect "coverage over unreadable cases exits 2, naming them" 2 "broken/b.json" -- "$dmlref" coverage broken
expect "negative reduce --max-runs" 2 "" -- "$dmlref" reduce g1/good.json --backend true --max-runs -1

# ---- 4. Paths confined to the case's folder --------------------------------------------------
mkdir -p inner/sub
python3 - <<'EOF'
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
data = b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + b'\x00' * 16
open('secret.npy', 'wb').write(data)
open('inner/sub/ok.npy', 'wb').write(data)
EOF
ln -s "$tmp/secret.npy" inner/link.npy
relu u '{"Npy": "../secret.npy"}' > inner/up.json
relu s '{"Npy": "'"$tmp"'/secret.npy"}' > inner/abs.json
relu l '{"Npy": "link.npy"}' > inner/link.json
relu z '{"Npy": "sub/ok.npy\u0000.txt"}' > inner/nul.json
relu i '{"Npy": "sub/ok.npy"}' > inner/in.json
expect "Npy path with .. out of the folder" 2 "input.npy-path" -- "$dmlref" validate inner/up.json
expect "absolute Npy path" 2 "input.npy-path" -- "$dmlref" validate inner/abs.json
expect "Npy through a link out of the folder" 2 "input.npy-path" -- "$dmlref" validate inner/link.json
expect "Npy name with a NUL byte" 2 "input.npy-path" -- "$dmlref" validate inner/nul.json
expect "Npy inside the folder is read" 0 "" -- "$dmlref" validate inner/in.json
expect "--allow-paths lets .. through" 0 "" -- "$dmlref" validate --allow-paths inner/up.json
# The same for a DxDispatch model's sourcePath (dxdispatch.source-path).
dx() {  # dx SOURCE-PATH-JSON-STRING
  printf '{"resources": {"input": {"initialValuesDataType": "FLOAT32", "initialValues": {"sourcePath": %s}}, "output": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 4, "value": 0}}}, "dispatchables": {"relu": {"type": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]}}}}, "commands": [{"type": "dispatch", "dispatchable": "relu", "bindings": {"InputTensor": "input", "OutputTensor": "output"}}]}\n' "$1"
}
dx '"../secret.npy"' > inner/dx_up.json
dx '"'"$tmp"'/secret.npy"' > inner/dx_abs.json
dx '"link.npy"' > inner/dx_link.json
dx '"sub/ok.npy\u0000.txt"' > inner/dx_nul.json
dx '"secret.npy"' > inner/dx_cwd.json
dx '"sub/ok.npy"' > inner/dx_in.json
expect "sourcePath with .. out of the model's folder" 2 "/resources/input/initialValues/sourcePath: error: .*dxdispatch.source-path" -- "$dmlref" import-dxdispatch inner/dx_up.json
expect "absolute sourcePath" 2 "dxdispatch.source-path" -- "$dmlref" import-dxdispatch inner/dx_abs.json
expect "sourcePath through a link out of the folder" 2 "dxdispatch.source-path" -- "$dmlref" import-dxdispatch inner/dx_link.json
expect "sourcePath with a NUL byte" 2 "dxdispatch.source-path" -- "$dmlref" import-dxdispatch inner/dx_nul.json
expect "sourcePath missing beside the model is not read from the current folder" 2 "" -- "$dmlref" import-dxdispatch inner/dx_cwd.json
expect "sourcePath inside the folder is read" 0 "" -- "$dmlref" import-dxdispatch inner/dx_in.json
expect "--allow-paths lets a sourcePath .. through" 0 "" -- "$dmlref" import-dxdispatch --allow-paths inner/dx_up.json
expect "--allow-paths reads a sourcePath from the current folder, as DxDispatch does" 0 "" -- "$dmlref" import-dxdispatch --allow-paths inner/dx_cwd.json

# ---- 5. Batches go on ------------------------------------------------------------------------
mkdir -p batch && cp dist.json batch/a_bad.json && cp cases/good.json batch/z_good.json
ln -s "$tmp/nowhere.json" batch/m_dangling.json
printf 'x' > "batch/n_$(printf '\xff')name.json"
expect "a batch reports its broken cases" 2 "m_dangling.json: /: error: .*file.read" -- "$dmlref" run -q batch -o batch_out
grep -q "file.name" err.txt && ok "a non-UTF-8 file name is an error" || bad "a non-UTF-8 file name is an error" "$(head -c 300 err.txt)"
[ -s batch_out/z_good.json ] && ok "the good case after the broken ones still ran" || bad "the good case after the broken ones still ran" "no golden"
# A .npy header holding bytes that are not UTF-8: an error in the report, and the report written whole.
python3 - <<'PY'
h = "{'descr': '<f\xff4', 'fortran_order': False, 'shape': (4,), }"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\n'
open('bad_header.npy', 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode('latin-1') + b'\x00' * 16)
PY
expect "a .npy header that is not UTF-8 is an error" 2 "" -- "$dmlref" diff g1/good.json --output OutputTensor=bad_header.npy --json report.json
python3 -c "import json; json.load(open('report.json'))" 2>/dev/null && ok "the JSON report is still written, whole" || bad "the JSON report is still written, whole" "report.json missing or broken"
# Unreadable folders (mode 000). Root reads them anyway, so run as root (as CI is) these checks
# run dmlref as an unprivileged user (uid and gid 65534, nobody) through setpriv.
as_user() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; else "$@"; fi; }
chmod 755 "$tmp"
user_dmlref=$dmlref
if ! as_user "$dmlref" --version >/dev/null 2>&1; then  # the build folder may be closed to nobody: a copy
  mkdir -p bin && cp "$dmlref" bin/ && ldd "$dmlref" | awk '/libdmlref/ {print $3}' | xargs -r -I{} cp {} bin/
  chmod -R a+rX bin
  user_dmlref=$tmp/bin/dmlref
fi
as_user env LD_LIBRARY_PATH="$tmp/bin" "$user_dmlref" --version >/dev/null 2>&1 || bad "dmlref runs as an unprivileged user" "it does not"
mkdir -p locked/inner locked/zz && cp cases/good.json locked/inner/x.json && cp cases/good.json locked/zz/y.json
chmod -R a+rX locked && chmod 000 locked/inner
expect "an unreadable folder is an error (validate DIR)" 2 "inner: /: error: cannot read the folder" -- as_user env LD_LIBRARY_PATH="$tmp/bin" "$user_dmlref" validate locked
mkdir -p dgold/a_locked dgold/b_locked dgold/c_ok act/c_ok
"$dmlref" run -q cases/good.json -o dgold/c_ok >/dev/null 2>&1
cp dgold/c_ok/good.json dgold/a_locked/ && cp dgold/c_ok/good.json dgold/b_locked/ && cp dgold/c_ok/good.json act/c_ok/
chmod -R a+rX dgold act && chmod 000 dgold/a_locked dgold/b_locked
expect "diff DIR: an unreadable folder is an error" 2 "a_locked: cannot read the folder" -- as_user env LD_LIBRARY_PATH="$tmp/bin" "$user_dmlref" diff dgold act
grep -q "b_locked: cannot read the folder" err.txt && ok "diff DIR reports every unreadable folder (the walk goes on)" \
  || bad "diff DIR reports every unreadable folder" "$(head -c 400 err.txt)"
grep -Eq "^PASS +good " out.txt && ok "diff DIR still judges the readable case" || bad "diff DIR still judges the readable case" "$(head -c 400 out.txt)"
chmod 755 locked/inner dgold/a_locked dgold/b_locked

# ---- 6. Names are printed escaped ------------------------------------------------------------
relu 'x\n[1/1] PASS  forged\u001b[2K' '[1, 2, 3, 4]' > forged.json
"$dmlref" run forged.json >out.txt 2>err.txt
if grep -q $'\x1b' out.txt err.txt; then bad "names are escaped" "an escape character reached the log"
elif [ "$(grep -c '^\[1/1\]' out.txt)" -ne 1 ]; then bad "names are escaped" "a forged line: $(cat out.txt)"
else ok "names are escaped (no forged line, no terminal escape)"; fi
"$dmlref" run -q forged.json -o forged_out >/dev/null 2>&1
"$dmlref" diff forged_out/forged.json forged_out/forged.json >out.txt 2>err.txt
if grep -q $'\x1b' out.txt err.txt; then bad "diff prints names escaped" "an escape character reached the report"
elif grep -q '^\[1/1\] PASS' out.txt; then bad "diff prints names escaped" "a forged line: $(head -c 300 out.txt)"
else ok "diff prints names escaped (no forged line, no terminal escape)"; fi

# ---- 7. Errors stay lines: a megabyte key or number is quoted clipped --------------------------
python3 -c "
k = 'k' * 1048576
print('{\"format\": 1, \"operator\": \"DML_OPERATOR_ACTIVATION_RELU\", \"' + k + '\": 1, \"desc\": {\"InputTensor\": {\"DataType\": \"FLOAT32\", \"Sizes\": [1]}, \"OutputTensor\": {\"DataType\": \"FLOAT32\", \"Sizes\": [1]}}, \"inputs\": {\"InputTensor\": [1]}}')" > bigkey.json
expect "a megabyte unknown key is an error" 2 "case.unknown-key" -- "$dmlref" validate bigkey.json
[ "$(wc -c < err.txt)" -lt 8192 ] && ok "its error is a few lines ($(wc -c < err.txt) bytes)" || bad "its error is a few lines" "$(wc -c < err.txt) bytes"

# One non-number after four million numbers: the tensor's array stays packed (it was re-read as a
# node per number to report that one: about 190 bytes a number, 3 GB for 16 million). The largest
# resident size of the reading, from the kernel's count, stays far below that.
python3 -c "
n = 4000000
print('{\"format\": 1, \"operator\": \"DML_OPERATOR_ACTIVATION_RELU\", \"desc\": {\"InputTensor\": {\"DataType\": \"FLOAT32\", \"Sizes\": [%d]}, \"OutputTensor\": {\"DataType\": \"FLOAT32\", \"Sizes\": [%d]}}, \"inputs\": {\"InputTensor\": [' % (n, n) + '1.5, ' * (n - 1) + 'null]}}')" > late_null.json
rss=$(python3 -c "
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], 'validate', 'late_null.json'], capture_output=True, text=True)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, 'value.parse' in r.stderr and '/inputs/InputTensor/3999999' in r.stderr)" "$dmlref")
case $rss in
  "2 "*" True") [ "$(echo "$rss" | cut -d' ' -f2)" -lt 400 ] && ok "a null after 4M numbers: value.parse at its index, $(echo "$rss" | cut -d' ' -f2) MB resident" \
                  || bad "a null after 4M numbers stays packed" "$(echo "$rss" | cut -d' ' -f2) MB resident" ;;
  *) bad "a null after 4M numbers: value.parse at /inputs/InputTensor/3999999" "$rss" ;;
esac

# ---- 8. Hostile gen specs and options (docs/rules.md: gen.use-cycle, gen.too-many-cases, policy.twice)
printf '{"sweep": 1, "name": "s", "defs": {"a": {"use": "b"}, "b": {"use": "a"}}, "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"use": "a"}}\n' > cycle.json
expect "a use cycle is an error, not a stack overflow" 2 "cycle.json: /defs/b/use: error: .*gen.use-cycle" -- timeout 60 "$dmlref" gen cycle.json --list
python3 -c "
import json
axes = [{'pointer': '/x%d' % i, 'values': list(range(10))} for i in range(12)]
print(json.dumps({'sweep': 1, 'name': 's', 'base': {'operator': 'ACTIVATION_RELU', 'desc': {}}, 'cases': {'product': axes}}))" > huge.json
# (Expanding them first took 5.7 GB and minutes; the time limit catches that, where a memory limit
# would also stop the sanitizer build's own reservations.)
expect "10^12 cases are refused from the counts (gen --list)" 2 "gen.too-many-cases" -- timeout 20 "$dmlref" gen huge.json --list
printf '{"sweep": 1, "name": "s", "base": {"operator": "ACTIVATION_RELU", "desc": {}}, "cases": {"pointer": "/x", "values": [1, 2, 3]}}\n' > three.json
sed 's/"name": "s"/"name": "t"/' three.json > three_t.json
expect "gen --max-cases 5: two specs of three cases are refused" 2 "gen.too-many-cases" -- "$dmlref" gen three.json three_t.json --list --max-cases 5
expect_stdout=1
expect "gen --max-cases 6 allows them" 0 "^6 cases" -- "$dmlref" gen three.json three_t.json --list --max-cases 6
expect_stdout=0
expect_stdout=1
expect "--shard 0/(2^64-1) holds: one case of three" 0 "^1 cases" -- "$dmlref" gen three.json --list --shard 0/18446744073709551615
expect_stdout=0
cp three.json three_again.json
expect "two specs giving cases of one name are refused (one file cannot hold both)" 2 "three_again.json: /: error: .*gen.duplicate-name" -- \
  "$dmlref" gen three.json three_again.json -o dup_out --overwrite
[ ! -e dup_out ] && ok "nothing written for them" || bad "nothing written for them" "$(ls dup_out)"
expect "--policy given twice is an error (the order would decide PASS or FAIL)" 2 "policy.twice" -- \
  "$dmlref" run -q cases/good.json --policy NonFiniteSum=CanonicalNaN --policy NonFiniteSum=CanonicalNaN

# ---- Outputs that exist: refused, replaced whole only with --overwrite ---------------------------
relu other '[5, -6, 7, -8]' > cases/other.json
"$dmlref" export-dxdispatch cases/good.json -o model.json >/dev/null 2>&1 || bad "export-dxdispatch" "exit $?"
expect "export-dxdispatch refuses an existing model" 2 "model.json: /: error: .*--overwrite \\[file.write\\]" -- \
  "$dmlref" export-dxdispatch cases/other.json -o model.json
grep -q '"initialValues": \[1, -2, 3, -4\]' model.json && ok "the refused export left the model as it was" || bad "the refused export left the model" "$(head -c 300 model.json)"
expect "export-dxdispatch --overwrite replaces it" 0 "" -- "$dmlref" export-dxdispatch cases/other.json -o model.json --overwrite
grep -q '"initialValues": \[5, -6, 7, -8\]' model.json && ok "the model replaced" || bad "the model replaced" "$(head -c 300 model.json)"
"$dmlref" import-dxdispatch model.json -o imported.json >/dev/null 2>&1 || bad "import-dxdispatch" "exit $?"
expect "import-dxdispatch refuses an existing case" 2 "imported.json: /: error: .*--overwrite \\[file.write\\]" -- \
  "$dmlref" import-dxdispatch model.json -o imported.json
expect "import-dxdispatch --overwrite replaces it" 0 "" -- "$dmlref" import-dxdispatch model.json -o imported.json --overwrite
printf 'exit 0\n' > noop_backend.sh
: > reduced.json
expect "reduce refuses an existing output before running the backend" 2 "reduced.json: /: error: .*--overwrite \\[file.write\\]" -- \
  "$dmlref" reduce cases/good.json --backend "bash noop_backend.sh" -o reduced.json

# ---- run shows a new case's first values (ReLU of [1, -2, 3, -4]) ---------------------------------
"$dmlref" run cases/good.json > run_new.txt 2>&1
grep -q "^      OutputTensor: 1 0 3 0$" run_new.txt && ok "run shows a new case's values" || bad "run shows a new case's values" "$(cat run_new.txt)"

# ---- coverage of a few cases: the operators they exercise; --all for the registry's ----------------
"$dmlref" coverage cases/good.json > cov_few.txt 2>&1 || bad "coverage of one case" "exit $?"
"$dmlref" coverage cases/good.json --all > cov_all.txt 2>&1 || bad "coverage --all" "exit $?"
grep -q "^ACTIVATION_RELU$" cov_few.txt && ! grep -q "^GEMM$" cov_few.txt && ok "coverage shows the operators the cases exercise" \
  || bad "coverage shows the operators the cases exercise" "$(head -c 400 cov_few.txt)"
grep -q "^GEMM$" cov_all.txt && ok "coverage --all shows every operator" || bad "coverage --all shows every operator" "$(head -c 400 cov_all.txt)"
[ "$(wc -l < cov_few.txt)" -lt 40 ] && ok "coverage of one case is short" || bad "coverage of one case is short" "$(wc -l < cov_few.txt) lines"

finish "0 failed"
