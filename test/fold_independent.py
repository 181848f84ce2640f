#!/usr/bin/env python3
"""An independent computation of the FOLD and UNFOLD goldens (docs/golden.md, "Fold and unfold"):
every golden of either operator under DIR is recomputed from its inputs with Python's integers,
fractions and struct (no dmlref code). UNFOLD reads each tap from a dictionary of the image's
positions (a position missing from it is padding: +0); FOLD scatters each column element into a
dictionary of exact sums keyed by image position (padding positions dropped), then rounds each sum
once. Bits are compared; a NaN golden of FOLD matches any NaN (a summed output).
Cases whose inputs are kept as a Random generator or an .npy file, and error cases, are skipped (counted).
Usage: fold_independent.py DIR   (prints "agree N differ M skipped K"; exits 1 when M > 0)
"""
import json, os, struct, sys
from fractions import Fraction
from itertools import product

WIDTH = {"FLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8, "INT8": 1, "INT16": 2, "INT32": 4, "INT64": 8,
         "UINT8": 1, "UINT16": 2, "UINT32": 4, "UINT64": 8}
# significand bits (with the hidden one), exponent bits
FLOAT = {"FLOAT16": (11, 5), "FLOAT32": (24, 8), "FLOAT64": (53, 11)}
PACK = {"FLOAT16": "<e", "FLOAT32": "<f", "FLOAT64": "<d"}


def bits_of(t, v):
    """The bits of one JSON value of type t."""
    mask = (1 << (8 * WIDTH[t])) - 1
    if isinstance(v, str) and v[:2].lower() == "0x":
        return int(v, 16)
    if t not in FLOAT:
        return int(v) & mask
    if isinstance(v, str) and v.lstrip("-") == "nan":
        p, e = FLOAT[t]
        b = ((1 << e) - 1) << (p - 1) | 1 << (p - 2)
        return b | (1 << (8 * WIDTH[t] - 1) if v.startswith("-") else 0)
    return int.from_bytes(struct.pack(PACK[t], float(v)), "little")


def decode(t, b):
    """('num', Fraction or int), ('inf', +1/-1) or ('nan', None)."""
    w = 8 * WIDTH[t]
    if t not in FLOAT:
        return ("num", b - (1 << w) if t.startswith("INT") and b >> (w - 1) else b)
    p, e = FLOAT[t]
    sign = -1 if b >> (w - 1) else 1
    ex = (b >> (p - 1)) & ((1 << e) - 1)
    man = b & ((1 << (p - 1)) - 1)
    bias = (1 << (e - 1)) - 1
    if ex == (1 << e) - 1:
        return ("nan", None) if man else ("inf", sign)
    if ex == 0:
        return ("num", sign * Fraction(man) * Fraction(2) ** (1 - bias - (p - 1)))
    return ("num", sign * Fraction(man | 1 << (p - 1)) * Fraction(2) ** (ex - bias - (p - 1)))


def round_once(q, t):
    """The bits of the exact rational q rounded to nearest, ties to even, in float type t (0 is +0)."""
    p, e = FLOAT[t]
    w = 8 * WIDTH[t]
    bias = (1 << (e - 1)) - 1
    if q == 0:
        return 0
    sign = 1 << (w - 1) if q < 0 else 0
    a = abs(q)
    x = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** x > a:
        x -= 1
    while Fraction(2) ** (x + 1) <= a:
        x += 1
    x = max(x, 1 - bias)
    m = a / Fraction(2) ** (x - (p - 1))
    k, r = divmod(m.numerator, m.denominator)
    if 2 * r > m.denominator or (2 * r == m.denominator and k % 2):
        k += 1
    if k == 1 << p:
        k >>= 1
        x += 1
    if x > bias:
        return sign | ((1 << e) - 1) << (p - 1)
    if k < 1 << (p - 1):
        return sign | k
    return sign | (x + bias) << (p - 1) | (k - (1 << (p - 1)))


def logical(desc, values):
    """A tensor's logical elements (row-major) as bits, read through its strides; None for a generator."""
    t, sizes = desc["DataType"], desc["Sizes"]
    strides = desc.get("Strides")
    if not strides:
        strides, acc = [0] * len(sizes), 1
        for i in reversed(range(len(sizes))):
            strides[i], acc = acc, acc * sizes[i]
    def at(off):
        if isinstance(values, list):
            return bits_of(t, values[off])
        if "Fill" in values:
            return bits_of(t, values["Fill"])
        io = values["Iota"]
        v = Fraction(str(io["Start"])) + off * Fraction(str(io["Step"]))
        return round_once(v, t) if t in FLOAT else int(v) & ((1 << (8 * WIDTH[t])) - 1)
    if isinstance(values, dict) and not ("Fill" in values or "Iota" in values):
        return None
    return [at(sum(c * s for c, s in zip(idx, strides))) for idx in product(*[range(n) for n in sizes])]


