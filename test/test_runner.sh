#!/usr/bin/env bash
# `dmlref test` (docs/test.md) with backends planted here: a correct one (dmlref itself), one that
# flips the sign of one FLOAT32 output element, one that skips FLOAT16 cases (exit 77), one that
# hangs, one that crashes. Checks the verdicts, the exit codes, the JUnit XML, the JSON and HTML
# reports, baselines, and the refusals (exit 2) for bad command lines.
#   test_runner.sh DMLREF SOURCE_ROOT
set -uo pipefail
dmlref=$(realpath "$1") root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# dmlref test's own case folders go to a temporary directory of this script alone, so that the
# check that none is left behind sees no other run's on a shared machine.
export TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
fails=0
check() {  # check WHAT CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

# The goldens: the bundled ACTIVATION and element-wise arithmetic cases.
goldens=$work/goldens
mkdir -p "$goldens"
cp "$root"/cases/element_wise/*.json "$goldens"/
total=$(ls "$goldens"/*.json | wc -l)

# A correct backend: dmlref evaluates the case and hands its outputs over.
cat > "$work/correct.sh" <<SH
#!/bin/sh
d=\$(mktemp -d) || exit 3
"$dmlref" run "\$1" --npy-outputs "\$d" -q > /dev/null || exit 3
mv "\$d"/*/*.npy "\$2"/ && rmdir "\$d"/* "\$d"
SH
# The same, then the sign bit of the first element of every FLOAT32 output flipped.
cat > "$work/flip.sh" <<SH
#!/bin/sh
"$work/correct.sh" "\$1" "\$2" || exit 3
exec python3 - "\$2" <<'PY'
import glob, sys
for f in glob.glob(sys.argv[1] + "/*.npy"):
    b = bytearray(open(f, "rb").read())
    hlen = int.from_bytes(b[8:10], "little")
    if b"'<f4'" in b[10:10 + hlen] and len(b) >= 10 + hlen + 4:
        b[10 + hlen + 3] ^= 0x80
        open(f, "wb").write(bytes(b))
PY
SH
# Skips FLOAT16 cases, as a backend without FLOAT16 would; correct elsewhere.
cat > "$work/skip16.sh" <<SH
#!/bin/sh
grep -q '"FLOAT16"' "\$1" && exit 77
exec "$work/correct.sh" "\$1" "\$2"
SH
printf '#!/bin/sh\nsleep 30\n' > "$work/hang.sh"
printf '#!/bin/sh\necho "segmentation fault in my_kernel" >&2\nkill -SEGV $$\n' > "$work/crash.sh"
# Reads the logical inputs (their Sizes) that DMLREF_LOGICAL_INPUTS names, and fails without them.
cat > "$work/logical.sh" <<SH
#!/bin/sh
for f in "\$DMLREF_LOGICAL_INPUTS"/*.npy; do test -s "\$f" || exit 5; done
test -d "\$DMLREF_INPUTS" || exit 6
exec "$work/correct.sh" "\$1" "\$2"
SH
chmod +x "$work"/*.sh

"$dmlref" test "$goldens" --backend "$work/correct.sh" -j 2 --junit "$work/correct.xml" --json "$work/correct.json" > "$work/correct.txt" 2>&1
rc=$?
check "a correct backend passes every case (exit 0)" test $rc -eq 0
check "the summary counts every case" grep -q "^$total cases: $total passed, 0 failed, 0 skipped, 0 errors" "$work/correct.txt"
check "the JUnit XML reads and counts them" python3 -c "
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
s = r.find('testsuite')
assert r.tag == 'testsuites' and int(s.get('tests')) == int(sys.argv[2]) and s.get('failures') == '0' and s.get('errors') == '0'
assert len(s.findall('testcase')) == int(sys.argv[2]) and all(t.get('classname') for t in s.findall('testcase'))" "$work/correct.xml" "$total"
check "the JSON report reads and counts them" python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
assert j['summary'] == {'passed': int(sys.argv[2]), 'failed': 0, 'skipped': 0, 'errors': 0}, j['summary']
assert all(c['outcome'] == 'PASS' and c['diff']['status'] == 'pass' for c in j['cases'])" "$work/correct.json" "$total"

"$dmlref" test "$goldens" --backend "$work/logical.sh" -j 2 -q > "$work/logical.txt" 2>&1
check "the logical inputs and the buffers are handed over" test $? -eq 0

"$dmlref" test "$goldens" --backend "$work/flip.sh" -j 2 --junit "$work/flip.xml" --html "$work/flip.html" \
  --write-baseline "$work/known.json" > "$work/flip.txt" 2>&1
rc=$?
f32=$(grep -l '"OutputTensor": {[^}]*"FLOAT32"' "$goldens"/*.json | wc -l)
nfail=$(grep -c "^FAIL  " "$work/flip.txt")
check "a flipped sign fails (exit 1)" test $rc -eq 1
check "it fails the FLOAT32 cases and only those ($nfail of $f32 FLOAT32 cases fail)" test "$nfail" -ge 1 -a "$nfail" -le "$f32"
check "a FAIL line says what is over" grep -qE "^FAIL .*OutputTensor: [0-9]+ of [0-9]+ elements over" "$work/flip.txt"
check "the JUnit XML holds the failures" python3 -c "
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find('testsuite')
assert int(s.get('failures')) == int(sys.argv[2]) == len([t for t in s.findall('testcase') if t.find('failure') is not None])" "$work/flip.xml" "$nfail"

# The HTML report, read by Python's own parser; its pictures decoded with Python's zlib and struct,
# apart from dmlref's writer: the signature, each chunk's CRC, IHDR, and IDAT inflating to
# height * (1 + 3 * width) bytes (a filter byte and RGB per row).
first=$(sed -n 's/^FAIL  \([^ ]*\) .*/\1/p' "$work/flip.txt" | head -1)
check "the HTML report: a section per case, failing first, no reference outside, its PNG decodes" python3 -c "
import base64, struct, sys, zlib
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.sections = []; self.srcs = []; self.inside = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'section': self.sections.append([a.get('class'), '']); self.inside += 1
        for k in ('href', 'src', 'action', 'data', 'poster'):
            if k in a: self.srcs.append(a[k])
        assert tag not in ('script', 'link', 'iframe', 'object', 'embed'), tag
    def handle_endtag(self, tag):
        if tag == 'section': self.inside -= 1
    def handle_data(self, d):
        if self.inside: self.sections[-1][1] += d
text = open(sys.argv[1], encoding='utf-8').read()
p = P(); p.feed(text); p.close()
assert 'http:' not in text and 'https:' not in text and 'url(' not in text
assert len(p.sections) == int(sys.argv[2]), (len(p.sections), sys.argv[2])
assert p.sections[0][0] == 'FAIL', p.sections[0][0]
fail = [t for c, t in p.sections if c == 'FAIL' and sys.argv[3] in t]
assert len(fail) == 1 and 'elements over tolerance' in fail[0], fail
assert 'the sign flipped' in fail[0] or 'a zero of the other sign' in fail[0], fail
pngs = [s for s in p.srcs if s.startswith('data:image/png;base64,')]
assert pngs and len(pngs) == len(p.srcs), p.srcs
for s in pngs:
    b = base64.b64decode(s.split(',', 1)[1], validate=True)
    assert b[:8] == b'\x89PNG\r\n\x1a\n'
    at, idat, ihdr = 8, b'', None
    while at < len(b):
        n, kind = struct.unpack('>I4s', b[at:at + 8]); body = b[at + 8:at + 8 + n]
        assert struct.unpack('>I', b[at + 8 + n:at + 12 + n])[0] == zlib.crc32(kind + body), kind
        if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
        if kind == b'IDAT': idat += body
        at += 12 + n
    w, h, depth, colour = ihdr[:4]
    assert depth == 8 and colour == 2, ihdr
    raw = zlib.decompress(idat)
    assert len(raw) == h * (1 + 3 * w), (len(raw), w, h)
    rows = [raw[y * (1 + 3 * w):(y + 1) * (1 + 3 * w)] for y in range(h)]
    assert all(r[0] == 0 for r in rows)
    assert b'\xe6\x00\x00' in raw  # a red pixel: (230, 0, 0), over tolerance
    assert len(b) < 20000, len(b)
" "$work/flip.html" "$total" "$first"

# Baselines, as dmlref diff's (docs/diff.md, Baselines): the failures written by --write-baseline
# are known (exit 0); a baseline without them leaves them new (exit 1). The second run's case has
# a name that markup would read (a case name is user data): it is escaped on the page.
"$dmlref" test "$goldens" --filter "$first" --backend "$work/flip.sh" --baseline "$work/known.json" \
  --junit "$work/known.xml" > "$work/known.txt" 2>&1
rc=$?
check "a baseline that lists the failure: exit 0, reported known" test $rc -eq 0 -a -n "$(grep "^KNOWN $first" "$work/known.txt")"
check "a known failure is <skipped> in the JUnit XML" grep -q '<skipped message="known failure (--baseline): ' "$work/known.xml"
check "only the cases run are compared (0 new, 0 fixed)" grep -qE "^baseline .*known.json: 0 new, [1-9][0-9]* known, 0 fixed" "$work/known.txt"
echo '{"dmlrefBaseline": 1, "failures": []}' > "$work/empty.json"
sed '0,/"name": *"[^"]*"/s||"name": "<script>alert(1)</script> \& \\"x\\""|' "$goldens/$(basename "$first").json" > "$work/escape.json"
"$dmlref" test "$work/escape.json" --backend "$work/flip.sh" --baseline "$work/empty.json" --html "$work/escape.html" > "$work/new.txt" 2>&1
rc=$?
check "a baseline without it: exit 1, reported new" test $rc -eq 1 -a -n "$(grep -F '  new    <script>alert(1)</script> & "x"' "$work/new.txt")"
check "a case name is escaped on the page" test -n "$(grep -F '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;' "$work/escape.html")" -a -z "$(grep -F '<script' "$work/escape.html")"
echo '{"dmlrefBaseline": 1}' > "$work/broken.json"
"$dmlref" test "$goldens" --backend "$work/hang.sh" --baseline "$work/broken.json" > "$work/broken.txt" 2>&1
check "a malformed baseline: exit 2 before anything runs" test $? -eq 2 -a -n "$(grep '\[baseline.format\]' "$work/broken.txt")"

"$dmlref" test "$goldens" --backend "$work/skip16.sh" -j 2 > "$work/skip.txt" 2>&1
rc=$?
f16=$(grep -l '"FLOAT16"' "$goldens"/*.json | wc -l)
check "exit 77 skips a case, and skips fail nothing (exit 0)" test $rc -eq 0
check "every FLOAT16 case is skipped ($f16)" grep -q " $f16 skipped, 0 errors" "$work/skip.txt"

"$dmlref" test "$goldens" --backend "$work/hang.sh" --filter abs_float32 --timeout 1 -j 4 > "$work/hang.txt" 2>&1
rc=$?
check "a hanging backend is killed after --timeout: an error (exit 1)" test $rc -eq 1
check "the error says it was killed" grep -q "^ERROR .*killed after --timeout" "$work/hang.txt"

"$dmlref" test "$goldens"/abs_float32_sign_bit.json --backend "$work/crash.sh" --junit "$work/crash.xml" \
  --html "$work/crash.html" > "$work/crash.txt" 2>&1
rc=$?
check "a crashing backend is an error (exit 1)" test $rc -eq 1
check "its output is shown" grep -q "segmentation fault in my_kernel" "$work/crash.txt"
check "and on the page, line by line" test -n "$(grep 'segmentation fault in my_kernel' "$work/crash.html")" -a -z "$(grep -F '\n' "$work/crash.html")"
check "the JUnit XML has the error with the output" python3 -c "
import sys, xml.etree.ElementTree as ET
e = ET.parse(sys.argv[1]).getroot().find('testsuite/testcase/error')
assert e is not None and 'my_kernel' in e.text" "$work/crash.xml"

"$dmlref" test "$goldens" --backend "$work/correct.sh" --operator ELEMENT_WISE_ABS --filter float32 -q > "$work/filter.txt" 2>&1
n=$(ls "$goldens" | grep abs | grep -c float32)
check "--operator and --filter select cases ($n)" grep -q "^$n cases: $n passed" "$work/filter.txt"

"$dmlref" test "$goldens" --backend "$work/correct.sh" --filter no-such-case > "$work/none.txt" 2>&1
check "no case to run: exit 2 with the rule" test $? -eq 2 -a -n "$(grep '\[test.no-cases\]' "$work/none.txt")"
echo '{"not": "a case"}' > "$work/bad.json"
"$dmlref" test "$work/bad.json" --backend "$work/correct.sh" > "$work/bad.txt" 2>&1
check "an unreadable golden: exit 2, nothing run" test $? -eq 2 -a -n "$(grep 'nothing was run' "$work/bad.txt")"
# gen writes a sweep's error cases (expectError) beside its goldens: they are left out, not
# unreadable goldens. One whose error is not the one it expects is still an unreadable golden.
mkdir -p "$work/witherrors"
cp "$goldens"/abs_float32_sign_bit.json "$work/witherrors/"
printf '{"format": 1, "name": "e", "operator": "DML_OPERATOR_ACTIVATION_RELU", "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [4]}, "OutputTensor": {"DataType": "FLOAT16", "Sizes": [4]}}, "inputs": {"InputTensor": {"Fill": 0}}, "expectError": "%s"}\n' relu.same-data-type > "$work/witherrors/e.json"
"$dmlref" test "$work/witherrors" --backend "$work/correct.sh" > "$work/witherrors.txt" 2>&1
check "an error case is left out (exit 0, one case run)" test $? -eq 0 -a -n "$(grep '^1 cases: 1 passed' "$work/witherrors.txt")"
sed -i 's/relu.same-data-type/relu.same-sizes/' "$work/witherrors/e.json"
"$dmlref" test "$work/witherrors" --backend "$work/correct.sh" > "$work/witherrors2.txt" 2>&1
check "an error case with another error: exit 2, nothing run" test $? -eq 2 -a -n "$(grep 'nothing was run' "$work/witherrors2.txt")"
mkdir -p "$work/kept"
"$dmlref" test "$goldens" --backend "$work/correct.sh" --keep "$work/kept" > "$work/keep.txt" 2>&1
check "--keep refuses an existing folder (exit 2)" test $? -eq 2
"$dmlref" test "$goldens"/abs_float32_sign_bit.json --backend "$work/correct.sh" --keep "$work/kept2" > "$work/keep2.txt" 2>&1
check "--keep keeps the case, its inputs, outputs and log" test -f "$work/kept2/0/case.json" -a -f "$work/kept2/0/logical/InputTensor.npy" -a -f "$work/kept2/0/out/OutputTensor.npy" -a -f "$work/kept2/0/log.txt"
check "nothing is left in the temporary directory" test -z "$(ls -d "$TMPDIR"/dmlref-test-* 2>/dev/null)"

echo "$fails failed"
[ $fails -eq 0 ]
