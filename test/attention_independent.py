#!/usr/bin/env python3
"""An independent computation of the MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 goldens
(docs/golden.md, "Multihead attention", "Multihead attention 1"; MULTIHEAD_ATTENTION1's query head h
reads key/value head h // (QueryHeadCount // KeyValueHeadCount), and a past key j of batch b counts
only where j < PastSequenceLengthsTensor[b]): every golden under DIR is recomputed from its inputs in float64 (math.exp and
math.fsum, the page's shapes indexed here, no dmlref code) and compared: each OutputTensor element
must lie within half an ULP of the output type of the float64 value, plus the float64 evaluation's
own error (1e-12 relative to sum_j P_j |v_j|, times (1 + the largest |score - max|)); a NaN golden
where the float64 row is NaN; the present outputs bit for bit.
Fill and Random inputs are made as docs/case-format.md says (SplitMix64; SpecialFraction 0 only);
cases with other generators, and error cases, are skipped (counted).
Usage: attention_independent.py DIR   (prints "agree N differ M skipped K"; exits 1 when M > 0)
"""
import json, math, os, struct, sys

FMT = {"FLOAT16": "e", "FLOAT32": "f", "INT32": "i"}
BITS = {"FLOAT16": "H", "FLOAT32": "I", "INT32": "I"}
ULP_BITS = {"FLOAT16": (11, -14), "FLOAT32": (24, -126)}


def number(t, v):
    if isinstance(v, str):
        if v.lower().startswith("0x"):
            b = int(v, 16)
            return struct.unpack("<" + FMT[t], struct.pack("<" + BITS[t], b))[0]
        return to_type(t, float(v)) if t != "INT32" else int(float(v))
    return to_type(t, float(v)) if t != "INT32" else int(v)  # a decimal rounds to the element it names


