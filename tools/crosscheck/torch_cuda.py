#!/usr/bin/env python3
"""Cross-check a GPU backend against dmlref's goldens: PyTorch's CUDA kernels for the
operators that have a direct PyTorch analogue.

    dmlref run cases --npy NPY            # inputs as .npy (on any machine)
    python3 tools/crosscheck/torch_cuda.py cases NPY OUT [--planted] [--bundle] [--cpu]
    dmlref diff OUT/goldens OUT/actual    # judged by the tolerance model

--cpu runs PyTorch's CPU kernels instead (a second backend; CUDA is the default where present).
--planted also writes OUT/planted/<bug>/<case>/OutputGradientTensor.npy: the same kernels with
one bug planted each (docs/crosscheck-gpu.md), which `dmlref diff` must reject. --bundle packs
OUT/actual and OUT/planted into OUT/bundle-N.zip files of at most 15 MiB (for machines that
return few files); tools/crosscheck/unbundle.py unpacks them.

For every golden in CASES whose operator and desc map onto PyTorch (packed tensors):
  ACTIVATION_RELU_GRAD  aten.threshold_backward(dY, X, 0)          (x <= 0 ? 0 : dY)
  MAX_POOLING_GRAD      max_pool2d / max_pool3d backward (symmetric padding, any dilation,
                        ceil mode when the golden's output size needs it; float types)
  SLICE_GRAD            autograd of indexing X with each dimension's window indices
  AVERAGE_POOLING(1)    avg_pool1d / 2d / 3d (count_include_pad = IncludePadding, ceil mode when
                        the golden's output size needs it; no dilation; asymmetric padding only with
                        IncludePadding, as explicit zeros); _GRAD by autograd
  LOCAL_RESPONSE_NORMALIZATION  local_response_norm (CrossChannel TRUE); _GRAD by autograd
  ELEMENT_WISE_ADD      a + b (torch.add), broadcast and strided inputs read through their Strides
  ELEMENT_WISE_SUBTRACT .. VALUE_SCALE_2D, ACTIVATION_LINEAR .. SOFTSIGN (the rational ones)
                        torch.sub/mul/div/maximum/minimum/fmod/remainder/round/sqrt/reciprocal,
                        leaky_relu, threshold, softsign, hardsigmoid/hardswish at 1/6 and 1/2, the
                        page's formula in torch operations elsewhere; ScaleBias in the data type
  ELEMENT_WISE_LOGICAL_*, IS_NAN, IS_INFINITY, IF, BIT_* (but BIT_COUNT), CAST
                        torch.eq/gt/lt/ge/le, logical_and/or/xor/not, isnan, isinf/isposinf/isneginf,
                        where(cond != 0), bitwise_* on the bits, Tensor.to(dtype); strided inputs read
                        through their Strides; types without a PyTorch dtype (UINT16/32/64) skipped
  (for these families strided inputs are read through their Strides; the rest take packed
  tensors only)
  RESAMPLE_GRAD1        interpolate backward: LINEAR with half-pixel offsets as bilinear,
                        align_corners=False; NEAREST_NEIGHBOR DECREASING with offsets 0 as
                        'nearest', with OutputPixelOffset -0.5 as 'nearest-exact'; INCREASING
                        with half-pixel offsets by autograd of indexing with float32
                        ceil((o + 0.5) * float32(1 / scale) - 0.5) (no PyTorch mode reads so)
it writes OUT/actual/<case>/<output field>.npy and copies the golden to
OUT/goldens/<case>.json, so that `dmlref diff` can judge PyTorch's results. Cases it cannot map
are listed as skipped with the reason. PyTorch is a GPU backend of other frameworks, not of
DirectML: where it differs from the goldens it shows where backends read these operators
differently, which is what spec-clarification cases are for.
"""
import json
import os
import shutil
import sys

from bundle import bundle  # tools/crosscheck/bundle.py, beside this script
from case_fields import num  # tools/crosscheck/case_fields.py, beside this script
import numpy as np
import torch

DTYPES = {"FLOAT16": torch.float16, "FLOAT32": torch.float32, "FLOAT64": torch.float64,
          "INT8": torch.int8, "INT16": torch.int16, "INT32": torch.int32, "INT64": torch.int64,
          "UINT8": torch.uint8}


def tensor(npy_dir, field, desc, device):
    """The logical tensor of an input, from its buffer dump (read through Strides when it has them)."""
    flat = np.load(os.path.join(npy_dir, field + ".npy"))
    if "Strides" in desc:
        view = np.lib.stride_tricks.as_strided(flat, shape=desc["Sizes"],
                                               strides=[s * flat.itemsize for s in desc["Strides"]])
        return torch.from_numpy(view.copy()).to(device)
    n = int(np.prod(desc["Sizes"]))
    return torch.from_numpy(flat[:n].reshape(desc["Sizes"]).copy()).to(device)


