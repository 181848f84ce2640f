#!/usr/bin/env python3
"""Write the GPU cross-check corpus (docs/crosscheck-gpu.md): MAX_POOLING_GRAD 4-D and 5-D and
RESAMPLE_GRAD1 LINEAR and NEAREST_NEIGHBOR cases with seeded Random inputs, as dmlref case files.

    python3 tools/crosscheck/corpus.py CORPUS [--small]
    build/tools/dmlref run CORPUS -o GOLDENS --npy NPY

--small writes the same cases at reduced sizes (for a quick run on a CPU-only machine).
"""
import json
import os
import sys


def rnd(seed, lo=-1, hi=1, special=0.0, dist="Uniform"):
    r = {"Seed": seed, "Distribution": dist, "Min": lo, "Max": hi}
    if special:
        r["SpecialFraction"] = special
    return {"Random": r}


def pool_out(n, w, s, p, dil):
    return (n + 2 * p - (1 + (w - 1) * dil)) // s + 1


def max_pooling_grad(name, dtype, sizes, window, stride, pad, dil, x, dy, why):
    spatial = len(sizes) - 2
    out = sizes[:2] + [pool_out(sizes[2 + i], window, stride, pad, dil) for i in range(spatial)]
    return name, {
        "format": 1, "name": name, "description": why, "operator": "DML_OPERATOR_MAX_POOLING_GRAD",
        "desc": {
            "InputTensor": {"DataType": dtype, "Sizes": sizes},
            "InputGradientTensor": {"DataType": dtype, "Sizes": out},
            "OutputGradientTensor": {"DataType": dtype, "Sizes": sizes},
            "DimensionCount": spatial, "Strides": [stride] * spatial, "WindowSize": [window] * spatial,
            "StartPadding": [pad] * spatial, "EndPadding": [pad] * spatial, "Dilations": [dil] * spatial},
        "inputs": {"InputTensor": x, "InputGradientTensor": dy}}


def resample_grad(name, dtype, dx_sizes, scale, mode, rounding, ipo, opo, dy, why):
    dy_sizes = dx_sizes[:2] + [int(n * scale) for n in dx_sizes[2:]]
    return name, {
        "format": 1, "name": name, "description": why, "operator": "DML_OPERATOR_RESAMPLE_GRAD1",
        "desc": {
            "InputGradientTensor": {"DataType": dtype, "Sizes": dy_sizes},
            "OutputGradientTensor": {"DataType": dtype, "Sizes": dx_sizes},
            "InterpolationMode": mode, "RoundingDirection": rounding, "DimensionCount": 4,
            "Scales": [1, 1, scale, scale], "InputPixelOffsets": [0.5, 0.5, ipo, ipo],
            "OutputPixelOffsets": [-0.5, -0.5, opo, opo]},
        "inputs": {"InputGradientTensor": dy}}


