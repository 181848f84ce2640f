#!/usr/bin/env python3
"""An independent computation of the quantization goldens (docs/golden.md, "Quantization"): every
golden of ELEMENT_WISE_QUANTIZE_LINEAR, ELEMENT_WISE_DEQUANTIZE_LINEAR, DYNAMIC_QUANTIZE_LINEAR and
ELEMENT_WISE_QUANTIZED_LINEAR_ADD under DIR is recomputed from its inputs with Python's fractions
and struct (no dmlref code), and the bits compared (a NaN golden against any NaN).
Fill and Random inputs are made as docs/case-format.md says (SplitMix64; SpecialFraction 0 only);
cases with other generators, and error cases, are skipped (counted).
Usage: quantization_independent.py DIR   (prints "agree N differ M skipped K"; exits 1 when M > 0)
"""
import json, math, os, struct, sys
from fractions import Fraction as F

W = {"FLOAT16": 2, "FLOAT32": 4, "INT8": 1, "INT16": 2, "INT32": 4, "UINT8": 1, "UINT16": 2, "UINT32": 4}
FMT = {"FLOAT16": "e", "FLOAT32": "f"}
MANT = {"FLOAT16": (11, -14, 15), "FLOAT32": (24, -126, 127)}  # significand bits, min normal exponent, max exponent


def number(t, v):
    """The value of JSON element v of type t: int, or float (nan and infinities included)."""
    if isinstance(v, str):
        if v.lower().startswith("0x"):
            b = int(v, 16)
            return struct.unpack("<" + FMT[t], b.to_bytes(W[t], "little"))[0] if t in FMT else b
        return float(v)
    return float(v) if t in FMT else int(v)


def bits_of(t, x):
    return int.from_bytes(struct.pack("<" + FMT[t], x), "little")


def round_float(q, t):
    """The exact rational q rounded once to nearest-even in t, as a Python float."""
    p, emin, emax = MANT[t]
    if q == 0:
        return 0.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while F(2) ** e > a:
        e -= 1
    while F(2) ** (e + 1) <= a:
        e += 1
    ulp = F(2) ** (max(e, emin) - (p - 1))
    m = a / ulp
    k = m.numerator // m.denominator
    r = m - k
    if r > F(1, 2) or (r == F(1, 2) and k % 2):
        k += 1
    v = k * ulp
    if v >= F(2) ** (emax + 1):
        return math.copysign(math.inf, q)
    return float(v) if q > 0 else -float(v)


def rhe(q):
    k = q.numerator // q.denominator
    r = q - k
    return k + 1 if r > F(1, 2) or (r == F(1, 2) and k % 2) else k


def clamp(v, lo, hi):
    return max(lo, min(hi, v))


def quantize(x, s, z, lo, hi, f32=False):
    if math.isnan(x) or math.isnan(s) or (math.isinf(x) and math.isinf(s)):
        return lo
    if math.isinf(x):
        return lo if (x < 0) != (s < 0) else hi
    if math.isinf(s):
        return clamp(z, lo, hi)
    q = F(x) / F(s)
    if f32:
        f = round_float(q, "FLOAT32")
        if math.isinf(f):
            return lo if f < 0 else hi
        q = F(f)
    return clamp(rhe(q) + z, lo, hi)


def splitmix64(seed):
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        yield z ^ (z >> 31)


def random_values(spec, t, count):
    """docs/case-format.md's Random: two words per element, Uniform (floats) or Integers."""
    g = splitmix64(int(spec["Seed"]))
    out = []
    for _ in range(count):
        next(g)
        r2 = next(g)
        if spec.get("Distribution", "Uniform" if t in FMT else "Integers") == "Uniform":
            lo, hi = float(spec.get("Min", -1)), float(spec.get("Max", 1))
            v = lo + (hi - lo) * ((r2 >> 11) * 2.0**-53)
            out.append(struct.unpack("<" + FMT[t], struct.pack("<" + FMT[t], v))[0])
        else:
            lo, hi = int(spec["Min"]), int(spec["Max"])
            out.append(lo + ((r2 * (hi - lo + 1)) >> 64))
    return out


def buffer_count(desc):
    strides = desc.get("Strides")
    if not strides:
        n = 1
        for s in desc["Sizes"]:
            n *= s
        return n
    return 1 + sum((s - 1) * st for s, st in zip(desc["Sizes"], strides))


def logical(desc, values, t):
    """The logical elements of a tensor (row-major) read through its strides from the buffer values."""
    if isinstance(values, dict) and "Fill" in values:
        values = [values["Fill"]] * buffer_count(desc)
    elif isinstance(values, dict):
        values = random_values(values["Random"], t, buffer_count(desc))
    sizes = desc["Sizes"]
    n = 1
    for s in sizes:
        n *= s
    strides = desc.get("Strides")
    if not strides:
        packed, acc = [], 1
        for s in reversed(sizes):
            packed.insert(0, acc)
            acc *= s
        strides = packed
    out = []
    for i in range(n):
        off, rest = 0, i
        for d in reversed(range(len(sizes))):
            off += (rest % sizes[d]) * strides[d]
            rest //= sizes[d]
        out.append(number(t, values[off]))
    return out


