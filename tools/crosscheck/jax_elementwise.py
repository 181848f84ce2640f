#!/usr/bin/env python3
"""Cross-check JAX (XLA on GPU) against dmlref's goldens of the element-wise arithmetic operators
and the rational activations (docs/crosscheck-gpu.md, "Element-wise arithmetic ... JAX").

    dmlref gen sweeps/element_wise.json sweeps/activation.json --tier ci -o CASES
    dmlref run -q CASES --npy NPY
    python3 tools/crosscheck/jax_elementwise.py CASES NPY OUT      # on the GPU machine
    dmlref diff CASES OUT/actual

Each case's inputs are read through their Strides and computed with jax.numpy / jax.lax / jax.nn
in the case's own type (64-bit types enabled; JAX has every DirectML integer type, UINT16 to
UINT64 included): jnp.subtract, multiply, divide (lax.div, truncating, for integers), maximum,
minimum, fmod, remainder, abs, negative, sign, ceil, floor, round (lax.round AWAY_FROM_ZERO for
TOWARD_INFINITY), sqrt, reciprocal, jax.nn.leaky_relu, soft_sign, and hard_sigmoid/hard_swish
where Alpha and Beta are FLOAT32 1/6 and 1/2 (FLOAT16 and FLOAT32 data); elsewhere the page's
formula in jnp operations. ScaleBias is computed as dmlref's ScaleBiasArithmetic policy says
(float32 for FLOAT16 data). Integer SQRT, RECIP and THRESHOLD and integer activations are skipped
(JAX computes them in a float type), as in torch_cuda.py.
"""
import json
import os
import sys

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from case_fields import num  # tools/crosscheck/case_fields.py, beside this script

DT = {"FLOAT16": np.float16, "FLOAT32": np.float32, "FLOAT64": np.float64, "INT8": np.int8, "INT16": np.int16,
      "INT32": np.int32, "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64}


def load(npy, field, desc):
    flat = np.load(os.path.join(npy, field + ".npy"))
    if "Strides" in desc:
        view = np.lib.stride_tricks.as_strided(flat, shape=desc["Sizes"], strides=[s * flat.itemsize for s in desc["Strides"]])
        return jnp.asarray(view.copy())
    return jnp.asarray(flat[:int(np.prod(desc["Sizes"]))].reshape(desc["Sizes"]))


def is_float(x):
    return jnp.issubdtype(x.dtype, jnp.floating)


def binary(fn):
    def run(d, npy):
        return fn(load(npy, "ATensor", d["ATensor"]), load(npy, "BTensor", d["BTensor"]))
    return run


def divide(a, b):
    return jnp.divide(a, b) if is_float(a) else lax.div(a, b)


def mean(a, b):
    return (a + b) / jnp.asarray(2, a.dtype) if is_float(a) else lax.div(a + b, jnp.asarray(2, a.dtype))


def unary(fn, integers=True):
    def run(d, npy):
        x = load(npy, "InputTensor", d["InputTensor"])
        if not is_float(x) and not integers:
            raise NotImplementedError("integer data: JAX computes this operator in a float type")
        out = x.dtype
        if "ScaleBias" in d:
            if x.dtype == jnp.float16:
                x = x.astype(jnp.float32)
            sb = d["ScaleBias"]
            x = x * jnp.asarray(num(sb["Scale"]), x.dtype) + jnp.asarray(num(sb["Bias"]), x.dtype)
        return fn(x, d).astype(out)
    return run


def round_mode(x, d):
    if not is_float(x):
        return x
    mode = str(d.get("RoundingMode", "HALVES_TO_NEAREST_EVEN")).removeprefix("DML_ROUNDING_MODE_")
    if mode == "HALVES_TO_NEAREST_EVEN":
        return jnp.round(x)
    if mode == "TOWARD_ZERO":
        return jnp.trunc(x)
    return lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)


def activation(kind, d, x, slope=None):
    a = num(d["Alpha"]) if "Alpha" in d else None
    b = num(d["Beta"]) if "Beta" in d else None
    c = lambda v: jnp.asarray(v, x.dtype)
    sixth = float(np.float32(1 / 6))
    kernel = (a, b) == (sixth, 0.5) and x.dtype != jnp.float64  # jax.nn's 1/6 is exact; Alpha is FLOAT32
    if kind == "ACTIVATION_IDENTITY":
        return x
    if kind == "ACTIVATION_RELU":
        return jax.nn.relu(x)
    if kind == "ACTIVATION_LINEAR":
        return x * c(a) + c(b)
    if kind == "ACTIVATION_LEAKY_RELU":
        return jax.nn.leaky_relu(x, a)
    if kind == "ACTIVATION_PARAMETERIZED_RELU":  # no jax.nn kernel: the page's x >= 0 ? x : slope x
        return jnp.where(x >= 0, x, x * slope)
    if kind == "ACTIVATION_THRESHOLDED_RELU":
        return jnp.where(x > c(a), x, c(0))
    if kind == "ACTIVATION_SHRINK":
        t, bias = c(num(d["Threshold"])), c(num(d["Bias"]))
        return jnp.where(x < -t, x + bias, jnp.where(x > t, x - bias, c(0)))
    if kind == "ACTIVATION_HARD_SIGMOID":
        return jax.nn.hard_sigmoid(x) if kernel else jnp.clip(x * c(a) + c(b), 0, 1)
    if kind == "ACTIVATION_HARD_SWISH":
        return jax.nn.hard_swish(x) if kernel else x * jnp.clip(x * c(a) + c(b), 0, 1)
    if kind == "ACTIVATION_SOFTSIGN":
        return jax.nn.soft_sign(x)
    raise NotImplementedError(kind)


