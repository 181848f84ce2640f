#!/usr/bin/env python3
"""The batch normalization corpus of the GPU cross-check (docs/crosscheck-gpu.md, "Batch
normalization"): BATCH_NORMALIZATION (plain, with a fused RELU, and `bnact_*` with each other
fused activation DirectML allows, with the parameters in ACTIVATIONS), _TRAINING, _GRAD and
_TRAINING_GRAD, FLOAT32 and FLOAT16, N x C x H x W = 8 x 16 x 16 x 16 with per-channel statistics
(2048 elements each), seeded Random inputs; and `stats_*`, _TRAINING on channels of 1,024 to 65,536
elements (STATISTICS), X uniform on [3, 5) (a mean 7 times the spread) or [-1, 3) (`centred`).

    python3 tools/crosscheck/bn_corpus.py CORPUS
"""
import json
import os
import sys

SIZES, STAT = [8, 16, 16, 16], [1, 16, 1, 1]
EPS = 0.0009765625  # 2^-10, exact in FLOAT32


# Every fused activation but RELU (the bn_relu_* cases), with parameters in each one's usual range.
ACTIVATIONS = [
    ("linear", {"Type": "ACTIVATION_LINEAR", "Alpha": 1.5, "Beta": 0.25}),
    ("sigmoid", {"Type": "ACTIVATION_SIGMOID"}),
    ("hard_sigmoid", {"Type": "ACTIVATION_HARD_SIGMOID", "Alpha": 0.2, "Beta": 0.5}),
    ("tanh", {"Type": "ACTIVATION_TANH"}),
    ("scaled_tanh", {"Type": "ACTIVATION_SCALED_TANH", "Alpha": 1.5, "Beta": 0.75}),
    ("leaky_relu", {"Type": "ACTIVATION_LEAKY_RELU", "Alpha": 0.125}),
    ("thresholded_relu", {"Type": "ACTIVATION_THRESHOLDED_RELU", "Alpha": 0.5}),
    ("elu", {"Type": "ACTIVATION_ELU", "Alpha": 1.0}),
    ("celu", {"Type": "ACTIVATION_CELU", "Alpha": 1.5}),
    ("scaled_elu", {"Type": "ACTIVATION_SCALED_ELU", "Alpha": 1.6732632, "Gamma": 1.050701}),
    ("softplus", {"Type": "ACTIVATION_SOFTPLUS", "Steepness": 2}),
    ("parametric_softplus", {"Type": "ACTIVATION_PARAMETRIC_SOFTPLUS", "Alpha": 0.5, "Beta": 2}),
    ("softsign", {"Type": "ACTIVATION_SOFTSIGN"}),
    ("identity", {"Type": "ACTIVATION_IDENTITY"}),
    ("shrink", {"Type": "ACTIVATION_SHRINK", "Bias": 0.25, "Threshold": 0.5}),
    ("gelu", {"Type": "ACTIVATION_GELU"}),
]


# _TRAINING's statistics at realistic sizes: (name, type, N x C x H x W, X's range).
STATISTICS = [
    ("stats_f32_c1024", "FLOAT32", [4, 8, 16, 16], (3, 5)),
    ("stats_f32_c16384", "FLOAT32", [16, 4, 32, 32], (3, 5)),
    ("stats_f32_c65536", "FLOAT32", [16, 2, 64, 64], (3, 5)),
    ("stats_f32_centred_c2048", "FLOAT32", [8, 8, 16, 16], (-1, 3)),
    ("stats_f16_c1024", "FLOAT16", [4, 8, 16, 16], (3, 5)),
    ("stats_f16_c16384", "FLOAT16", [16, 4, 32, 32], (3, 5)),
]


def rnd(seed, lo=-2, hi=2):
    return {"Random": {"Seed": seed, "Distribution": "Uniform", "Min": lo, "Max": hi, "SpecialFraction": 0}}


def t(dt, sizes):
    return {"DataType": dt, "Sizes": sizes}


