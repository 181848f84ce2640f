#!/usr/bin/env python3
"""Cross-check JAX (XLA on GPU) against dmlref's goldens of the selecting reductions and scans:
TOP_K, TOP_K1, ARGMIN, ARGMAX, REDUCE (ARGMIN, ARGMAX, MIN, MAX, SUM), CUMULATIVE_SUMMATION
(docs/crosscheck-gpu.md, "Reductions, indexing and layout").

    python3 tools/crosscheck/jax_data.py CASES NPY OUT      # on the GPU machine
    dmlref diff OUT/goldens OUT/actual

Each case's input is read through its Strides, in its own type (64-bit types enabled, so UINT64
orders correctly): lax.top_k (which documents that equal elements come lower index first: the
pages' guarantee), jnp.argmax/argmin over the reduced axes flattened row-major (DECREASING as
the last extreme index), jnp.max/min/sum, jnp.cumsum (flipped for DECREASING, shifted for
exclusive scans).
"""
import json
import os
import shutil
import sys

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

NP = {"FLOAT16": np.float16, "FLOAT32": np.float32, "FLOAT64": np.float64, "INT8": np.int8, "INT16": np.int16,
      "INT32": np.int32, "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64}


def load(npy, field, desc):
    flat = np.load(os.path.join(npy, field + ".npy"))
    if "Strides" in desc:
        view = np.lib.stride_tricks.as_strided(flat, shape=desc["Sizes"], strides=[s * flat.itemsize for s in desc["Strides"]])
        return jnp.asarray(view.copy())
    return jnp.asarray(flat[:int(np.prod(desc["Sizes"]))].reshape(desc["Sizes"]))


def arg_extreme(x, axes, largest, last):
    keep = [a for a in range(x.ndim) if a not in axes]
    y = jnp.transpose(x, keep + sorted(axes)).reshape(*[x.shape[a] for a in keep], -1)
    n = y.shape[-1]
    if last:
        y = jnp.flip(y, -1)
    i = jnp.argmax(y, -1) if largest else jnp.argmin(y, -1)
    return n - 1 - i if last else i


def top_k(d, npy):
    x = load(npy, "InputTensor", d["InputTensor"])
    a, k = d["Axis"], d["K"]
    y = jnp.moveaxis(x, a, -1)
    if d.get("AxisDirection", "DECREASING") == "INCREASING":
        if not jnp.issubdtype(x.dtype, jnp.floating):
            raise NotImplementedError("INCREASING on an integer type (lax.top_k selects the largest; -x wraps)")
        v, i = lax.top_k(-y, k)  # the smallest first; equal values keep the lower index first
        v = -v
    else:
        v, i = lax.top_k(y, k)
    return {"OutputValueTensor": jnp.moveaxis(v, -1, a), "OutputIndexTensor": jnp.moveaxis(i, -1, a)}


def reduce_(d, npy):
    x = load(npy, "InputTensor", d["InputTensor"])
    axes = tuple(sorted(set(d["Axes"])))
    f = d["Function"]
    if f in ("ARGMAX", "ARGMIN"):
        return arg_extreme(x, axes, f == "ARGMAX", False)
    if f == "MAX":
        return jnp.max(x, axes, keepdims=True)
    if f == "MIN":
        return jnp.min(x, axes, keepdims=True)
    if f == "SUM":
        return jnp.sum(x, axes, keepdims=True, dtype=x.dtype)
    raise NotImplementedError(f)


def argminmax(largest):
    def f(d, npy):
        return arg_extreme(load(npy, "InputTensor", d["InputTensor"]), sorted(set(d["Axes"])), largest,
                           d.get("AxisDirection") == "DECREASING")
    return f


def cumsum(d, npy):
    x = load(npy, "InputTensor", d["InputTensor"])
    a = d["Axis"]
    dec = d.get("AxisDirection") == "DECREASING"
    if dec:
        x = jnp.flip(x, a)
    if d.get("HasExclusiveSum"):
        x = jnp.concatenate([jnp.zeros_like(lax.slice_in_dim(x, 0, 1, axis=a)), lax.slice_in_dim(x, 0, x.shape[a] - 1, axis=a)], a)
    r = jnp.cumsum(x, a, dtype=x.dtype)
    return jnp.flip(r, a) if dec else r


OPERATORS = {"TOP_K": top_k, "TOP_K1": top_k, "REDUCE": reduce_, "ARGMAX": argminmax(True), "ARGMIN": argminmax(False),
             "CUMULATIVE_SUMMATION": cumsum}


def main():
    cases, npy_root, out = sys.argv[1:4]
    print(f"jax {jax.__version__} on {jax.devices()[0]}")
    ran = skipped = 0
    for root, _, files in os.walk(cases):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, cases)[:-5]
            c = json.load(open(path))
            op = c["operator"].removeprefix("DML_OPERATOR_")
            npy = os.path.join(npy_root, rel)
            if op not in OPERATORS or not c.get("expected") or not os.path.isdir(npy):
                continue
            try:
                r = OPERATORS[op](c["desc"], npy)
            except NotImplementedError as e:
                print(f"skipped {rel}: {e}")
                skipped += 1
                continue
            if not isinstance(r, dict):
                r = {"OutputTensor": r}
            os.makedirs(os.path.join(out, "actual", rel), exist_ok=True)
            for field, t in r.items():
                dd = c["desc"][field]
                np.save(os.path.join(out, "actual", rel, field + ".npy"),
                        np.asarray(t).astype(NP[dd["DataType"]]).reshape(dd["Sizes"]))
            os.makedirs(os.path.dirname(os.path.join(out, "goldens", rel)), exist_ok=True)
            shutil.copy(path, os.path.join(out, "goldens", rel + ".json"))
            ran += 1
    print(f"ran {ran}, skipped {skipped}")


main()