def to_type(t, x):
    """x rounded to nearest-even in t (struct does the rounding)."""
    try:
        return struct.unpack("<" + FMT[t], struct.pack("<" + FMT[t], x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def half_ulp(t, g):
    p, emin = ULP_BITS[t]
    e = max(math.frexp(abs(g))[1] - 1, emin) if g != 0 else emin
    return math.ldexp(1.0, e - p)


def fsum(xs):
    """math.fsum, with IEEE's answers where it raises (inf - inf is NaN; an overflow is infinite)."""
    xs = list(xs)
    try:
        return math.fsum(xs)
    except ValueError:
        return math.nan
    except OverflowError:
        return sum(xs)


def splitmix64(seed):
    s = seed
    while True:
        s = (s + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        yield z ^ (z >> 31)


def generated(spec, t, n):
    g = splitmix64(int(spec["Seed"]))
    out = []
    for _ in range(n):
        next(g)
        r2 = next(g)
        if spec.get("Distribution", "Integers" if t == "INT32" else "Uniform") == "Uniform":
            lo, hi = float(spec.get("Min", -1)), float(spec.get("Max", 1))
            out.append(to_type(t, lo + (hi - lo) * ((r2 >> 11) * 2.0**-53)))
        else:
            lo, hi = int(spec["Min"]), int(spec["Max"])
            out.append(lo + ((r2 * (hi - lo + 1)) >> 64))
    return out


def tensor(desc, values):
    """The logical elements (row-major), read through the strides from the buffer's values."""
    t, sizes = desc["DataType"], desc["Sizes"]
    strides = desc.get("Strides")
    if not strides:
        strides, acc = [0] * len(sizes), 1
        for d in reversed(range(len(sizes))):
            strides[d], acc = acc, acc * sizes[d]
    span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
    if isinstance(values, dict) and "Fill" in values:
        buf = [number(t, values["Fill"])] * span
    elif isinstance(values, dict):
        buf = generated(values["Random"], t, span)
    else:
        buf = [number(t, v) for v in values]
    n = math.prod(sizes)
    out = []
    for i in range(n):
        off, rest = 0, i
        for d in reversed(range(len(sizes))):
            off += (rest % sizes[d]) * strides[d]
            rest //= sizes[d]
        out.append(buf[off])
    return out


def check(c):
    d, inp = c["desc"], c["inputs"]
    x = {k: tensor(d[k], inp[k]) for k in inp}
    H = d["HeadCount"] if "HeadCount" in d else d["QueryHeadCount"]
    KH = d.get("KeyValueHeadCount", H)  # key/value heads; k and v below take a key/value head
    if "StackedQueryKeyValueTensor" in d:
        B, S, _, _, D = d["StackedQueryKeyValueTensor"]["Sizes"][-5:]
        T, Dv = S, D
        st = x["StackedQueryKeyValueTensor"]
        q = lambda b, s, h, i: st[(((b * S + s) * H + h) * 3 + 0) * D + i]
        k = lambda b, j, h, i: st[(((b * T + j) * H + h) * 3 + 1) * D + i]
        v = lambda b, j, h, i: st[(((b * T + j) * H + h) * 3 + 2) * D + i]
    else:
        if "StackedQueryKeyTensor" in d:
            B, S, _, _, D = d["StackedQueryKeyTensor"]["Sizes"][-5:]
            T = S
            sq = x["StackedQueryKeyTensor"]
            q = lambda b, s, h, i: sq[(((b * S + s) * H + h) * 2 + 0) * D + i]
            k = lambda b, j, h, i: sq[(((b * T + j) * H + h) * 2 + 1) * D + i]
        else:
            B, S, hid = d["QueryTensor"]["Sizes"][-3:]
            D = hid // H
            Q = x["QueryTensor"]
            q = lambda b, s, h, i: Q[(b * S + s) * hid + h * D + i]
        if "StackedKeyValueTensor" in d:
            T = d["StackedKeyValueTensor"]["Sizes"][-4]
            Dv = D
            kv = x["StackedKeyValueTensor"]
            k = lambda b, j, h, i: kv[(((b * T + j) * KH + h) * 2 + 0) * D + i]
            v = lambda b, j, h, i: kv[(((b * T + j) * KH + h) * 2 + 1) * D + i]
        else:
            if "KeyTensor" in d:
                T = d["KeyTensor"]["Sizes"][-2]
                K = x["KeyTensor"]
                k = lambda b, j, h, i: K[(b * T + j) * KH * D + h * D + i]
            vs = d["ValueTensor"]["Sizes"][-3:]
            Dv = vs[2] // KH
            V = x["ValueTensor"]
            v = lambda b, j, h, i: V[(b * T + j) * KH * Dv + h * Dv + i]
    P = d["PastKeyTensor"]["Sizes"][-2] if "PastKeyTensor" in d else 0
    bias = x.get("BiasTensor")
    hid, khid = H * D, KH * D
    lengths = x.get("PastSequenceLengthsTensor")

    def key(b, kh, j, i, value):  # kh: a key/value head
        w = Dv if value else D
        if j < P:
            return x["PastValueTensor" if value else "PastKeyTensor"][((b * KH + kh) * P + j) * w + i]
        e = (v if value else k)(b, j - P, kh, i)
        return e + bias[(hid + khid if value else hid) + kh * w + i] if bias else e

    def live(b, j):
        return lengths is None or j >= P or j < lengths[b]

    TT = P + T
    mt = d["MaskType"].replace("DML_MULTIHEAD_ATTENTION_MASK_TYPE_", "") if isinstance(d["MaskType"], str) else d["MaskType"]
    mask = x.get("MaskTensor")
    filt = number("FLOAT32", d["MaskFilterValue"])
    t = d["OutputTensor"]["DataType"]
    g = [number(t, y) for y in c["expected"]["OutputTensor"]["Values"]]
    ok = True
    for b in range(B):
        for h in range(H):
            kh = h // (H // KH)
            js = [j for j in range(TT) if live(b, j)]
            for s in range(S):
                qv = [q(b, s, h, i) + (bias[h * D + i] if bias else 0) for i in range(D)]
                sc = []
                for j in js:
                    y = float(d["Scale"]) * fsum(qv[i] * key(b, kh, j, i, False) for i in range(D))
                    if "RelativePositionBiasTensor" in d:
                        y += x["RelativePositionBiasTensor"][((b * H + h) * S + s) * TT + j]
                    if mt == "BOOLEAN" and mask[((b * H + h) * S + s) * TT + j] == 0:
                        y += filt
                    if mt == "KEY_SEQUENCE_LENGTH" and j >= mask[b]:
                        y = filt
                    if mt == "KEY_SEQUENCE_END_START" and (j >= mask[b] or j < mask[B + b]):
                        y = filt
                    sc.append(y)
                finite = [y for y in sc if math.isfinite(y)]
                nan_row = any(math.isnan(y) or y == math.inf for y in sc) or not finite
                for col in range(Dv):
                    gi = g[(b * S + s) * H * Dv + h * Dv + col]
                    if nan_row:
                        ok = ok and math.isnan(gi)
                        continue
                    m = max(finite)
                    w = [math.exp(y - m) if math.isfinite(y) else 0.0 for y in sc]
                    z = fsum(w)
                    vals = [key(b, kh, j, col, True) for j in js]
                    out = fsum(w[n] / z * vals[n] for n in range(len(js)))
                    mag = fsum(w[n] / z * abs(vals[n]) for n in range(len(js)))
                    spread = max(abs(y - m) for y in finite)
                    if abs(gi - out) > half_ulp(t, gi) + 1e-12 * mag * (1 + spread):
                        print("  %s: element (%d, %d, %d, %d): golden %r, float64 %r" % (c.get("name"), b, s, h, col, gi, out))
                        ok = False
    for field, value in (("OutputPresentKeyTensor", False), ("OutputPresentValueTensor", True)):
        if field not in c["expected"]:
            continue
        w = Dv if value else D
        want = [to_type(t, key(b, kh, j, i, value)) for b in range(B) for kh in range(KH) for j in range(TT) for i in range(w)]
        got = [number(t, y) for y in c["expected"][field]["Values"]]
        if [struct.pack("<" + FMT[t], a) for a in want] != [struct.pack("<" + FMT[t], a) for a in got]:
            print("  %s: %s differs" % (c.get("name"), field))
            ok = False
    return ok


def main(root):
    agree = differ = skipped = 0
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            c = json.load(open(os.path.join(dirpath, f)))
            if "MULTIHEAD_ATTENTION" not in str(c.get("operator")) or "expected" not in c or "OutputTensor" not in c["expected"]:
                skipped += 1
                continue
            usable = all(isinstance(v, list) or (isinstance(v, dict) and ("Fill" in v or ("Random" in v and float(v["Random"].get("SpecialFraction", 0)) == 0)))
                         for v in c["inputs"].values())
            if not usable:
                skipped += 1
                continue
            if check(c):
                agree += 1
            else:
                differ += 1
    print("agree %d differ %d skipped %d" % (agree, differ, skipped))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
