#!/usr/bin/env python3
"""Cross-check JAX (XLA on GPU) against dmlref's goldens: the grads of jax.image.resize
'linear' (antialias=False, half-pixel centres) and of a max-pooling lax.reduce_window, by
jax.vjp, with float32 matmul precision HIGHEST (docs/crosscheck-gpu.md).

    dmlref run CORPUS --npy NPY
    python3 tools/crosscheck/jax_gpu.py CORPUS NPY OUT [--bundle]
    dmlref diff OUT/goldens OUT/actual
"""
import json
import os
import shutil
import sys
import zipfile

import numpy as np
import jax
import jax.numpy as jnp

jax.config.update("jax_default_matmul_precision", "highest")
DT = {"FLOAT16": np.float16, "FLOAT32": np.float32}


def load(npy, field, desc):
    flat = np.load(os.path.join(npy, field + ".npy"))
    n = int(np.prod(desc["Sizes"]))
    return jnp.asarray(flat[:n].reshape(desc["Sizes"]))


def resample_grad(d, npy):
    dyd, dxd = d["InputGradientTensor"], d["OutputGradientTensor"]
    if d["InterpolationMode"] != "LINEAR" or d["InputPixelOffsets"][2:] != [0.5, 0.5] or d["OutputPixelOffsets"][2:] != [-0.5, -0.5]:
        raise NotImplementedError("jax.image.resize 'linear' reads half-pixel LINEAR only")
    dy = load(npy, "InputGradientTensor", dyd)
    x = jnp.zeros(dxd["Sizes"], DT[dxd["DataType"]])
    f = lambda x: jax.image.resize(x, dyd["Sizes"], "linear", antialias=False)
    _, vjp = jax.vjp(f, x)
    return vjp(dy)[0]


def max_pooling_grad(d, npy):
    xd = d["InputTensor"]
    if len(xd["Sizes"]) != 4:
        raise NotImplementedError("4-D only")
    x = load(npy, "InputTensor", xd)
    dy = load(npy, "InputGradientTensor", d["InputGradientTensor"])
    pads = [(0, 0), (0, 0)] + [(s, e) for s, e in zip(d["StartPadding"], d["EndPadding"])]
    f = lambda x: jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, [1, 1] + d["WindowSize"], [1, 1] + d["Strides"], pads,
                                        window_dilation=[1, 1] + d.get("Dilations", [1, 1]))
    y, vjp = jax.vjp(f, x)
    if list(y.shape) != d["InputGradientTensor"]["Sizes"]:
        raise NotImplementedError("output size differs")
    return vjp(dy.astype(y.dtype))[0]


OPS = {"RESAMPLE_GRAD1": resample_grad, "MAX_POOLING_GRAD": max_pooling_grad}


def main():
    cases, npy_root, out = sys.argv[1:4]
    print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}")
    for f in sorted(os.listdir(cases)):
        if not f.endswith(".json"):
            continue
        rel = f[:-5]
        c = json.load(open(os.path.join(cases, f)))
        op = c["operator"].removeprefix("DML_OPERATOR_")
        if op not in OPS or c["desc"]["OutputGradientTensor"]["DataType"] not in DT:
            continue
        if np.prod(c["desc"]["OutputGradientTensor"]["Sizes"]) > 2**20:
            print(f"skipped {rel}: over 2^20 elements (the returned files are limited)")
            continue
        try:
            g = OPS[op](c["desc"], os.path.join(npy_root, rel))
        except (NotImplementedError, TypeError, ValueError) as e:
            print(f"skipped {rel}: {e}")
            continue
        os.makedirs(os.path.join(out, "actual", rel), exist_ok=True)
        np.save(os.path.join(out, "actual", rel, "OutputGradientTensor.npy"), np.asarray(g))
        print(f"ran {rel}")
    if "--bundle" in sys.argv:
        with zipfile.ZipFile(os.path.join(out, "jax-bundle.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            for root, _, names in os.walk(os.path.join(out, "actual")):
                for n in names:
                    z.write(os.path.join(root, n), os.path.relpath(os.path.join(root, n), out))


main()
