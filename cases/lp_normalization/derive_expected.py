#!/usr/bin/env python3
"""Independent expected values of the cases in this folder (docs/golden.md, Lp normalization):
exact fractions for the sums, square roots by Python's decimal module at 80 digits, one rounding
to nearest even in the output format (rn). Writes the authored cases (inputs and expected Values,
no tolerance or policies) to OUT; `dmlref run OUT` must PASS every one, and
`dmlref run OUT -o cases/lp_normalization` gives the bundled goldens (values unchanged).

    python3 cases/lp_normalization/derive_expected.py OUT
"""
import json, math, os, sys
from decimal import Decimal as Dd, getcontext
from fractions import Fraction
getcontext().prec = 80

def rn(v, p=24, emin=-126):
    """v (a Fraction or Decimal) rounded to nearest even with a p-bit significand, as a float"""
    v = Fraction(v)
    if v == 0: return 0.0
    s = -1 if v < 0 else 1; a = abs(v)
    e = math.floor(math.log2(a))
    while Fraction(2)**e > a: e -= 1
    while Fraction(2)**(e + 1) <= a: e += 1
    e = max(e, emin)
    q = a / Fraction(2)**(e - p + 1)
    n = math.floor(q); r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1): n += 1
    return s * float(n * Fraction(2)**(e - p + 1))

def dec(f): return Dd(f.numerator) / Dd(f.denominator)

def lp(xs, p, eps=Fraction(0), p16=False):
    """x / max(||x||_p, eps) for one vector, rounded once"""
    xs = [Fraction(x) for x in xs]
    s = sum(abs(x) if p == 1 else x * x for x in xs)
    out = []
    for x in xs:
        if p == 1: d = max(s, eps); v = None if d == 0 else x / d
        else:
            v = None
            if eps > 0 and s < eps * eps: v = x / eps
            elif s != 0: v = dec(x) / dec(s).sqrt()
        out.append("nan" if v is None else (rn(v, 11, -14) if p16 else rn(v)))
    return out

def column_major(cols):  # the values of [1, 2, 1, n] with Axis 1: element [0, c, 0, j] = cols[j][c]
    return [cols[j][c] for c in range(2) for j in range(len(cols))]

cases = []
def case(name, desc, d, x, expected):
    cases.append((name, {"format": 1, "name": "lp_normalization/" + name, "description": desc,
                         "operator": "DML_OPERATOR_LP_NORMALIZATION", "desc": d, "inputs": {"InputTensor": x},
                         "expected": {"OutputTensor": {"Values": expected}}}))
T = lambda s, dt="FLOAT32": {"DataType": dt, "Sizes": s}

cols = [[3, 4], [1, 2]]
case("p2_along_channels",
     "The page's operator in its 4-D form: X / ||X||_2 along Axis 1 (the channels). Sizes 1, 2, 1, 2 hold two vectors: (3, 4), whose norm is 5 (0.6, 0.8 rounded once), and (1, 2), whose norm is sqrt(5) (0.4472136, 0.8944272 rounded once). Epsilon 1e-5 is below both norms and changes nothing (LpNormalizationEpsilon).",
     {"InputTensor": T([1, 2, 1, 2]), "OutputTensor": T([1, 2, 1, 2]), "Axis": 1, "Epsilon": 1e-5, "P": 2},
     column_major(cols), column_major([lp(c, 2, Fraction(1, 100000)) for c in cols]))
cols = [[1, 2], [-3, 0]]
case("p1_along_channels",
     "P = 1: X / sum |X| along Axis 1. The vectors (1, 2) and (-3, 0) both have the norm 3: 1/3, 2/3 rounded once, and -1, 0 exactly.",
     {"InputTensor": T([1, 2, 1, 2]), "OutputTensor": T([1, 2, 1, 2]), "Axis": 1, "Epsilon": 0, "P": 1},
     column_major(cols), column_major([lp(c, 1) for c in cols]))
e = Fraction(1, 1024)
case("epsilon_floors_the_norm",
     "LpNormalizationEpsilon (docs/golden.md, Lp normalization): the page says only that Epsilon is there \"to avoid division by zero\"; dmlref divides by max(||X||, Epsilon). X = 2^-20, 0 (P = 2) has the norm 2^-20, below Epsilon 2^-10, so the values are 2^-10 and 0. Adding Epsilon to the norm would give 2^-20 / (2^-20 + 2^-10) = 0.00097561; adding it under the root (sqrt(2^-40 + 2^-10)) 0.000030517.",
     {"InputTensor": T([2]), "OutputTensor": T([2]), "Axis": 0, "Epsilon": 0.0009765625, "P": 2},
     [2.0**-20, 0], lp([Fraction(1, 2**20), 0], 2, e))
case("epsilon_below_the_norm_changes_nothing",
     "LpNormalizationEpsilon: where the norm is at least Epsilon the values are ONNX's LpNormalization (no Epsilon): X = 3, 4 with Epsilon 1/4 gives 0.6, 0.8 rounded once. Adding Epsilon to the norm would give 3 / 5.25 = 0.5714286 and 0.7619048.",
     {"InputTensor": T([2]), "OutputTensor": T([2]), "Axis": 0, "Epsilon": 0.25, "P": 2},
     [3, 4], lp([3, 4], 2, Fraction(1, 4)))
case("zero_vector",
     "LpNormalizationSpecialValues and LpNormalizationEpsilon: a zero vector is 0 / max(0, Epsilon): with Epsilon 2^-10 the values are +0 (first row); with Epsilon 0 they would be 0 / 0, NaN. The second row (0, -5) has the norm 5: 0 and -1.",
     {"InputTensor": T([2, 2]), "OutputTensor": T([2, 2]), "Axis": 1, "Epsilon": 0.0009765625, "P": 2},
     [0, 0, 0, -5], lp([0, 0], 2, e) + lp([0, -5], 2, e))
case("zero_vector_without_epsilon",
     "LpNormalizationSpecialValues (docs/golden.md, Lp normalization): IEEE's rules on the exact formula. With Epsilon 0 a zero vector is 0 / 0: NaN (canonical), for P = 1 as for P = 2.",
     {"InputTensor": T([1, 3]), "OutputTensor": T([1, 3]), "Axis": 1, "Epsilon": 0, "P": 1},
     [0, 0, 0], ["nan", "nan", "nan"])
case("infinite_element",
     "LpNormalizationSpecialValues: X = inf, 1 has an infinite norm: inf / inf is NaN and 1 / inf is 0.",
     {"InputTensor": T([2]), "OutputTensor": T([2]), "Axis": 0, "Epsilon": 0, "P": 2},
     ["inf", 1], ["nan", 0.0])
cols = [[1, 2], [2, 2]]
case("float16_rounded_once",
     "ComputedValue in FLOAT16: (1, 2) / sqrt(5) and (2, 2) / sqrt(8) along Axis 0 of a 2 x 2 tensor (columns): 0.4472656, 0.7070313, 0.8945313, 0.7070313 (the exact values rounded once to FLOAT16).",
     {"InputTensor": T([2, 2], "FLOAT16"), "OutputTensor": T([2, 2], "FLOAT16"), "Axis": 0, "Epsilon": 0, "P": 2},
     [1, 2, 2, 2], [lp([1, 2], 2, p16=True)[0], lp([2, 2], 2, p16=True)[0], lp([1, 2], 2, p16=True)[1], lp([2, 2], 2, p16=True)[1]])

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, c in cases:
    open(os.path.join(out, name + '.json'), 'w').write(json.dumps(c, indent=2) + '\n')