def cases():
    for dt in ("FLOAT32", "FLOAT16"):
        s = dt.lower().replace("float", "f")
        for relu in (False, True):
            desc = {"InputTensor": t(dt, SIZES), "MeanTensor": t(dt, STAT), "VarianceTensor": t(dt, STAT),
                    "ScaleTensor": t(dt, STAT), "BiasTensor": t(dt, STAT), "OutputTensor": t(dt, SIZES),
                    "Spatial": 1, "Epsilon": EPS}
            if relu:
                desc["FusedActivation"] = {"Type": "ACTIVATION_RELU"}
            yield ("bn_relu_" if relu else "bn_") + s, "BATCH_NORMALIZATION", desc, {
                "InputTensor": rnd(1), "MeanTensor": rnd(2, -0.5, 0.5), "VarianceTensor": rnd(3, 0.25, 2),
                "ScaleTensor": rnd(4), "BiasTensor": rnd(5, -1, 1)}
        for act, fused in ACTIVATIONS:
            desc = {"InputTensor": t(dt, SIZES), "MeanTensor": t(dt, STAT), "VarianceTensor": t(dt, STAT),
                    "ScaleTensor": t(dt, STAT), "BiasTensor": t(dt, STAT), "OutputTensor": t(dt, SIZES),
                    "Spatial": 1, "Epsilon": EPS, "FusedActivation": fused}
            yield f"bnact_{act}_{s}", "BATCH_NORMALIZATION", desc, {
                "InputTensor": rnd(1), "MeanTensor": rnd(2, -0.5, 0.5), "VarianceTensor": rnd(3, 0.25, 2),
                "ScaleTensor": rnd(4), "BiasTensor": rnd(5, -1, 1)}
        yield "train_" + s, "BATCH_NORMALIZATION_TRAINING", {
            "InputTensor": t(dt, SIZES), "ScaleTensor": t(dt, STAT), "BiasTensor": t(dt, STAT), "OutputTensor": t(dt, SIZES),
            "OutputMeanTensor": t(dt, STAT), "OutputVarianceTensor": t(dt, STAT), "Epsilon": EPS}, {
            "InputTensor": rnd(6, -1, 3), "ScaleTensor": rnd(7), "BiasTensor": rnd(8, -1, 1)}
        for op, name in (("BATCH_NORMALIZATION_GRAD", "grad_"), ("BATCH_NORMALIZATION_TRAINING_GRAD", "tgrad_")):
            yield name + s, op, {
                "InputTensor": t(dt, SIZES), "InputGradientTensor": t(dt, SIZES), "MeanTensor": t(dt, STAT),
                "VarianceTensor": t(dt, STAT), "ScaleTensor": t(dt, STAT), "OutputGradientTensor": t(dt, SIZES),
                "OutputScaleGradientTensor": t(dt, STAT), "OutputBiasGradientTensor": t(dt, STAT), "Epsilon": EPS}, {
                "InputTensor": rnd(9), "InputGradientTensor": rnd(10), "MeanTensor": rnd(11, -0.25, 0.25),
                "VarianceTensor": rnd(12, 0.5, 1.5), "ScaleTensor": rnd(13)}


def statistics_cases():
    for name, dt, sizes, (lo, hi) in STATISTICS:
        stat = [1, sizes[1], 1, 1]
        yield name, "BATCH_NORMALIZATION_TRAINING", {
            "InputTensor": t(dt, sizes), "ScaleTensor": t(dt, stat), "BiasTensor": t(dt, stat),
            "OutputTensor": t(dt, sizes), "OutputMeanTensor": t(dt, stat), "OutputVarianceTensor": t(dt, stat),
            "Epsilon": EPS}, {"InputTensor": rnd(14, lo, hi), "ScaleTensor": rnd(15), "BiasTensor": rnd(16, -1, 1)}


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, op, desc, inputs in list(cases()) + list(statistics_cases()):
        case = {"format": 1, "name": name, "description": "GPU cross-check corpus (docs/crosscheck-gpu.md, Batch normalization)",
                "operator": op, "desc": desc, "inputs": inputs}
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(case, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