def standalone(kind):
    def run(d, npy):
        x = load(npy, "InputTensor", d["InputTensor"])
        if not is_float(x):
            raise NotImplementedError("integer activation")
        slope = load(npy, "SlopeTensor", d["SlopeTensor"]) if "SlopeTensor" in d else None
        return activation(kind, d, x, slope)
    return run


def add1(d, npy):
    y = load(npy, "ATensor", d["ATensor"]) + load(npy, "BTensor", d["BTensor"])
    fa = d.get("FusedActivation")
    if fa:
        if not is_float(y):
            raise NotImplementedError("integer activation")
        y = activation(str(fa["Type"]).removeprefix("DML_OPERATOR_"), fa, y)
    return y


def value_scale_2d(d, npy):
    x = load(npy, "InputTensor", d["InputTensor"])
    bias = jnp.asarray([num(v) for v in d["Bias"]], x.dtype).reshape(1, -1, 1, 1)
    return x * jnp.asarray(num(d["Scale"]), x.dtype) + bias


OPS = {
    "ELEMENT_WISE_ADD": binary(jnp.add), "ELEMENT_WISE_SUBTRACT": binary(jnp.subtract),
    "ELEMENT_WISE_MULTIPLY": binary(jnp.multiply), "ELEMENT_WISE_DIVIDE": binary(divide), "ELEMENT_WISE_MEAN": binary(mean),
    "ELEMENT_WISE_MAX": binary(jnp.maximum), "ELEMENT_WISE_MIN": binary(jnp.minimum),
    "ELEMENT_WISE_DIFFERENCE_SQUARE": binary(lambda a, b: jnp.square(a - b)),
    "ELEMENT_WISE_MODULUS_TRUNCATE": binary(jnp.fmod), "ELEMENT_WISE_MODULUS_FLOOR": binary(jnp.remainder),
    "ELEMENT_WISE_IDENTITY": unary(lambda x, d: x), "ELEMENT_WISE_ABS": unary(lambda x, d: jnp.abs(x)),
    "ELEMENT_WISE_NEGATE": unary(lambda x, d: jnp.negative(x)), "ELEMENT_WISE_SIGN": unary(lambda x, d: jnp.sign(x)),
    "ELEMENT_WISE_CEIL": unary(lambda x, d: jnp.ceil(x) if is_float(x) else x),
    "ELEMENT_WISE_FLOOR": unary(lambda x, d: jnp.floor(x) if is_float(x) else x),
    "ELEMENT_WISE_ROUND": unary(round_mode), "ELEMENT_WISE_SQRT": unary(lambda x, d: jnp.sqrt(x), integers=False),
    "ELEMENT_WISE_RECIP": unary(lambda x, d: jnp.reciprocal(x), integers=False),
    "ELEMENT_WISE_THRESHOLD": unary(lambda x, d: jnp.maximum(x, jnp.asarray(num(d["Min"]), x.dtype)), integers=False),
    "ELEMENT_WISE_ADD1": add1, "VALUE_SCALE_2D": value_scale_2d,
}
for _k in ("IDENTITY", "LINEAR", "LEAKY_RELU", "PARAMETERIZED_RELU", "THRESHOLDED_RELU", "SHRINK", "HARD_SIGMOID", "HARD_SWISH",
           "SOFTSIGN"):
    OPS["ACTIVATION_" + _k] = standalone("ACTIVATION_" + _k)


def main():
    cases, npy_root, out = sys.argv[1:4]
    print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}")
    for root, _, files in os.walk(cases):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            rel = os.path.relpath(os.path.join(root, f), cases)[:-5]
            c = json.load(open(os.path.join(root, f)))
            op = c["operator"].removeprefix("DML_OPERATOR_")
            if op not in OPS:
                continue
            try:
                y = OPS[op](c["desc"], os.path.join(npy_root, rel))
                y = np.asarray(y).astype(DT[c["desc"]["OutputTensor"]["DataType"]])
            except (NotImplementedError, TypeError, ValueError) as e:
                print(f"skipped {rel}: {e}")
                continue
            os.makedirs(os.path.join(out, "actual", rel), exist_ok=True)
            np.save(os.path.join(out, "actual", rel, "OutputTensor.npy"), y)
            print(f"ran {rel}")


main()