def packed(d):
    return all("Strides" not in d[k] for k in d if isinstance(d[k], dict) and "Sizes" in d[k])


def add(d, npy, dev):
    if d["ATensor"]["DataType"] not in DTYPES:
        raise NotImplementedError(d["ATensor"]["DataType"] + " (no PyTorch dtype)")
    return tensor(npy, "ATensor", d["ATensor"], dev) + tensor(npy, "BTensor", d["BTensor"], dev)


def relu_grad(d, npy, dev):
    x = tensor(npy, "InputTensor", d["InputTensor"], dev)
    dy = tensor(npy, "InputGradientTensor", d["InputGradientTensor"], dev)
    return torch.ops.aten.threshold_backward(dy, x, 0)


def max_pooling_grad(d, npy, dev):
    xd = d["InputTensor"]
    if xd["DataType"] not in ("FLOAT16", "FLOAT32", "FLOAT64"):
        raise NotImplementedError("PyTorch's CUDA max pooling takes float types only")
    rank = len(xd["Sizes"])
    if rank not in (4, 5):
        raise NotImplementedError(f"PyTorch pools 4-D and 5-D tensors, not {rank}-D")
    if d["StartPadding"] != d["EndPadding"]:
        raise NotImplementedError("PyTorch pads symmetrically")
    x = tensor(npy, "InputTensor", xd, dev).requires_grad_(True)
    dy = tensor(npy, "InputGradientTensor", d["InputGradientTensor"], dev)
    pool = torch.nn.functional.max_pool2d if rank == 4 else torch.nn.functional.max_pool3d
    args = dict(kernel_size=d["WindowSize"], stride=d["Strides"], padding=d["StartPadding"],
                dilation=d.get("Dilations", [1] * (rank - 2)))
    y = pool(x, ceil_mode=False, **args)
    if list(y.shape) != d["InputGradientTensor"]["Sizes"]:
        y = pool(x, ceil_mode=True, **args)
    if list(y.shape) != d["InputGradientTensor"]["Sizes"]:
        raise NotImplementedError("PyTorch's output size differs from the golden's")
    y.backward(dy)
    return x.grad


def slice_grad(d, npy, dev):
    dyd, dxd = d["InputGradientTensor"], d["OutputGradientTensor"]
    dt = DTYPES.get(dxd["DataType"])
    if dt is None or not dt.is_floating_point:
        raise NotImplementedError("autograd needs a float type")
    x = torch.zeros(dxd["Sizes"], dtype=dt, device=dev, requires_grad=True)
    index = []
    for i, (off, size, stride) in enumerate(zip(d["InputWindowOffsets"], d["InputWindowSizes"], d["InputWindowStrides"])):
        start = off + (size - 1 if stride < 0 else 0)
        index.append(start + stride * torch.arange(dyd["Sizes"][i], device=dev))
    y = x[torch.meshgrid(*index, indexing="ij")]
    y.backward(tensor(npy, "InputGradientTensor", dyd, dev))
    return x.grad


def resample_grad(d, npy, dev):
    dyd, dxd = d["InputGradientTensor"], d["OutputGradientTensor"]
    dt = DTYPES.get(dxd["DataType"])
    if dt is None or not dt.is_floating_point or len(dxd["Sizes"]) != 4:
        raise NotImplementedError("4-D float tensors only")
    if d["Scales"][:2] != [1, 1] or len(set(d["Scales"][2:])) != 1:
        raise NotImplementedError("one scale for both spatial dimensions, 1 for N and C")
    scale = d["Scales"][2]
    ipo, opo = d["InputPixelOffsets"][2:], d["OutputPixelOffsets"][2:]
    dy = tensor(npy, "InputGradientTensor", dyd, dev)
    x = torch.zeros(dxd["Sizes"], dtype=dt, device=dev, requires_grad=True)
    mode, rounding = d["InterpolationMode"], d.get("RoundingDirection", "DECREASING")
    F = torch.nn.functional
    if mode == "LINEAR" and ipo == [0.5, 0.5] and opo == [-0.5, -0.5]:
        y = F.interpolate(x, scale_factor=scale, mode="bilinear", align_corners=False)
    elif mode == "NEAREST_NEIGHBOR" and rounding == "DECREASING" and ipo == [0, 0] and opo == [0, 0]:
        y = F.interpolate(x, scale_factor=scale, mode="nearest")
    elif mode == "NEAREST_NEIGHBOR" and rounding == "DECREASING" and ipo == [0, 0] and opo == [-0.5, -0.5]:
        y = F.interpolate(x, scale_factor=scale, mode="nearest-exact")
    elif mode == "NEAREST_NEIGHBOR" and rounding == "INCREASING" and ipo == [0.5, 0.5] and opo == [-0.5, -0.5]:
        r = torch.tensor(1.0 / scale, dtype=torch.float32, device=dev)
        idx = []
        for i in (2, 3):
            o = torch.arange(dyd["Sizes"][i], dtype=torch.float32, device=dev)
            idx.append(torch.clamp(torch.ceil((o + 0.5) * r - 0.5), 0, dxd["Sizes"][i] - 1).long())
        y = x[:, :, idx[0][:, None], idx[1][None, :]]
    else:
        raise NotImplementedError("no PyTorch mode reads these offsets")
    if list(y.shape) != dyd["Sizes"]:
        raise NotImplementedError(f"PyTorch's output size {list(y.shape)} differs from dY's {dyd['Sizes']}")
    y.backward(dy)
    return x.grad