def corpus(small):
    big = [1, 8, 64, 64] if small else [1, 32, 256, 256]
    mid = [1, 4, 32, 32] if small else [1, 8, 128, 128]
    vol = [1, 2, 8, 16, 16] if small else [1, 4, 16, 48, 48]
    cases = []
    # Max pooling grad: overlapping windows, padding, dilation, signed dY, ties (integer-valued X).
    cases.append(max_pooling_grad("pool2d_f32_w3s1p1_signed", "FLOAT32", big, 3, 1, 1, 1, rnd(1, -1, 1), rnd(2, -1, 1),
                                  "3x3 windows, stride 1, padding 1: up to 9 terms per element, dY of both signs (cancellation)"))
    cases.append(max_pooling_grad("pool2d_f32_w3s2p1_ties", "FLOAT32", mid, 3, 2, 1, 1, rnd(3, -4, 4, dist="Integers"), rnd(4, -1, 1),
                                  "3x3 windows, stride 2: integer-valued X, so windows hold ties (the lowest index wins)"))
    cases.append(max_pooling_grad("pool2d_f16_w3s1p1_signed", "FLOAT16", mid, 3, 1, 1, 1, rnd(5, -1, 1), rnd(6, -1, 1),
                                  "FLOAT16, 3x3 windows, stride 1: sums of up to 9 FLOAT16 terms"))
    cases.append(max_pooling_grad("pool2d_f32_w5s1p2_dil2", "FLOAT32", mid, 5, 1, 2, 2, rnd(7, -1, 1), rnd(8, -1, 1),
                                  "5x5 windows, dilation 2, padding 2 (PyTorch pads at most half the window): up to 25 terms per element"))
    cases.append(max_pooling_grad("pool3d_f32_w3s1p1", "FLOAT32", vol, 3, 1, 1, 1, rnd(9, -1, 1), rnd(10, -1, 1),
                                  "5-D, 3x3x3 windows, stride 1: up to 27 terms per element"))
    cases.append(max_pooling_grad("pool3d_f16_w3s1p1", "FLOAT16", vol, 3, 1, 1, 1, rnd(11, -1, 1), rnd(12, -1, 1),
                                  "5-D FLOAT16, 3x3x3 windows, stride 1: up to 27 FLOAT16 terms per element"))
    cases.append(max_pooling_grad("pool2d_f32_dy_specials", "FLOAT32", [1, 4, 32, 32], 3, 1, 1, 1, rnd(13, -1, 1),
                                  rnd(14, -1, 1, special=0.05), "specials in dY: NaN (any NaN matches a NaN sum), infinities, subnormals, -0"))
    cases.append(max_pooling_grad("pool2d_f32_x_nan", "FLOAT32", [1, 2, 16, 16], 3, 1, 1, 1, rnd(15, -1, 1, special=0.05),
                                  rnd(16, -1, 1), "NaN in X: DirectML's argmax lets a NaN lose; PyTorch's lets it win"))
    # Resample grads: LINEAR (half pixel, as align_corners=False) and nearest neighbour.
    for dtype, seed in (("FLOAT32", 100), ("FLOAT16", 200)):
        tag = "f32" if dtype == "FLOAT32" else "f16"
        for scale in (0.5, 1.5, 2, 3):
            # One full-size case (1x32x256x256); the others 1x8x128x128 (1x8x96x96 at scale 3).
            sizes = big if (dtype, scale) == ("FLOAT32", 1.5) else mid
            dx = sizes if scale <= 2 else sizes[:2] + [n * 3 // 4 for n in sizes[2:]]
            st = str(scale).replace(".", "p")
            cases.append(resample_grad(f"resample_linear_{tag}_x{st}_signed", dtype, mid if scale <= 2 else dx, scale, "LINEAR", "DECREASING", 0.5, -0.5,
                                       rnd(seed + 1, -1, 1), f"LINEAR, scale {scale}, half-pixel offsets, dY of both signs"))
            cases.append(resample_grad(f"resample_linear_{tag}_x{st}_positive", dtype, dx, scale, "LINEAR", "DECREASING", 0.5, -0.5,
                                       rnd(seed + 2, 0, 1), f"LINEAR, scale {scale}, dY >= 0: no cancellation, coordinate arithmetic shows"))
            cases.append(resample_grad(f"resample_nearest_{tag}_x{st}", dtype, dx, scale, "NEAREST_NEIGHBOR", "DECREASING", 0, 0,
                                       rnd(seed + 3, -1, 1), f"nearest neighbour floor(o / scale) (PyTorch 'nearest'), scale {scale}"))
            cases.append(resample_grad(f"resample_nearest_exact_{tag}_x{st}", dtype, dx, scale, "NEAREST_NEIGHBOR", "DECREASING", 0, -0.5,
                                       rnd(seed + 4, -1, 1), f"nearest neighbour floor((o + 0.5) / scale) (PyTorch 'nearest-exact'), scale {scale}"))
            cases.append(resample_grad(f"resample_nearest_increasing_{tag}_x{st}", dtype, dx, scale, "NEAREST_NEIGHBOR", "INCREASING", 0.5, -0.5,
                                       rnd(seed + 5, -1, 1), f"nearest neighbour ceil((o + 0.5) / scale - 0.5), INCREASING, scale {scale}"))
            seed += 10
    return cases


def main():
    out = sys.argv[1]
    small = "--small" in sys.argv
    os.makedirs(out, exist_ok=True)
    for name, case in corpus(small):
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(case, f, indent=1)
    print(f"wrote {len(corpus(small))} cases to {out}")


main()
