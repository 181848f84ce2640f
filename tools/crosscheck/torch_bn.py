#!/usr/bin/env python3
"""PyTorch CUDA's batch normalization on the cases of bn_corpus.py (docs/crosscheck-gpu.md,
"Batch normalization"): the inputs from `dmlref run CORPUS --npy NPY`, the outputs written to
OUT/actual/<case>/<OutputField>.npy for `dmlref diff` (and zipped to OUT/bn-actual.zip).

    BATCH_NORMALIZATION           F.batch_norm(training=False) with the given statistics
                                  then the fused activation as a separate operator in the
                                  data type (activation() below: torch's function where it is
                                  the page's, else the page's formula in torch ops)
    BATCH_NORMALIZATION_TRAINING  F.batch_norm(training=True); OutputMean, OutputVariance from
                                  torch.var_mean(correction=0) over N, H, W
    BATCH_NORMALIZATION_GRAD      autograd of the inference batch_norm (statistics constant)
    BATCH_NORMALIZATION_TRAINING_GRAD
                                  aten.native_batch_norm_backward(train=True) with save_mean =
                                  MeanTensor, save_invstd = rsqrt(Variance + Epsilon)
Every tensor in the case's type (FLOAT16 computed by PyTorch's own FLOAT16 kernels).
"""
import json
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

DT = {"FLOAT32": torch.float32, "FLOAT16": torch.float16}


def load(npy, case, field, desc, dev):
    flat = np.load(os.path.join(npy, case, field + ".npy"))
    n = int(np.prod(desc[field]["Sizes"]))
    return torch.from_numpy(flat[:n].reshape(desc[field]["Sizes"]).copy()).to(dev)


def activation(fused, y):
    """DirectML's fused activation applied to the (rounded) batch normalization output y."""
    k = fused["Type"].replace("ACTIVATION_", "")
    a, b = fused.get("Alpha", 0.0), fused.get("Beta", 0.0)
    if k == "IDENTITY": return y
    if k == "RELU": return F.relu(y)
    if k == "LINEAR": return y * a + b
    if k == "SIGMOID": return torch.sigmoid(y)
    if k == "HARD_SIGMOID": return torch.clamp(y * a + b, 0, 1)
    if k == "TANH": return torch.tanh(y)
    if k == "SCALED_TANH": return torch.tanh(y * b) * a
    if k == "LEAKY_RELU": return F.leaky_relu(y, a)
    if k == "THRESHOLDED_RELU": return torch.where(y > a, y, torch.zeros_like(y))
    if k == "ELU": return F.elu(y, a)
    if k == "CELU": return F.celu(y, a)
    if k == "SCALED_ELU": return F.elu(y, a) * fused["Gamma"]
    if k == "SOFTPLUS": return F.softplus(y, beta=fused["Steepness"], threshold=1e30)
    if k == "PARAMETRIC_SOFTPLUS": return F.softplus(y, beta=b, threshold=1e30) * (a * b)
    if k == "SOFTSIGN": return F.softsign(y)
    if k == "SHRINK":
        bias, th = fused["Bias"], fused["Threshold"]
        return torch.where(y > th, y - bias, torch.where(y < -th, y + bias, torch.zeros_like(y)))
    if k == "GELU": return F.gelu(y)
    raise ValueError("no torch mapping for " + k)


def run(op, d, get):
    x = get("InputTensor")
    c = x.shape[1]
    eps = float(d["Epsilon"])
    flat = lambda t: t.reshape(c)
    if op == "BATCH_NORMALIZATION":
        y = F.batch_norm(x, flat(get("MeanTensor")), flat(get("VarianceTensor")), flat(get("ScaleTensor")),
                         flat(get("BiasTensor")), training=False, eps=eps)
        if d.get("FusedActivation"):
            y = activation(d["FusedActivation"], y)
        return {"OutputTensor": y}
    if op == "BATCH_NORMALIZATION_TRAINING":
        y = F.batch_norm(x, None, None, flat(get("ScaleTensor")), flat(get("BiasTensor")), training=True, eps=eps)
        var, mean = torch.var_mean(x, dim=(0, 2, 3), correction=0, keepdim=True)
        return {"OutputTensor": y, "OutputMeanTensor": mean, "OutputVarianceTensor": var}
    dy = get("InputGradientTensor")
    mean, var, scale = flat(get("MeanTensor")), flat(get("VarianceTensor")), flat(get("ScaleTensor"))
    if op == "BATCH_NORMALIZATION_GRAD":
        xg = x.clone().requires_grad_(True)
        w = scale.clone().requires_grad_(True)
        b = torch.zeros_like(scale).requires_grad_(True)
        F.batch_norm(xg, mean, var, w, b, training=False, eps=eps).backward(dy)
        dx, dw, db = xg.grad, w.grad, b.grad
    else:
        invstd = torch.rsqrt(var + eps)
        dx, dw, db = torch.ops.aten.native_batch_norm_backward(dy, x, scale, None, None, mean, invstd, True, eps,
                                                              [True, True, True])
    shape = [1, c, 1, 1]
    return {"OutputGradientTensor": dx, "OutputScaleGradientTensor": dw.reshape(shape),
            "OutputBiasGradientTensor": db.reshape(shape)}


def main(corpus, npy, out):
    dev = torch.device("cuda")
    print("torch", torch.__version__, torch.cuda.get_device_name(0))
    actual = os.path.join(out, "actual")
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".json"):
            continue
        case = json.load(open(os.path.join(corpus, name)))
        stem, d = name[:-5], case["desc"]
        op = case["operator"].replace("DML_OPERATOR_", "")
        get = lambda f: load(npy, stem, f, d, dev)
        try:
            outs = run(op, d, get)
        except Exception as e:  # e.g. a kernel that refuses FLOAT16 statistics: retry them in float32
            print("note", stem, "same-type parameters refused:", str(e).splitlines()[0])
            try:
                outs = run(op, d, lambda f: get(f) if f in ("InputTensor", "InputGradientTensor") else get(f).float())
                outs = {k: v.to(get("InputTensor").dtype) for k, v in outs.items()}
            except Exception as e2:
                print("skipped", stem, str(e2).splitlines()[0])
                continue
        os.makedirs(os.path.join(actual, stem), exist_ok=True)
        for field, v in outs.items():
            np.save(os.path.join(actual, stem, field + ".npy"), v.detach().cpu().numpy())
        print("done", stem, ", ".join(outs))
    shutil.make_archive(os.path.join(out, "bn-actual"), "zip", actual)


if __name__ == "__main__":
    main(*sys.argv[1:4])