def avg_pool_args(d, xd, pooled):
    """avg_pool2d/3d and its arguments for an average pooling desc (x = the forward input)."""
    if xd["DataType"] not in ("FLOAT16", "FLOAT32", "FLOAT64"):
        raise NotImplementedError("PyTorch's CUDA average pooling takes float types only")
    rank = len(xd["Sizes"])
    if rank not in (3, 4, 5):
        raise NotImplementedError(f"PyTorch pools 3-D, 4-D and 5-D tensors, not {rank}-D")
    if any(v != 1 for v in d.get("Dilations", [])):
        raise NotImplementedError("PyTorch's average pooling has no dilation")
    F = torch.nn.functional
    pool = {3: F.avg_pool1d, 4: F.avg_pool2d, 5: F.avg_pool3d}[rank]
    include = bool(d.get("IncludePadding", 0))
    start, end = list(d["StartPadding"]), list(d["EndPadding"])
    if start == end:
        pad = None
        args = dict(kernel_size=d["WindowSize"], stride=d["Strides"], padding=start, count_include_pad=include)
    elif include:
        # Asymmetric padding: zeros padded explicitly (F.pad takes the last dimension first),
        # then pooled without padding; with IncludePadding the zeros count, as DirectML's do.
        pad = [p for s, e in zip(reversed(start), reversed(end)) for p in (s, e)]
        args = dict(kernel_size=d["WindowSize"], stride=d["Strides"], padding=0, count_include_pad=True)
    else:
        raise NotImplementedError("PyTorch pads symmetrically (asymmetric padding only with IncludePadding)")

    def run(x):
        if pad is not None:
            x = F.pad(x, pad)
        for ceil in (False, True):
            y = pool(x, ceil_mode=ceil, **args)
            if list(y.shape) == pooled["Sizes"]:
                return y
        raise NotImplementedError("PyTorch's output size differs from the golden's")
    return run


def avg_pool(d, npy, dev):
    x = tensor(npy, "InputTensor", d["InputTensor"], dev)
    return avg_pool_args(d, d["InputTensor"], d["OutputTensor"])(x)


def avg_pool_grad(d, npy, dev):
    dxd = d["OutputGradientTensor"]
    x = torch.zeros(dxd["Sizes"], dtype=DTYPES[dxd["DataType"]], device=dev, requires_grad=True) \
        if dxd["DataType"] in ("FLOAT16", "FLOAT32", "FLOAT64") else None
    run = avg_pool_args(d, dxd, d["InputGradientTensor"])
    y = run(x)
    y.backward(tensor(npy, "InputGradientTensor", d["InputGradientTensor"], dev))
    return x.grad


def lrn_forward(d, x):
    if d["CrossChannel"] != 1:
        raise NotImplementedError("PyTorch's local_response_norm works across channels only")
    if x.dim() < 3:
        raise NotImplementedError("PyTorch's local_response_norm needs 3 or more dimensions")
    if not x.dtype.is_floating_point:
        raise NotImplementedError("float types only")
    return torch.nn.functional.local_response_norm(x, size=d["LocalSize"], alpha=d["Alpha"], beta=d["Beta"], k=d["Bias"])


def lrn(d, npy, dev):
    return lrn_forward(d, tensor(npy, "InputTensor", d["InputTensor"], dev))


def lrn_grad(d, npy, dev):
    x = tensor(npy, "InputTensor", d["InputTensor"], dev)
    if not x.dtype.is_floating_point:
        raise NotImplementedError("float types only")
    x.requires_grad_(True)
    lrn_forward(d, x).backward(tensor(npy, "InputGradientTensor", d["InputGradientTensor"], dev))
    return x.grad


OPERATORS = {"ACTIVATION_RELU_GRAD": relu_grad, "MAX_POOLING_GRAD": max_pooling_grad, "SLICE_GRAD": slice_grad,
             "RESAMPLE_GRAD1": resample_grad, "AVERAGE_POOLING": avg_pool, "AVERAGE_POOLING1": avg_pool,
             "AVERAGE_POOLING_GRAD": avg_pool_grad, "LOCAL_RESPONSE_NORMALIZATION": lrn,
             "LOCAL_RESPONSE_NORMALIZATION_GRAD": lrn_grad, "ELEMENT_WISE_ADD": add}