def compute(c):
    """The output's bits (logical order), or None when the case is skipped."""
    d = c["desc"]
    fold = c["operator"].endswith("_FOLD") or c["operator"] == "FOLD"
    image, cols = (d["OutputTensor"], d["InputTensor"]) if fold else (d["InputTensor"], d["OutputTensor"])
    t = d["InputTensor"]["DataType"]
    x = logical(d["InputTensor"], c["inputs"]["InputTensor"])
    if x is None:
        return None
    D = d["DimensionCount"]
    W, S, Dl, P0, P1 = (d[k] for k in ("WindowSizes", "Strides", "Dilations", "StartPadding", "EndPadding"))
    N, C, sp = image["Sizes"][0], image["Sizes"][1], image["Sizes"][2:]
    B = [(sp[i] + P0[i] + P1[i] - Dl[i] * (W[i] - 1) - 1) // S[i] + 1 for i in range(D)]
    taps = list(product(*[range(w) for w in W]))
    blocks = list(product(*[range(b) for b in B]))
    def position(k, b):
        pos = tuple(b[i] * S[i] + k[i] * Dl[i] - P0[i] for i in range(D))
        return pos if all(0 <= pos[i] < sp[i] for i in range(D)) else None
    if not fold:
        img = {}
        for j, idx in enumerate(product(*[range(n) for n in image["Sizes"]])):
            img[idx] = x[j]
        out = []
        for n in range(N):
            for ch in range(C):
                for k in taps:
                    for b in blocks:
                        pos = position(k, b)
                        out.append(0 if pos is None else img[(n, ch) + pos])
        return out
    sums = {}
    j = 0
    for n in range(N):
        for ch in range(C):
            for k in taps:
                for b in blocks:
                    pos = position(k, b)
                    if pos is not None:
                        sums.setdefault((n, ch) + pos, []).append(decode(t, x[j]))
                    j += 1
    out = []
    for idx in product(*[range(n) for n in image["Sizes"]]):
        terms = sums.get(idx, [])
        if t not in FLOAT:
            out.append(sum(v for _, v in terms) & ((1 << (8 * WIDTH[t])) - 1))
            continue
        kinds = {kind if kind != "inf" else ("+inf" if v > 0 else "-inf") for kind, v in terms}
        if "nan" in kinds or {"+inf", "-inf"} <= kinds:
            out.append("nan")
        elif "+inf" in kinds or "-inf" in kinds:
            out.append(round_once(Fraction(1 if "+inf" in kinds else -1) * 2 ** 20000, t))
        else:
            out.append(round_once(sum((v for _, v in terms), Fraction(0)), t))
    return out


def same(t, golden, mine):
    if mine == "nan":
        return decode(t, golden)[0] == "nan"
    return golden == mine


agree = differ = skipped = 0
for root, _, files in os.walk(sys.argv[1]):
    for f in sorted(files):
        if not f.endswith(".json"):
            continue
        path = os.path.join(root, f)
        c = json.load(open(path))
        if c.get("operator", "").replace("DML_OPERATOR_", "") not in ("FOLD", "UNFOLD"):
            continue
        exp = c.get("expected", {}).get("OutputTensor", {}).get("Values")
        if exp is None or "expectError" in c:
            skipped += 1
            continue
        mine = compute(c)
        if mine is None:
            skipped += 1
            continue
        t = c["desc"]["OutputTensor"]["DataType"]
        golden = [bits_of(t, v) for v in exp]
        if len(golden) == len(mine) and all(same(t, g, m) for g, m in zip(golden, mine)):
            agree += 1
        else:
            differ += 1
            if differ <= 8:
                bad = next((i for i, (g, m) in enumerate(zip(golden, mine)) if not same(t, g, m)), len(mine))
                print("MISMATCH", path, "element", bad, "golden", [hex(v) for v in golden[bad:bad + 4]], "independent", mine[bad:bad + 4])
print("agree", agree, "differ", differ, "skipped", skipped)
sys.exit(1 if differ else 0)
