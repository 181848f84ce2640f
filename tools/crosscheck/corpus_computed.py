#!/usr/bin/env python3
"""Write the GPU cross-check corpus of the computed families (docs/crosscheck-gpu.md, "Average
pooling", "Local response normalization"): AVERAGE_POOLING / AVERAGE_POOLING1 /
AVERAGE_POOLING_GRAD 4-D and 5-D (IncludePadding both ways, ceil sizes, dilation 1) and
LOCAL_RESPONSE_NORMALIZATION / _GRAD across channels, with seeded Random inputs.

    python3 tools/crosscheck/corpus_computed.py CORPUS
    build/tools/dmlref run CORPUS -o GOLDENS --npy NPY
"""
import json
import os
import sys


def rnd(seed, lo=-1, hi=1, special=0.0):
    r = {"Seed": seed, "Distribution": "Uniform", "Min": lo, "Max": hi}
    if special:
        r["SpecialFraction"] = special
    return {"Random": r}


def pool_out(n, w, s, p, ceil):
    span = n + 2 * p - w
    return (span + (s - 1 if ceil else 0)) // s + 1


def avg_pool(name, dtype, sizes, window, stride, pad, include, ceil, x, why, grad=False):
    spatial = len(sizes) - 2
    out = sizes[:2] + [pool_out(n, window, stride, pad, ceil) for n in sizes[2:]]
    arrays = {"DimensionCount": spatial, "Strides": [stride] * spatial, "WindowSize": [window] * spatial,
              "StartPadding": [pad] * spatial, "EndPadding": [pad] * spatial, "IncludePadding": include}
    if grad:
        desc = {"InputGradientTensor": {"DataType": dtype, "Sizes": out},
                "OutputGradientTensor": {"DataType": dtype, "Sizes": sizes}, **arrays}
        return name, {"format": 1, "name": name, "description": why, "operator": "DML_OPERATOR_AVERAGE_POOLING_GRAD",
                      "desc": desc, "inputs": {"InputGradientTensor": x}}
    desc = {"InputTensor": {"DataType": dtype, "Sizes": sizes}, "OutputTensor": {"DataType": dtype, "Sizes": out}, **arrays}
    return name, {"format": 1, "name": name, "description": why, "operator": "DML_OPERATOR_AVERAGE_POOLING",
                  "desc": desc, "inputs": {"InputTensor": x}}


def lrn(name, dtype, sizes, L, alpha, beta, bias, x, why, dy=None):
    t = {"DataType": dtype, "Sizes": sizes}
    params = {"CrossChannel": 1, "LocalSize": L, "Alpha": alpha, "Beta": beta, "Bias": bias}
    if dy is not None:
        return name, {"format": 1, "name": name, "description": why, "operator": "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD",
                      "desc": {"InputTensor": t, "InputGradientTensor": t, "OutputGradientTensor": t, **params},
                      "inputs": {"InputTensor": x, "InputGradientTensor": dy}}
    return name, {"format": 1, "name": name, "description": why, "operator": "DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION",
                  "desc": {"InputTensor": t, "OutputTensor": t, **params}, "inputs": {"InputTensor": x}}


def corpus():
    c = []
    img = [2, 8, 48, 48]
    vol = [1, 4, 12, 24, 24]
    seed = 500
    for dtype in ("FLOAT32", "FLOAT16"):
        tag = "f32" if dtype == "FLOAT32" else "f16"
        for include in (0, 1):
            inc = "incpad" if include else "excpad"
            for grad in (False, True):
                g = "grad_" if grad else ""
                seed += 10
                c.append(avg_pool(f"avgpool2d_{g}{tag}_w3s1p1_{inc}", dtype, img, 3, 1, 1, include, False, rnd(seed),
                                  "3x3 windows, stride 1, padding 1, signed values (cancellation)", grad))
                c.append(avg_pool(f"avgpool2d_{g}{tag}_w3s2p1_ceil_{inc}", dtype, [2, 8, 48, 47], 3, 2, 1, include, True, rnd(seed + 1, 0, 1),
                                  "3x3 windows, stride 2, padding 1, ceil sizes along H (48 + 2 padding: the last row of windows overhangs the padded input by one row; along W, 47, floor and ceil agree)", grad))
                c.append(avg_pool(f"avgpool2d_{g}{tag}_w5s2p2_{inc}", dtype, img, 5, 2, 2, include, False, rnd(seed + 2, 0, 1),
                                  "5x5 windows, stride 2, padding 2, values >= 0", grad))
                c.append(avg_pool(f"avgpool3d_{g}{tag}_w3s1p1_{inc}", dtype, vol, 3, 1, 1, include, False, rnd(seed + 3),
                                  "5-D, 3x3x3 windows, stride 1, padding 1: up to 27 terms", grad))
    for dtype in ("FLOAT32", "FLOAT16"):
        tag = "f32" if dtype == "FLOAT32" else "f16"
        for grad in (False, True):
            g = "grad_" if grad else ""
            seed += 10
            dy = rnd(seed + 5) if grad else None
            c.append(lrn(f"lrn_{g}{tag}_alexnet", dtype, [2, 32, 12, 12], 5, 1e-4, 0.75, 1.0, rnd(seed, -4, 4),
                         "AlexNet's parameters: L 5, Alpha 1e-4, Beta 0.75, Bias 1", dy))
            c.append(lrn(f"lrn_{g}{tag}_strong", dtype, [2, 16, 12, 12], 3, 1.0, 0.75, 1.0, rnd(seed + 1, -2, 2),
                         "Alpha 1 (B far from Bias): L 3, Beta 0.75, Bias 1", dy))
            c.append(lrn(f"lrn_{g}{tag}_beta_1p5_bias_2", dtype, [1, 16, 12, 12], 7, 2.0, 1.5, 2.0, rnd(seed + 2, -3, 3),
                         "L 7, Alpha 2, Beta 1.5, Bias 2", dy))
            c.append(lrn(f"lrn_{g}{tag}_even_l4", dtype, [1, 16, 8, 8], 4, 1.0, 0.75, 1.0, rnd(seed + 3, 0.5, 2),
                         "even LocalSize 4: DirectML's region [c - 1, c + 2]; PyTorch pads the other way ([c - 2, c + 1])", dy))
    return c


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = corpus()
    for name, case in cases:
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(case, f, indent=1)
    print(f"wrote {len(cases)} cases to {out}")


main()