# Operators whose strided inputs are read through their Strides (tensor()); the output is written
# in its logical shape, which `dmlref diff` reads for any output Strides (docs/diff.md).
STRIDED = {"AVERAGE_POOLING", "AVERAGE_POOLING1", "AVERAGE_POOLING_GRAD", "LOCAL_RESPONSE_NORMALIZATION",
           "LOCAL_RESPONSE_NORMALIZATION_GRAD", "ELEMENT_WISE_ADD"}
# The output field each operator writes (the rest write OutputGradientTensor).
OUTPUT = {"AVERAGE_POOLING": "OutputTensor", "AVERAGE_POOLING1": "OutputTensor", "LOCAL_RESPONSE_NORMALIZATION": "OutputTensor",
          "ELEMENT_WISE_ADD": "OutputTensor"}



# ---- Element-wise logic and CAST (reference/element_wise_logic.cpp, reference/cast.cpp) ----------
# Each reads its inputs through their Strides and writes OutputTensor in its DataType. PyTorch has no
# UINT16, UINT32 or UINT64 here (DTYPES): such cases are skipped.

def out_dtype(d):
    t = d["OutputTensor"]["DataType"]
    if t not in DTYPES:
        raise NotImplementedError(t + " (no PyTorch dtype)")
    return DTYPES[t]


def inputs(d, npy, dev, *fields):
    for f in fields:
        if d[f]["DataType"] not in DTYPES:
            raise NotImplementedError(d[f]["DataType"] + " (no PyTorch dtype)")
    return [tensor(npy, f, d[f], dev) for f in fields]


def logic_binary(fn):
    def run(d, npy, dev):
        a, b = inputs(d, npy, dev, "ATensor", "BTensor")
        return fn(a, b).to(out_dtype(d))
    return run


def logic_unary(fn):
    def run(d, npy, dev):
        (x,) = inputs(d, npy, dev, "InputTensor")
        return fn(x).to(out_dtype(d))
    return run


def is_infinity(d, npy, dev):
    (x,) = inputs(d, npy, dev, "InputTensor")
    mode = str(d.get("InfinityMode", "EITHER")).removeprefix("DML_IS_INFINITY_MODE_")
    f = {"EITHER": torch.isinf, "POSITIVE": torch.isposinf, "NEGATIVE": torch.isneginf}[mode]
    return f(x).to(out_dtype(d))


def where(d, npy, dev):
    c, a, b = inputs(d, npy, dev, "ConditionTensor", "ATensor", "BTensor")
    return torch.where(c != 0, a, b)


def bits_of(x):
    """A float tensor's bits as the signed integer of its width (bitwise operators read the encoding)."""
    view = {torch.float16: torch.int16, torch.float32: torch.int32, torch.float64: torch.int64}
    return x.view(view[x.dtype]) if x.dtype in view else x


def bitwise_binary(fn):
    def run(d, npy, dev):
        a, b = inputs(d, npy, dev, "ATensor", "BTensor")
        return fn(bits_of(a), bits_of(b)).view(a.dtype)
    return run


def bit_not(d, npy, dev):
    (x,) = inputs(d, npy, dev, "InputTensor")
    return torch.bitwise_not(bits_of(x)).view(x.dtype)


def cast(d, npy, dev):
    (x,) = inputs(d, npy, dev, "InputTensor")
    return x.to(out_dtype(d))


LOGIC_OPERATORS = {
    "ELEMENT_WISE_LOGICAL_EQUALS": logic_binary(torch.eq), "ELEMENT_WISE_LOGICAL_GREATER_THAN": logic_binary(torch.gt),
    "ELEMENT_WISE_LOGICAL_LESS_THAN": logic_binary(torch.lt), "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL": logic_binary(torch.ge),
    "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL": logic_binary(torch.le), "ELEMENT_WISE_LOGICAL_AND": logic_binary(torch.logical_and),
    "ELEMENT_WISE_LOGICAL_OR": logic_binary(torch.logical_or), "ELEMENT_WISE_LOGICAL_XOR": logic_binary(torch.logical_xor),
    "ELEMENT_WISE_LOGICAL_NOT": logic_unary(torch.logical_not), "ELEMENT_WISE_IS_NAN": logic_unary(torch.isnan),
    "ELEMENT_WISE_IS_INFINITY": is_infinity, "ELEMENT_WISE_IF": where,
    "ELEMENT_WISE_BIT_AND": bitwise_binary(torch.bitwise_and), "ELEMENT_WISE_BIT_OR": bitwise_binary(torch.bitwise_or),
    "ELEMENT_WISE_BIT_XOR": bitwise_binary(torch.bitwise_xor), "ELEMENT_WISE_BIT_NOT": bit_not,
    # BIT_COUNT has no PyTorch operator; the shifts are PyTorch's (arithmetic right shift on signed types,
    # counts past the width as its kernels give them: the cases where that differs show the policies).
    "ELEMENT_WISE_BIT_SHIFT_LEFT": bitwise_binary(torch.bitwise_left_shift),
    "ELEMENT_WISE_BIT_SHIFT_RIGHT": bitwise_binary(torch.bitwise_right_shift),
    "CAST": cast,
}
OPERATORS.update(LOGIC_OPERATORS)
STRIDED.update(LOGIC_OPERATORS)
OUTPUT.update({op: "OutputTensor" for op in LOGIC_OPERATORS})

