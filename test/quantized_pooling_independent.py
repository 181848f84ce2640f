#!/usr/bin/env python3
"""An independent computation of the QUANTIZED_LINEAR_AVERAGE_POOLING goldens (docs/golden.md,
"Quantized average pooling"): every golden under DIR is recomputed from its inputs with Python's
fractions (no dmlref code): for each output element, the window's taps o * Strides - StartPadding
+ k * Dilations inside the input, S = sum of (q - InputZeroPoint), D = prod(WindowSize) with
IncludePadding else the tap count, clamp(round_half_even(S * InputScale / (D * OutputScale)) +
OutputZeroPoint); an empty window without IncludePadding gives OutputZeroPoint. Inputs given as
values, Fill or Random (docs/case-format.md: SplitMix64, two words per element) are read; error
cases and other generators are skipped (counted).
Usage: quantized_pooling_independent.py DIR   (prints "agree N differ M skipped K"; exits 1 when M > 0)
"""
import itertools, json, math, os, struct, sys
from fractions import Fraction

MASK = (1 << 64) - 1


def words(seed):
    s = seed
    while True:
        s = (s + 0x9E3779B97F4A7C15) & MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def element(t, v):
    if isinstance(v, str):
        if v.lower().startswith("0x"):
            return struct.unpack("<f", int(v, 16).to_bytes(4, "little"))[0]
        return float(v)
    return float(v) if t == "FLOAT32" else int(v)


def buffer_values(desc, spec):
    sizes, strides = desc["Sizes"], desc.get("Strides")
    n = math.prod(sizes) if not strides else 1 + sum((a - 1) * b for a, b in zip(sizes, strides))
    if isinstance(spec, list):
        return [element(desc["DataType"], v) for v in spec]
    if "Fill" in spec:
        return [element(desc["DataType"], spec["Fill"])] * n
    r = spec["Random"]
    g, out = words(int(r["Seed"])), []
    for _ in range(n):
        next(g)
        w = next(g)
        if desc["DataType"] == "FLOAT32":
            lo, hi = float(r.get("Min", -1)), float(r.get("Max", 1))
            out.append(struct.unpack("<f", struct.pack("<f", lo + (hi - lo) * ((w >> 11) * 2.0**-53)))[0])
        else:
            out.append(int(r["Min"]) + ((w * (int(r["Max"]) - int(r["Min"]) + 1)) >> 64))
    return out


def tensor(desc, spec):
    """{coordinate tuple: value} of the logical elements, read through the tensor's strides."""
    sizes, vals = desc["Sizes"], buffer_values(desc, spec)
    strides = desc.get("Strides") or [math.prod(sizes[i + 1:]) for i in range(len(sizes))]
    return {c: vals[sum(a * b for a, b in zip(c, strides))] for c in itertools.product(*[range(s) for s in sizes])}


def rhe(q):
    f = math.floor(q)
    r = q - f
    return f + 1 if r > Fraction(1, 2) or (r == Fraction(1, 2) and f % 2 == 1) else f


def channel(t, c):
    """A per-tensor or per-channel parameter's value for channel c."""
    vals = list(t.values())
    return vals[0] if len(vals) == 1 else t[tuple(c if i == 1 else 0 for i in range(len(next(iter(t)))))]


def compute(c):
    d, inp = c["desc"], c["inputs"]
    x = tensor(d["InputTensor"], inp["InputTensor"])
    si, so = tensor(d["InputScaleTensor"], inp["InputScaleTensor"]), tensor(d["OutputScaleTensor"], inp["OutputScaleTensor"])
    zi = tensor(d["InputZeroPointTensor"], inp["InputZeroPointTensor"]) if "InputZeroPointTensor" in d else {(0,): 0}
    zo = tensor(d["OutputZeroPointTensor"], inp["OutputZeroPointTensor"]) if "OutputZeroPointTensor" in d else {(0,): 0}
    lo, hi = (-128, 127) if d["OutputTensor"]["DataType"] == "INT8" else (0, 255)
    ins, outs = d["InputTensor"]["Sizes"], d["OutputTensor"]["Sizes"]
    n = len(ins) - 2
    dil = d.get("Dilations") or [1] * n
    out = []
    for o in itertools.product(*[range(s) for s in outs]):
        cz, s_in, s_out, z_out = channel(zi, o[1]), channel(si, o[1]), channel(so, o[1]), channel(zo, o[1])
        S, taps = 0, 0
        for k in itertools.product(*[range(w) for w in d["WindowSize"]]):
            p = [o[i + 2] * d["Strides"][i] - d["StartPadding"][i] + k[i] * dil[i] for i in range(n)]
            if all(0 <= p[i] < ins[i + 2] for i in range(n)):
                S += x[(o[0], o[1], *p)] - cz
                taps += 1
        D = math.prod(d["WindowSize"]) if d["IncludePadding"] else taps
        if D == 0:
            out.append(max(lo, min(hi, z_out)))
        elif not (math.isfinite(s_in) and math.isfinite(s_out)):
            v = S * s_in / D if math.isfinite(s_in) else (math.nan if S == 0 else S * s_in)
            if math.isnan(v) or math.isnan(s_out) or (math.isinf(v) and math.isinf(s_out)):
                out.append(lo)
            elif math.isinf(v):
                out.append(lo if (v < 0) != (s_out < 0) else hi)
            else:
                out.append(max(lo, min(hi, z_out)))
        else:
            out.append(max(lo, min(hi, rhe(S * Fraction(s_in) / (D * Fraction(s_out))) + z_out)))
    return out


agree = differ = skipped = 0
for folder, _, names in os.walk(sys.argv[1]):
    for name in sorted(names):
        if not name.endswith(".json"):
            continue
        c = json.load(open(os.path.join(folder, name)))
        if "expected" not in c or "QUANTIZED_LINEAR_AVERAGE_POOLING" not in c.get("operator", "") or any(
                isinstance(v, dict) and not ("Fill" in v or "Random" in v) for v in c.get("inputs", {}).values()):
            skipped += 1
            continue
        golden = [int(v) for v in c["expected"]["OutputTensor"]["Values"]]
        mine = compute(c)
        if golden == mine:
            agree += 1
        else:
            differ += 1
            print("differ:", os.path.join(folder, name), golden[:8], mine[:8])
print("agree", agree, "differ", differ, "skipped", skipped)
sys.exit(1 if differ else 0)