def compute(c):
    """{output: [expected values]} of case c."""
    op, d, inp = c["operator"].replace("DML_OPERATOR_", ""), c["desc"], c["inputs"]
    get = lambda f: logical(d[f], inp[f], d[f]["DataType"])
    rng = lambda f: (-128, 127) if d[f]["DataType"] == "INT8" else (0, 255)
    if op == "ELEMENT_WISE_QUANTIZE_LINEAR":
        x, s = get("InputTensor"), get("ScaleTensor")
        z = get("ZeroPointTensor") if "ZeroPointTensor" in d else [0] * len(x)
        lo, hi = rng("OutputTensor")
        return {"OutputTensor": [quantize(x[i], s[i], z[i], lo, hi) for i in range(len(x))]}
    if op == "ELEMENT_WISE_DEQUANTIZE_LINEAR":
        q, s = get("InputTensor"), get("ScaleTensor")
        z = get("ZeroPointTensor") if "ZeroPointTensor" in d else [0] * len(q)
        t = d["OutputTensor"]["DataType"]
        out = []
        for i in range(len(q)):
            diff = q[i] - z[i]
            if math.isnan(s[i]) or (math.isinf(s[i]) and diff == 0):
                out.append(math.nan)
            elif math.isinf(s[i]):
                out.append(-math.inf if (diff < 0) != (s[i] < 0) else math.inf)
            elif diff == 0:
                out.append(-0.0 if s[i] < 0 or (s[i] == 0 and math.copysign(1, s[i]) < 0) else 0.0)
            else:
                out.append(round_float(F(diff) * F(s[i]), t))
        return {"OutputTensor": out}
    if op == "DYNAMIC_QUANTIZE_LINEAR":
        x = get("InputTensor")
        lo, hi = rng("OutputTensor")
        finite = [v for v in x if math.isfinite(v)]
        mn, mx = min([0.0] + finite), max([0.0] + finite)
        r = round_float(F(mx) - F(mn), "FLOAT32")
        if r == 0:
            return {"OutputTensor": [hi if v == math.inf else lo for v in x], "OutputScaleTensor": [0.0], "OutputZeroPointTensor": [lo]}
        s = round_float(F(r) / (hi - lo), "FLOAT32")
        qz = round_float(F(mn) / F(s), "FLOAT32")
        z = clamp(rhe(F(round_float(lo - F(qz), "FLOAT32"))), lo, hi)
        return {"OutputTensor": [quantize(v, s, z, lo, hi, True) for v in x], "OutputScaleTensor": [s], "OutputZeroPointTensor": [z]}
    if op == "ELEMENT_WISE_QUANTIZED_LINEAR_ADD":
        a, b = get("ATensor"), get("BTensor")
        one = lambda f, default: logical(d[f], inp[f], d[f]["DataType"])[0] if f in d else default
        sa, sb, so = one("AScaleTensor", 1.0), one("BScaleTensor", 1.0), one("OutputScaleTensor", 1.0)
        za, zb, zo = one("AZeroPointTensor", 0), one("BZeroPointTensor", 0), one("OutputZeroPointTensor", 0)
        lo, hi = rng("OutputTensor")
        out = []
        for i in range(len(a)):
            if not all(math.isfinite(v) for v in (sa, sb, so)):
                out.append(quantize((a[i] - za) * sa + (b[i] - zb) * sb, so, zo, lo, hi))
            else:
                out.append(clamp(rhe(((a[i] - za) * F(sa) + (b[i] - zb) * F(sb)) / F(so)) + zo, lo, hi))
        return {"OutputTensor": out}
    return None


def same(t, golden, mine):
    if t in FMT:
        g = number(t, golden)
        if math.isnan(g) or math.isnan(mine):
            return math.isnan(g) and math.isnan(mine)
        return bits_of(t, g) == bits_of(t, mine)
    return int(golden) == int(mine)


def check(root, compute):
    """Every case under root recomputed by compute(case) (None: skipped) and compared; prints the counts, returns the exit status."""
    agree = differ = skipped = 0
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            c = json.load(open(os.path.join(folder, name)))
            usable = lambda v: isinstance(v, list) or (isinstance(v, dict) and ("Fill" in v or ("Random" in v and float(v["Random"].get("SpecialFraction", 0)) == 0)))
            if "expected" not in c or "inputs" not in c or not all(usable(v) for v in c["inputs"].values()):
                skipped += 1
                continue
            mine = compute(c)
            if mine is None:
                skipped += 1
                continue
            ok = True
            for out, exp in c["expected"].items():
                t = c["desc"][out]["DataType"]
                if len(exp["Values"]) != len(mine[out]) or not all(same(t, g, m) for g, m in zip(exp["Values"], mine[out])):
                    ok = False
                    print("differ:", os.path.join(folder, name), out, exp["Values"][:8], mine[out][:8])
            agree += ok
            differ += not ok
    print("agree", agree, "differ", differ, "skipped", skipped)
    return 1 if differ else 0


def main(root, compute_one):
    """check(root, compute_one), exiting with its status (test/quantize_independent.py)."""
    sys.exit(check(root, compute_one))


if __name__ == "__main__":
    sys.exit(check(sys.argv[1], compute))