# ---- Element-wise arithmetic and the rational activations (reference/element_wise.cpp,
# element_wise_unary.cpp, activation.cpp). PyTorch's own kernels where one computes the formula
# (torch.sub, mul, div, maximum, round, sqrt, reciprocal, fmod, remainder, leaky_relu, softsign,
# threshold, hardsigmoid/hardswish at their fixed 1/6 and 1/2 for FLOAT16 and FLOAT32); elsewhere the
# page's formula in torch operations of the data type. ScaleBias has no PyTorch counterpart: it is
# computed as the page and dmlref's ScaleBiasArithmetic policy say (float32, float64 for FLOAT64 data),
# the operator applied in that type, and the result rounded to the data type once. Integer SQRT, RECIP
# and THRESHOLD are skipped: PyTorch computes them in a float type (torch.sqrt of an int tensor is a
# float tensor; clamp_min with a FLOAT Min promotes), so the result would be the harness's conversion.

def scaled(d, x):
    sb = d.get("ScaleBias")
    return x * num(sb["Scale"]) + num(sb["Bias"]) if sb else x


def arith_unary(fn, integers=True):
    def run(d, npy, dev):
        (x,) = inputs(d, npy, dev, "InputTensor")
        if not integers and not x.dtype.is_floating_point:
            raise NotImplementedError("integer data: PyTorch computes this operator in a float type")
        if "ScaleBias" in d and x.dtype == torch.float16:
            x = x.float()
        return fn(scaled(d, x), d).to(out_dtype(d))
    return run


def arith_binary(fn):
    def run(d, npy, dev):
        a, b = inputs(d, npy, dev, "ATensor", "BTensor")
        return fn(a, b).to(out_dtype(d))
    return run


def divide(a, b):
    return torch.div(a, b) if a.dtype.is_floating_point else torch.div(a, b, rounding_mode="trunc")


def mean(a, b):
    return (a + b) / 2 if a.dtype.is_floating_point else torch.div(a + b, 2, rounding_mode="trunc")


def round_mode(x, d):
    if not x.dtype.is_floating_point:
        return x
    mode = str(d.get("RoundingMode", "HALVES_TO_NEAREST_EVEN")).removeprefix("DML_ROUNDING_MODE_")
    if mode == "HALVES_TO_NEAREST_EVEN":
        return torch.round(x)
    t = torch.trunc(x)
    if mode == "TOWARD_ZERO":
        return t
    # halves away from zero: x - trunc(x) is exact
    return torch.where((x - t).abs() >= 0.5, t + torch.sign(x), t)


def activation(kind, d, x, slope=None):
    """DML_ACTIVATION_* of x with the desc's parameters (FusedActivation uses the same table)."""
    F = torch.nn.functional
    a, b = (num(d[k]) if k in d else None for k in ("Alpha", "Beta"))
    sixth = float(np.float32(1 / 6))
    if kind == "ACTIVATION_IDENTITY":
        return x
    if kind == "ACTIVATION_RELU":
        return torch.relu(x)
    if kind == "ACTIVATION_LINEAR":
        return x * a + b
    if kind == "ACTIVATION_LEAKY_RELU":
        return F.leaky_relu(x, a)
    if kind == "ACTIVATION_PARAMETERIZED_RELU":
        return torch.where(x > 0, x, x * slope)
    if kind == "ACTIVATION_THRESHOLDED_RELU":
        return F.threshold(x, a, 0.0)
    if kind == "ACTIVATION_SHRINK":
        t, bias = num(d["Threshold"]), num(d["Bias"])
        return torch.where(x < -t, x + bias, torch.where(x > t, x - bias, torch.zeros_like(x)))
    if kind == "ACTIVATION_HARD_SIGMOID":
        kernel = (a, b) == (sixth, 0.5) and x.dtype != torch.float64  # torch's 1/6 is exact, Alpha is FLOAT32
        return F.hardsigmoid(x) if kernel else torch.clamp(x * a + b, 0, 1)
    if kind == "ACTIVATION_HARD_SWISH":
        kernel = (a, b) == (sixth, 0.5) and x.dtype != torch.float64
        return F.hardswish(x) if kernel else x * torch.clamp(x * a + b, 0, 1)
    if kind == "ACTIVATION_SOFTSIGN":
        return F.softsign(x)
    raise NotImplementedError(kind)


