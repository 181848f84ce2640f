#!/usr/bin/env python3
"""The BATCH_NORMALIZATION cases of the cross-check measured against a magnitude bound
(docs/crosscheck-gpu.md, "Batch normalization"): max over elements of
|actual - exact| / (u (|q| + |Bias|)), q = Scale (X - Mean) / sqrt(Variance + Epsilon), exact in
float64 (far below the bound), u the output type's unit roundoff. No numpy needed.

    python3 tools/crosscheck/bn_magnitude.py NPY ACTUAL
"""
import ast
import math
import struct
import sys


def npy(path):
    b = open(path, "rb").read()
    n = struct.unpack("<H", b[8:10])[0]
    h = ast.literal_eval(b[10:10 + n].decode())
    fmt = {"<f4": "f", "<f2": "e", "<f8": "d"}[h["descr"]]
    data = b[10 + n:]
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def check(npy_dir, actual, case, u, eps=2.0 ** -10, shape=(8, 16, 16, 16)):
    d = f"{npy_dir}/{case}/"
    x, m, v, s, b = (npy(d + f + ".npy") for f in ["InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor"])
    a = npy(f"{actual}/{case}/OutputTensor.npy")
    _, c_count, h, w = shape
    worst = 0.0
    for i in range(len(a)):
        c = (i // (h * w)) % c_count
        q = s[c] * (x[i] - m[c]) / math.sqrt(v[c] + eps)
        y = max(q + b[c], 0.0) if "relu" in case else q + b[c]
        worst = max(worst, abs(a[i] - y) / (u * (abs(q) + abs(b[c]))))
    print(f"{case}: max |actual - exact| / (u (|q| + |Bias|)) = {worst:.3f}")


if __name__ == "__main__":
    for case, u in (("bn_f32", 2.0 ** -24), ("bn_relu_f32", 2.0 ** -24), ("bn_f16", 2.0 ** -11), ("bn_relu_f16", 2.0 ** -11)):
        check(sys.argv[1], sys.argv[2], case, u)
