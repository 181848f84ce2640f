#!/usr/bin/env python3
"""An independent computation of the element-wise logic and CAST goldens (docs/golden.md,
"Element-wise logic" and "Cast"): every golden of those operators under DIR is recomputed from its
inputs with Python's own ints, floats and struct (no dmlref code), and the bits compared.
Cases with strided inputs or inputs kept as a Random generator are skipped (counted).
Usage: logic_independent.py DIR   (prints "agree N differ M skipped K"; exits 1 when M > 0)
"""
import json, os, struct, sys, math

W = {"FLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8, "INT8": 1, "INT16": 2, "INT32": 4, "INT64": 8, "UINT8": 1, "UINT16": 2, "UINT32": 4, "UINT64": 8}
FMT = {"FLOAT16": "e", "FLOAT32": "f", "FLOAT64": "d"}
def is_float(t): return t in FMT
def signed(t): return t.startswith("INT")

def to_bits(t, v):
    """The bits of value v (JSON) of type t."""
    if isinstance(v, str):
        if v.startswith("0x") or v.startswith("0X"): return int(v, 16)
        if v in ("nan", "-nan", "inf", "-inf"):
            x = float(v.replace("-nan", "nan"))
            b = int.from_bytes(struct.pack("<" + FMT[t], x), "little")
            if v == "-nan": b |= 1 << (8 * W[t] - 1)
            return b
        v = int(v) if not is_float(t) else float(v)
    if is_float(t):
        return int.from_bytes(struct.pack("<" + FMT[t], float(v)), "little")
    return int(v) & ((1 << (8 * W[t])) - 1)

def value(t, b):
    """Exact value: int for integers, float (or nan) for floats."""
    if is_float(t): return struct.unpack("<" + FMT[t], b.to_bytes(W[t], "little"))[0]
    n = 8 * W[t]
    return b - (1 << n) if signed(t) and b >> (n - 1) else b

def one_zero(t, c): return to_bits(t, 1 if c else 0)

def isnan_bits(t, b):
    return is_float(t) and math.isnan(value(t, b))

FR = {"FLOAT16": (10, 5), "FLOAT32": (23, 8), "FLOAT64": (52, 11)}
def round_int_to_float(t, n):
    """The integer n rounded once to nearest-even in float type t, as bits: the significand is
    rounded on the integer itself (never through a double, which could round twice)."""
    m, e = FR[t]
    if n == 0: return 0
    s = 1 if n < 0 else 0
    a = abs(n)
    k = a.bit_length()
    if k > m + 1:
        sh = k - (m + 1)
        q, r = a >> sh, a & ((1 << sh) - 1)
        half = 1 << (sh - 1)
        if r > half or (r == half and q & 1): q += 1
        a = q << sh
    emax = (1 << (e - 1)) - 1
    if a.bit_length() - 1 > emax: return (s << (m + e)) | (((1 << e) - 1) << m)
    return to_bits(t, -float(a) if s else float(a)) if t != "FLOAT16" or a <= 65504 else (s << 15) | 0x7c00

def cast(ti, b, to):
    """Element bits b of type ti cast to type to (docs/golden.md, "Cast")."""
    if ti == to: return b
    if is_float(ti) and is_float(to):
        x = value(ti, b)
        if math.isnan(x):
            mf, _ = FR[ti]; mt, et = FR[to]
            sign = b >> (8 * W[ti] - 1)
            frac = b & ((1 << mf) - 1)
            f = frac << (mt - mf) if mt >= mf else frac >> (mf - mt)
            return (sign << (8 * W[to] - 1)) | (((1 << et) - 1) << mt) | (1 << (mt - 1)) | f
        if to == "FLOAT64": return to_bits(to, x)
        if to == "FLOAT32" and ti == "FLOAT16": return to_bits(to, x)
        # Narrowing: x is the exact input value (a double holds every FLOAT32 and FLOAT16), and
        # struct.pack rounds it once to nearest-even (overflow raises: the infinity of its sign).
        try: return int.from_bytes(struct.pack("<" + FMT[to], x), "little")
        except OverflowError: return to_bits(to, math.copysign(math.inf, x))
    if is_float(ti):
        x = value(ti, b)
        n = 8 * W[to]
        lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed(to) else (0, (1 << n) - 1)
        if math.isnan(x): v = 0
        elif math.isinf(x): v = hi if x > 0 else lo
        else: v = max(lo, min(hi, math.trunc(x)))
        return v & ((1 << n) - 1)
    if is_float(to):
        return round_int_to_float(to, value(ti, b))
    return value(ti, b) & ((1 << (8 * W[to])) - 1)

def run_case(c):
    op = c["operator"].removeprefix("DML_OPERATOR_")
    d = c["desc"]
    for k, v in d.items():
        if isinstance(v, dict) and "Strides" in v: return None
    if any(not isinstance(v, list) for v in c["inputs"].values()): return None
    ins = {k: [to_bits(d[k]["DataType"], x) for x in v] for k, v in c["inputs"].items()}
    to = d["OutputTensor"]["DataType"]
    n = len(c["expected"]["OutputTensor"]["Values"])
    exp = [to_bits(to, x) for x in c["expected"]["OutputTensor"]["Values"]]
    out = []
    for i in range(n):
        if op == "CAST":
            out.append(cast(d["InputTensor"]["DataType"], ins["InputTensor"][i], to)); continue
        if "ATensor" in ins and op != "ELEMENT_WISE_IF":
            t = d["ATensor"]["DataType"]; a, b = ins["ATensor"][i], ins["BTensor"][i]
            x, y = value(t, a), value(t, b)
            w = 8 * W[t]; mask = (1 << w) - 1
            cmp = {"LOGICAL_EQUALS": lambda: x == y, "LOGICAL_GREATER_THAN": lambda: x > y, "LOGICAL_LESS_THAN": lambda: x < y,
                   "LOGICAL_GREATER_THAN_OR_EQUAL": lambda: x >= y, "LOGICAL_LESS_THAN_OR_EQUAL": lambda: x <= y,
                   "LOGICAL_AND": lambda: (x != 0) and (y != 0), "LOGICAL_OR": lambda: (x != 0) or (y != 0),
                   "LOGICAL_XOR": lambda: (x != 0) != (y != 0)}
            k = op.removeprefix("ELEMENT_WISE_")
            if k in cmp: out.append(one_zero(to, cmp[k]()))
            elif k == "BIT_AND": out.append(a & b)
            elif k == "BIT_OR": out.append(a | b)
            elif k == "BIT_XOR": out.append(a ^ b)
            elif k == "BIT_SHIFT_LEFT": out.append(0 if b >= w else (a << b) & mask)
            elif k == "BIT_SHIFT_RIGHT": out.append(0 if b >= w else a >> b)
            else: raise Exception(k)
        elif op == "ELEMENT_WISE_IF":
            tc = d["ConditionTensor"]["DataType"]
            cv = value(tc, ins["ConditionTensor"][i])
            out.append(ins["ATensor"][i] if cv != 0 else ins["BTensor"][i])
        else:
            t = d["InputTensor"]["DataType"]; a = ins["InputTensor"][i]; x = value(t, a)
            k = op.removeprefix("ELEMENT_WISE_")
            if k == "LOGICAL_NOT": out.append(one_zero(to, x == 0))
            elif k == "IS_NAN": out.append(one_zero(to, is_float(t) and math.isnan(x)))
            elif k == "IS_INFINITY":
                m = str(d.get("InfinityMode", "EITHER")).removeprefix("DML_IS_INFINITY_MODE_")
                r = is_float(t) and math.isinf(x) and (m == "EITHER" or (m == "POSITIVE") == (x > 0))
                out.append(one_zero(to, r))
            elif k == "BIT_NOT": out.append(a ^ ((1 << (8 * W[t])) - 1))
            elif k == "BIT_COUNT": out.append(to_bits(to, bin(a).count("1")))
            else: raise Exception(k)
    return out == exp, out, exp

ok = bad = skipped = 0
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if not f.endswith(".json"): continue
        c = json.load(open(os.path.join(root, f)))
        if "expected" not in c: continue
        op = c["operator"].removeprefix("DML_OPERATOR_")
        if not (op == "CAST" or op.startswith("ELEMENT_WISE_LOGICAL_") or op.startswith("ELEMENT_WISE_BIT_") or
                op in ("ELEMENT_WISE_IS_NAN", "ELEMENT_WISE_IS_INFINITY", "ELEMENT_WISE_IF")): continue
        if c["expected"]["OutputTensor"].get("Values") is None: skipped += 1; continue
        r = run_case(c)
        if r is None: skipped += 1; continue
        if r[0]: ok += 1
        else:
            bad += 1
            if bad < 8: print("MISMATCH", os.path.join(root, f), [hex(v) for v in r[1][:8]], [hex(v) for v in r[2][:8]])
print("agree", ok, "differ", bad, "skipped", skipped)
sys.exit(1 if bad else 0)