def standalone_activation(kind):
    def run(d, npy, dev):
        (x,) = inputs(d, npy, dev, "InputTensor")
        slope = inputs(d, npy, dev, "SlopeTensor")[0] if "SlopeTensor" in d else None
        if not x.dtype.is_floating_point:
            raise NotImplementedError("integer activation")
        return activation(kind, d, x, slope).to(out_dtype(d))
    return run


def add1(d, npy, dev):
    a, b = inputs(d, npy, dev, "ATensor", "BTensor")
    y = a + b
    fa = d.get("FusedActivation")
    if fa:
        y = activation(str(fa["Type"]).removeprefix("DML_OPERATOR_"), fa, y)
    return y.to(out_dtype(d))


def value_scale_2d(d, npy, dev):
    (x,) = inputs(d, npy, dev, "InputTensor")
    bias = torch.tensor([num(v) for v in d["Bias"]], dtype=x.dtype, device=x.device).reshape(1, -1, 1, 1)
    return (x * num(d["Scale"]) + bias).to(out_dtype(d))


ARITHMETIC_OPERATORS = {
    "ELEMENT_WISE_SUBTRACT": arith_binary(torch.sub), "ELEMENT_WISE_MULTIPLY": arith_binary(torch.mul),
    "ELEMENT_WISE_DIVIDE": arith_binary(divide), "ELEMENT_WISE_MEAN": arith_binary(mean),
    "ELEMENT_WISE_MAX": arith_binary(torch.maximum), "ELEMENT_WISE_MIN": arith_binary(torch.minimum),
    "ELEMENT_WISE_DIFFERENCE_SQUARE": arith_binary(lambda a, b: torch.square(a - b)),
    "ELEMENT_WISE_MODULUS_TRUNCATE": arith_binary(torch.fmod), "ELEMENT_WISE_MODULUS_FLOOR": arith_binary(torch.remainder),
    "ELEMENT_WISE_IDENTITY": arith_unary(lambda x, d: x), "ELEMENT_WISE_ABS": arith_unary(lambda x, d: torch.abs(x)),
    "ELEMENT_WISE_NEGATE": arith_unary(lambda x, d: torch.neg(x)), "ELEMENT_WISE_SIGN": arith_unary(lambda x, d: torch.sign(x)),
    "ELEMENT_WISE_CEIL": arith_unary(lambda x, d: torch.ceil(x)), "ELEMENT_WISE_FLOOR": arith_unary(lambda x, d: torch.floor(x)),
    "ELEMENT_WISE_ROUND": arith_unary(round_mode), "ELEMENT_WISE_SQRT": arith_unary(lambda x, d: torch.sqrt(x), integers=False),
    "ELEMENT_WISE_RECIP": arith_unary(lambda x, d: torch.reciprocal(x), integers=False),
    "ELEMENT_WISE_THRESHOLD": arith_unary(lambda x, d: torch.clamp_min(x, num(d["Min"])), integers=False),
    "ELEMENT_WISE_ADD1": add1, "VALUE_SCALE_2D": value_scale_2d,
}
for _k in ("IDENTITY", "LINEAR", "LEAKY_RELU", "PARAMETERIZED_RELU", "THRESHOLDED_RELU", "SHRINK", "HARD_SIGMOID",
           "HARD_SWISH", "SOFTSIGN"):
    ARITHMETIC_OPERATORS["ACTIVATION_" + _k] = standalone_activation("ACTIVATION_" + _k)
OPERATORS.update(ARITHMETIC_OPERATORS)
STRIDED.update(ARITHMETIC_OPERATORS)
OUTPUT.update({op: "OutputTensor" for op in ARITHMETIC_OPERATORS})

# ---- Planted bugs: each takes (desc, npy dir, device, correct grad) and returns a wrong grad. ----

def plant_dropped_term(d, npy, dev, grad):
    """One lost atomic update: the largest dY term of the busiest element is not added."""
    op = OPERATORS[d["_op"]]
    dy = tensor(npy, "InputGradientTensor", d["InputGradientTensor"], dev)
    k = int(torch.argmax(dy.abs().flatten().float()))
    saved = dy.flatten()[k].item()
    path = os.path.join(npy, "InputGradientTensor.npy")
    flat = np.load(path)
    flat2 = flat.copy()
    flat2[k] = 0
    tmp = os.path.join(npy, "_planted")
    os.makedirs(tmp, exist_ok=True)
    for f in os.listdir(npy):
        if f.endswith(".npy"):
            shutil.copy(os.path.join(npy, f), os.path.join(tmp, f))
    np.save(os.path.join(tmp, "InputGradientTensor.npy"), flat2)
    g = op(d, tmp, dev)
    shutil.rmtree(tmp)
    print(f"  dropped dY[{k}] = {saved}")
    return g


