#!/usr/bin/env python3
"""An independent computation of the quantized linear goldens (docs/golden.md, "Quantized linear
products"): every golden of QUANTIZED_LINEAR_MATRIX_MULTIPLY and QUANTIZED_LINEAR_CONVOLUTION under
DIR is recomputed from its inputs with Python's fractions (no dmlref code): the inputs dequantized
as exact rationals, the matrix product or the convolution (the input padded with its zero point,
then a plain sliding window) summed exactly, the bias added in InputScale * FilterScale units, the
quotient by OutputScale rounded half to even, the zero point added, saturated.
The inputs are read as test/quantization_independent.py reads them (its `logical` and `check`).
Usage: quantized_linear_independent.py DIR   (prints "agree N differ M skipped K"; exits 1 when M > 0)
"""
import os, sys
from fractions import Fraction as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quantization_independent import check, clamp, logical, rhe  # noqa: E402


def quantize(v, s, z, t):
    lo, hi = (-128, 127) if t == "INT8" else (0, 255)
    return clamp(rhe(v / F(s)) + z, lo, hi)


def values(c, f, default=None):
    d, inp = c["desc"], c["inputs"]
    return logical(d[f], inp[f], d[f]["DataType"]) if f in d else default


def matmul(c):
    d = c["desc"]
    sizes = d["OutputTensor"]["Sizes"]
    M, N, K = sizes[-2], sizes[-1], d["ATensor"]["Sizes"][-1]
    batches = 1
    for s in sizes[:-2]:
        batches *= s
    a, b = values(c, "ATensor"), values(c, "BTensor")
    pick = lambda v, i: v[0] if len(v) == 1 else v[i]
    sa, sb, so = values(c, "AScaleTensor"), values(c, "BScaleTensor"), values(c, "OutputScaleTensor")
    za, zb, zo = values(c, "AZeroPointTensor", [0]), values(c, "BZeroPointTensor", [0]), values(c, "OutputZeroPointTensor", [0])
    out = []
    for batch in range(batches):
        for m in range(M):
            # Row m of A dequantized, column n of B dequantized: exact rationals.
            row = [(a[(batch * M + m) * K + k] - pick(za, m)) * F(pick(sa, m)) for k in range(K)]
            for n in range(N):
                col = [(b[(batch * K + k) * N + n] - pick(zb, n)) * F(pick(sb, n)) for k in range(K)]
                real = sum((x * y for x, y in zip(row, col)), F(0))
                out.append(quantize(real, pick(so, m), pick(zo, m), d["OutputTensor"]["DataType"]))
    return out


def convolution(c):
    d = c["desc"]
    xs, fs, ys = d["InputTensor"]["Sizes"], d["FilterTensor"]["Sizes"], d["OutputTensor"]["Sizes"]
    spatial = len(xs) - 2
    # Pad every shape to two spatial dimensions (a leading 1).
    pad2 = lambda v, fill: [fill] * (2 - spatial) + list(v)
    Hin, Win = pad2(xs[2:], 1)
    KH, KW = pad2(fs[2:], 1)
    OH, OW = pad2(ys[2:], 1)
    sh, sw = pad2(d["Strides"], 1)
    dh, dw = pad2(d["Dilations"], 1)
    ph, pw = pad2(d["StartPadding"], 0)
    eh, ew = pad2(d["EndPadding"], 0)
    Nb, C, M, G = xs[0], xs[1], ys[1], d["GroupCount"]
    x, w = values(c, "InputTensor"), values(c, "FilterTensor")
    pick = lambda v, i: v[0] if len(v) == 1 else v[i]
    xscale, wscale, yscale = values(c, "InputScaleTensor")[0], values(c, "FilterScaleTensor"), values(c, "OutputScaleTensor")[0]
    xz, wz, yz = values(c, "InputZeroPointTensor", [0])[0], values(c, "FilterZeroPointTensor", [0]), values(c, "OutputZeroPointTensor", [0])[0]
    bias = values(c, "BiasTensor", None)
    out = []
    cg, mg = C // G, M // G
    for n in range(Nb):
        # The input padded with its zero point, then dequantized: padding is a real 0.
        Hp, Wp = Hin + ph + eh, Win + pw + ew
        padded = [[[xz] * Wp for _ in range(Hp)] for _ in range(C)]
        for ch in range(C):
            for i in range(Hin):
                for j in range(Win):
                    padded[ch][i + ph][j + pw] = x[((n * C + ch) * Hin + i) * Win + j]
        for m in range(M):
            g = m // mg
            for oh in range(OH):
                for ow in range(OW):
                    real = F(0)
                    for cc in range(cg):
                        ch = g * cg + cc
                        for kh in range(KH):
                            for kw in range(KW):
                                xv = (padded[ch][oh * sh + kh * dh][ow * sw + kw * dw] - xz) * F(xscale)
                                wv = (w[((m * cg + cc) * KH + kh) * KW + kw] - pick(wz, m)) * F(pick(wscale, m))
                                real += xv * wv
                    if bias is not None:
                        real += bias[m] * F(xscale) * F(pick(wscale, m))
                    out.append(quantize(real, yscale, yz, d["OutputTensor"]["DataType"]))
    return out


def compute(c):
    op = c["operator"].replace("DML_OPERATOR_", "")
    if op == "QUANTIZED_LINEAR_MATRIX_MULTIPLY":
        return {"OutputTensor": matmul(c)}
    if op == "QUANTIZED_LINEAR_CONVOLUTION":
        return {"OutputTensor": convolution(c)}
    return None


if __name__ == "__main__":
    sys.exit(check(sys.argv[1], compute))