def plant_wrong_tap(d, npy, dev, grad):
    """One dY element's gradient sent to the next element along W instead of its own."""
    g = grad.clone()
    flat = g.flatten()
    nz = torch.nonzero(flat[:-1]).flatten()
    k = int(nz[len(nz) // 2])
    flat[k + 1] += flat[k]
    flat[k] = 0
    return flat.reshape(g.shape)


def plant_shifted_window(d, npy, dev, grad):
    """Every window one element to the right: pool X shifted left by one, shift dX back."""
    xd = d["InputTensor"]
    x = tensor(npy, "InputTensor", xd, dev)
    shifted = os.path.join(npy, "_planted")
    os.makedirs(shifted, exist_ok=True)
    for f in os.listdir(npy):
        if f.endswith(".npy"):
            shutil.copy(os.path.join(npy, f), os.path.join(shifted, f))
    n = int(np.prod(xd["Sizes"]))
    flat = np.load(os.path.join(npy, "InputTensor.npy")).copy()
    flat[:n] = np.roll(x.cpu().numpy(), -1, axis=-1).reshape(-1)
    np.save(os.path.join(shifted, "InputTensor.npy"), flat)
    g = max_pooling_grad(d, shifted, dev)
    shutil.rmtree(shifted)
    return torch.roll(g, 1, dims=-1)


def plant_flipped_tie(d, npy, dev, grad):
    """Ties go to the highest index: pool X flipped along W, flip dX back."""
    xd = d["InputTensor"]
    x = tensor(npy, "InputTensor", xd, dev).flip(-1).contiguous().requires_grad_(True)
    dy = tensor(npy, "InputGradientTensor", d["InputGradientTensor"], dev).flip(-1).contiguous()
    pool = torch.nn.functional.max_pool2d
    y = pool(x, kernel_size=d["WindowSize"], stride=d["Strides"], padding=d["StartPadding"], dilation=d.get("Dilations"))
    y.backward(dy)
    return x.grad.flip(-1)


def plant_flipped_sign(d, npy, dev, grad):
    """One element of dX negated."""
    g = grad.clone()
    flat = g.flatten()
    k = int(torch.argmax(flat.abs().float()))
    flat[k] = -flat[k]
    return flat.reshape(g.shape)


def plant_other_divisor(d, npy, dev, grad):
    """Average pooling with the other IncludePadding reading (count_include_pad flipped)."""
    flipped = dict(d, IncludePadding=1 - d.get("IncludePadding", 0))
    return OPERATORS[d["_op"]](flipped, npy, dev)


def plant_dropped_addend(d, npy, dev, out):
    """ADD that loses B on the first element: a instead of a + b."""
    g = out.clone().reshape(-1)
    g[0] = tensor(npy, "ATensor", d["ATensor"], dev).reshape(-1)[0]
    return g.reshape(out.shape)


def plant_two_ulp(d, npy, dev, out):
    """ADD rounded two ULP high on the first element (beyond the 1.5 ULP of a two-term sum)."""
    g = out.clone().reshape(-1)
    inf = torch.tensor(float("inf"), dtype=g.dtype, device=g.device)
    g[0] = torch.nextafter(torch.nextafter(g[0], inf), inf)
    return g.reshape(out.shape)


def plant_ulps_up(n):
    def plant(d, npy, dev, out):
        """DIVIDE n ULP up on its largest finite element (a division less accurate than stated)."""
        g = out.clone().reshape(-1)
        k = int(torch.argmax(torch.nan_to_num(g.abs().float(), nan=0.0, posinf=0.0)))
        for _ in range(n):
            g[k] = torch.nextafter(g[k], torch.tensor(float("inf"), dtype=g.dtype, device=g.device))
        return g.reshape(out.shape)
    return plant


def plant_round_ties_away(d, npy, dev, out):
    """ROUND with halves away from zero where the mode says halves to even."""
    (x,) = inputs(d, npy, dev, "InputTensor")
    return round_mode(x, {"RoundingMode": "TOWARD_INFINITY"}).to(out.dtype)


def plant_flipped_broadcast(d, npy, dev, out):
    """ADD reading a broadcast B along the other dimension: B's strides reversed."""
    flipped = dict(d, BTensor=dict(d["BTensor"], Strides=list(reversed(d["BTensor"]["Strides"]))))
    a = tensor(npy, "ATensor", d["ATensor"], dev)
    flat = torch.from_numpy(np.load(os.path.join(npy, "BTensor.npy"))).to(dev)
    b = torch.as_strided(flat, flipped["BTensor"]["Sizes"], flipped["BTensor"]["Strides"])
    return (a + b).to(out.dtype)


def plant_saturating_add(d, npy, dev, out):
    """Integer ADD that saturates where DirectML wraps."""
    a, b = inputs(d, npy, dev, "ATensor", "BTensor")
    info = torch.iinfo(a.dtype)
    return torch.clamp(a.to(torch.int64) + b.to(torch.int64), info.min, info.max).to(a.dtype)


PLANTED = {
    # element-wise bugs: targets named by sweep folder and case, as the basenames repeat across operators
    # DIVIDE's stated accuracy is (4 - 1/2) ULP of the golden (docs/tolerance.md): 3 ULP is inside, 4 beyond
    "divide_3_ulp": (plant_ulps_up(3), ["divide/float32_r2x3x4_dyadic", "divide/float16_r2x3x4_dyadic"]),
    "divide_4_ulp": (plant_ulps_up(4), ["divide/float32_r2x3x4_dyadic", "divide/float16_r2x3x4_dyadic", "divide/random"]),
    "round_ties_away": (plant_round_ties_away, ["round/float32_r2x3x4_dyadic", "round/float16_r3x4_dyadic", "round/random"]),
    "flipped_broadcast": (plant_flipped_broadcast, ["add/float32_broadcast_dyadic", "add/int32_broadcast_dyadic"]),
    "saturating_add": (plant_saturating_add, ["add/int8_specials", "add/int16_specials", "add/int8_random"]),
    "dropped_addend": (plant_dropped_addend, ["float32_r2x3x4_random_dyadic", "float16_r2x3x4_random_dyadic"]),
    "two_ulp": (plant_two_ulp, ["float32_r2x3x4_random_dyadic", "float16_r2x3x4_random_dyadic"]),
    "other_divisor": (plant_other_divisor, ["avgpool2d_f32_w3s1p1_excpad", "avgpool2d_grad_f32_w5s2p2_excpad", "avgpool3d_f16_w3s1p1_excpad"]),
    "flipped_sign_computed": (plant_flipped_sign, ["avgpool2d_f32_w5s2p2_incpad", "lrn_f32_strong", "lrn_grad_f32_alexnet", "lrn_f16_alexnet"]),
    "dropped_term": (plant_dropped_term, ["pool2d_f32_w3s1p1_signed", "resample_linear_f32_x2_signed", "resample_linear_f16_x3_positive"]),
    "wrong_tap": (plant_wrong_tap, ["resample_nearest_f32_x2", "resample_linear_f32_x0p5_signed"]),
    "shifted_window": (plant_shifted_window, ["pool2d_f32_w3s2p1_ties"]),
    "flipped_tie": (plant_flipped_tie, ["pool2d_f32_w3s2p1_ties"]),
    "flipped_sign": (plant_flipped_sign, ["pool2d_f16_w3s1p1_signed", "resample_linear_f32_x1p5_signed"]),
}




def main():
    cases, npy_root, out = sys.argv[1:4]
    planted = "--planted" in sys.argv
    dev = "cuda" if torch.cuda.is_available() and "--cpu" not in sys.argv else "cpu"
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0) if dev == 'cuda' else 'cpu'}")
    for root, _, files in os.walk(cases):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, cases)[:-5]
            c = json.load(open(path))
            op = c["operator"].removeprefix("DML_OPERATOR_")
            if op not in OPERATORS:
                continue
            npy = os.path.join(npy_root, rel)
            try:
                if not packed(c["desc"]) and op not in STRIDED:
                    raise NotImplementedError("strided tensors")
                grad = OPERATORS[op](c["desc"], npy, dev)
            except (NotImplementedError, RuntimeError) as e:
                print(f"skipped {rel}: {e}")
                continue
            except Exception as e:  # a harness bug must not end the run: reported, the case left out
                print(f"error {rel}: {type(e).__name__}: {e}")
                continue
            torch.cuda.synchronize() if dev == "cuda" else None
            field = OUTPUT.get(op, "OutputGradientTensor")
            os.makedirs(os.path.join(out, "actual", rel), exist_ok=True)
            np.save(os.path.join(out, "actual", rel, field + ".npy"), grad.detach().cpu().numpy())
            os.makedirs(os.path.dirname(os.path.join(out, "goldens", rel)), exist_ok=True)
            shutil.copy(path, os.path.join(out, "goldens", rel + ".json"))
            print(f"ran {rel}")
            if not planted:
                continue
            for bug, (fn, targets) in PLANTED.items():
                if rel not in targets and os.path.basename(rel) not in targets:
                    continue
                d = dict(c["desc"], _op=op)
                g = fn(d, npy, dev, grad.detach())
                os.makedirs(os.path.join(out, "planted", bug, rel), exist_ok=True)
                np.save(os.path.join(out, "planted", bug, rel, field + ".npy"), g.detach().cpu().numpy())
                print(f"  planted {bug} in {rel}")
    if "--bundle" in sys.argv:
        bundle(out)


main()
