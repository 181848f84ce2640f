#!/usr/bin/env python3
"""Cross-check GEMM, convolution and the transcendental element-wise operators and activations on
a GPU backend: PyTorch's CUDA kernels (cuBLAS, cuDNN, CUDA's libdevice) against dmlref's goldens
(docs/crosscheck-gpu.md, "GEMM, convolution and transcendental functions").

    dmlref gen sweeps/gemm.json --tier full -o CASES/gemm   # and convolution, element_wise_math, activation_math
    dmlref run CASES --npy NPY                             # inputs as .npy (on any machine)
    python3 tools/crosscheck/torch_compute.py CASES NPY OUT [--planted] [--bundle] [--cpu]
    dmlref diff OUT/goldens OUT/actual                     # judged by the tolerance model

TF32 is off (torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32 False):
dmlref's FLOAT32 profile is FP32 arithmetic. --planted writes, besides the planted bugs, the
FLOAT32 GEMM and convolution results with TF32 on (PyTorch's default for cuDNN convolutions) as
OUT/planted/tf32/..., which `dmlref diff` should reject as beyond the FP32 profile.

For every golden in CASES whose operator maps onto PyTorch (inputs read through their Strides):
  GEMM                    baddbmm(C, A, B, beta, alpha) over the flattened batch (C zero with
                          Beta 0 when absent): cuBLAS with Alpha and Beta in its epilogue;
                          FusedActivation RELU, LINEAR, SIGMOID, TANH after (others: skipped)
  CONVOLUTION             conv1d/2d/3d on the input padded by StartPadding/EndPadding (zeros),
                          the filter flipped for Mode CONVOLUTION; Direction BACKWARD as
                          conv_transpose cropped by StartPadding (OutputPadding as zeros past the
                          end); bias by cuDNN; FusedActivation as GEMM's
  ELEMENT_WISE_EXP .. ERF torch.exp/log/sin/cos/tan/asin/acos/atan/sinh/cosh/tanh/asinh/acosh/
                          atanh/erf; ScaleBias as x * Scale + Bias in float32, each rounded
  ELEMENT_WISE_POW        torch.pow(x, e); CONSTANT_POW with the Exponent field
  ELEMENT_WISE_ATAN_YX    torch.atan2(A, B)
  ACTIVATION_SIGMOID, ACTIVATION_TANH, ACTIVATION_GELU   torch.sigmoid, torch.tanh, F.gelu (erf form)
  ACTIVATION_ELU, CELU, SCALED_ELU   F.elu, F.celu, Gamma * F.elu
  ACTIVATION_SOFTPLUS     F.softplus(x, Steepness) without PyTorch's linear threshold
  ACTIVATION_PARAMETRIC_SOFTPLUS, SCALED_TANH, SWISH   Alpha log1p(exp(Beta x)),
                          Alpha tanh(Beta x), x sigmoid(SigmoidInputScale x), in x's type
  ACTIVATION_SOFTMAX(1), LOG_SOFTMAX(1), HARDMAX(1)   softmax, log_softmax, one-hot of argmax
                          over the axes (the last dimension for the forms without Axes),
                          moved to the end and flattened row-major
  UNFOLD, FOLD            F.unfold, F.fold (col2im sums the overlapping taps in PyTorch's order) on
                          the zero-padded image, 1 or 2 spatial dimensions
  LP_POOLING, LP_POOLING1 F.lp_pool2d on the zero-padded input (x^P, not |x|^P; no dilations;
                          floor output sizes)
  MULTIHEAD_ATTENTION(1)  softmax(Scale (Q + Bq)(K + Bk)^T + RelativePositionBias + mask)(V + Bv)
                          in the tensor's type, separate or stacked inputs, past keys and values
                          first (and the present outputs), masks BOOLEAN (0 adds MaskFilterValue),
                          KEY_SEQUENCE_LENGTH and _END_START (keys outside score MaskFilterValue),
                          PastSequenceLengths (past keys beyond a batch's length left out); the
                          "1" form's query head i reads key/value head i / (QueryHeadCount /
                          KeyValueHeadCount)
  RESAMPLE3               Antialiased TRUE, LINEAR, half-pixel offsets, the last two dimensions:
                          F.interpolate(bilinear, antialias=True) with the same Scales (in
                          float32, rounded to the tensor's type)
  SCATTER_ELEMENTS        Tensor.scatter_ (negative indices from the end), SCATTER_ND
  SCATTER_ND              Tensor.index_put_(accumulate=False) over the trailing dimensions, and
  MAX_UNPOOLING           MAX_UNPOOLING index_put_(accumulate=False) into the flattened output:
                          where indices repeat, CUDA's winner is unspecified, which the golden's
                          Admissible lists (DuplicateIndex=AnyWrite) must accept whichever it is
Integer operators (MATRIX_MULTIPLY_INTEGER*, CONVOLUTION_INTEGER) have no general PyTorch CUDA
kernel and are not mapped. Planted bugs: `ulp2` (every GEMM FLOAT32 output of the planted cases
two ULP up), `dropped_product` (GEMM without its last k), `transposed_a` (GEMM with TransA
flipped, on a square A), `half_accumulator` (GEMM's products and partial sums rounded to FLOAT16
in order of k), `flipped_kernel` (the other Mode), `padding_off_by_one` (a FORWARD convolution's
input one position off: one StartPadding moved to the EndPadding), `wrong_group` (group g
convolved with group g + 1's filters),
`exp2_unscaled` (EXP as exp2 of x: a wrong constant, 2^x), `sin_f16_in_f16` (a FLOAT32 SIN
computed through FLOAT16), and for FLOAT32 attention `attention_bias_ignored` (BiasTensor not added),
`attention_end_start_swapped` (KEY_SEQUENCE_END_START read as start, end),
`attention_past_lengths_ignored` (every past key taking part), `antialias_off` (a stretched
FLOAT32 RESAMPLE3 as plain bilinear, two taps), and `sum_duplicates` (a scatter or unpooling
whose golden has Admissible lists, with the writes into one element summed, accumulate=True).
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F

import torch_data  # tools/crosscheck/torch_data.py, beside this script: tensor reading, the driver
from torch_data import x_in
from case_fields import num  # tools/crosscheck/case_fields.py, beside this script


def fused(d, y):
    """DML's FusedActivation of y (the output type), for the activations with an exact PyTorch analogue."""
    a = d.get("FusedActivation")
    if not a:
        return y
    kind = a["Type"].removeprefix("DML_OPERATOR_")
    if kind == "ACTIVATION_RELU":
        return torch.relu(y)
    if kind == "ACTIVATION_LINEAR":
        return y * num(a.get("Alpha", 1)) + num(a.get("Beta", 0))
    if kind == "ACTIVATION_SIGMOID":
        return torch.sigmoid(y)
    if kind == "ACTIVATION_TANH":
        return torch.tanh(y)
    raise NotImplementedError(f"FusedActivation {kind}")


def gemm(d, npy, dev, drop_last_k=False, flip_trans_a=False, half_accumulator=False):
    a, b = x_in(d, npy, dev, "ATensor"), x_in(d, npy, dev, "BTensor")
    if d.get("TransA", "NONE").endswith("TRANSPOSE") != flip_trans_a:
        a = a.transpose(-1, -2)
    if d.get("TransB", "NONE").endswith("TRANSPOSE"):
        b = b.transpose(-1, -2)
    if drop_last_k:
        a, b = a[..., :-1], b[..., :-1, :]
    out = d["OutputTensor"]["Sizes"]
    m, n, batch = out[-2], out[-1], out[:-2]
    a = a.expand(*batch, m, a.shape[-1]).reshape(-1, m, a.shape[-1])
    b = b.expand(*batch, b.shape[-2], n).reshape(-1, b.shape[-2], n)
    if "CTensor" in d:
        c, beta = x_in(d, npy, dev, "CTensor").expand(*out).reshape(-1, m, n), num(d.get("Beta", 0))
    else:
        c, beta = torch.zeros(a.shape[0], m, n, dtype=a.dtype, device=dev), 0.0
    if half_accumulator:  # planted: every product and partial sum rounded to FLOAT16, in order of k
        ah, bh = a.half(), b.half()
        acc = torch.zeros(a.shape[0], m, n, dtype=torch.float16, device=dev)
        for k in range(ah.shape[-1]):
            acc = acc + ah[..., k:k + 1] * bh[..., k:k + 1, :]
        y = num(d.get("Alpha", 1)) * acc.float() + beta * c.float()
        return fused(d, y.to(a.dtype).reshape(out))
    return fused(d, torch.baddbmm(c, a, b, beta=beta, alpha=num(d.get("Alpha", 1))).reshape(out))


def convolution(d, npy, dev, flip_mode=False, shift_padding=False, roll_groups=False):
    x, w = x_in(d, npy, dev), x_in(d, npy, dev, "FilterTensor")
    n = d["DimensionCount"] if "DimensionCount" in d else x.dim() - 2
    if n not in (1, 2, 3):
        raise NotImplementedError(f"{n} spatial dimensions")
    spatial = list(range(2, 2 + n))
    if d.get("Mode", "CROSS_CORRELATION").endswith("CONVOLUTION") != flip_mode:
        w = torch.flip(w, spatial)
    bias = x_in(d, npy, dev, "BiasTensor").reshape(-1) if "BiasTensor" in d else None
    S, D = d.get("Strides", [1] * n), d.get("Dilations", [1] * n)
    P0, P1 = d.get("StartPadding", [0] * n), d.get("EndPadding", [0] * n)
    G = d.get("GroupCount", 1)
    out = d["OutputTensor"]["Sizes"]
    if shift_padding:  # planted: the input one position off, one padding moved to the other side
        j = next((j for j in range(n) if P0[j] > 0), None)
        if j is None:
            raise NotImplementedError("no StartPadding to shift")
        P0, P1 = list(P0), list(P1)
        P0[j], P1[j] = P0[j] - 1, P1[j] + 1
    if roll_groups:  # planted: group g convolved with group g + 1's filters
        if G < 2:
            raise NotImplementedError("one group")
        w = torch.roll(w, w.shape[0] // G, 0)
    if d.get("Direction", "FORWARD").endswith("BACKWARD"):
        y = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][n - 1](x, w, None, stride=S, dilation=D, groups=G)
        # The full transposed output, then the window [StartPadding, StartPadding + output size):
        # positions past the full output (OutputPadding) have no terms; the bias is added after.
        pad = []
        for j in reversed(range(n)):
            pad += [-P0[j], out[2 + j] + P0[j] - y.shape[2 + j]]
        y = F.pad(y, pad)
        if bias is not None:
            y = y + bias.reshape([1, -1] + [1] * n)
    else:
        conv = [F.conv1d, F.conv2d, F.conv3d][n - 1]
        if P0 == P1:  # cuDNN's own padding
            y = conv(x, w, bias, stride=S, dilation=D, groups=G, padding=P0)
        else:  # explicit zeros
            pad = []
            for j in reversed(range(n)):
                pad += [P0[j], P1[j]]
            y = conv(F.pad(x, pad), w, bias, stride=S, dilation=D, groups=G)
    if list(y.shape) != out:
        raise NotImplementedError(f"output {list(y.shape)} != {out}")
    return fused(d, y)


def scale_bias(d, x):
    """g(x) = x * Scale + Bias in float32 (float64 for FLOAT64), product and sum each rounded."""
    sb = d.get("ScaleBias")
    if not sb:
        return x
    t = x.double() if x.dtype == torch.float64 else x.float()
    return (t * num(sb["Scale"])) + num(sb["Bias"])


def unary(fn):
    def run(d, npy, dev):
        x = x_in(d, npy, dev)
        if not x.dtype.is_floating_point:
            raise NotImplementedError("integer data")
        return fn(scale_bias(d, x)).to(x.dtype)
    return run


def pow_(d, npy, dev):
    x, e = x_in(d, npy, dev), x_in(d, npy, dev, "ExponentTensor")
    if not x.dtype.is_floating_point:
        raise NotImplementedError("integer data")
    return torch.pow(scale_bias(d, x), e.to(torch.float64 if x.dtype == torch.float64 else torch.float32)).to(x.dtype)


def constant_pow(d, npy, dev):
    x = x_in(d, npy, dev)
    if not x.dtype.is_floating_point:
        raise NotImplementedError("integer data")
    return torch.pow(scale_bias(d, x), num(d["Exponent"])).to(x.dtype)


def atan_yx(d, npy, dev):
    a, b = x_in(d, npy, dev, "ATensor"), x_in(d, npy, dev, "BTensor")
    if not a.dtype.is_floating_point:
        raise NotImplementedError("integer data")
    return torch.atan2(a, b)


def param(name, default=None):
    return lambda d: num(d.get(name, default))


def rows(d, x):
    """x with the softmax axes (the "1" forms' Axes; the last dimension otherwise) moved to the end
    and flattened, and the inverse."""
    axes = sorted(set(d["Axes"])) if "Axes" in d else [x.dim() - 1]
    rest = [a for a in range(x.dim()) if a not in axes]
    perm = rest + axes
    y = x.permute(perm)
    shape = y.shape
    flat = y.reshape(*shape[:len(rest)], -1)
    inverse = [perm.index(a) for a in range(x.dim())]
    return flat, lambda f: f.reshape(shape).permute(inverse)


def softmax(kind, last_axis_only=False, half=False):
    def run(d, npy, dev):
        x = x_in(d, npy, dev)
        if last_axis_only:  # planted: the "1" forms over their last listed axis alone
            d = dict(d, Axes=[max(d["Axes"])])
        if half:  # planted: a FLOAT32 softmax computed in FLOAT16
            return softmax(kind)(dict(d, _x=x.half()), npy, dev).float()
        if "_x" in d:
            x = d["_x"]
        flat, back = rows(d, x)
        if kind == "soft":
            y = torch.softmax(flat, -1)
        elif kind == "log":
            y = torch.log_softmax(flat, -1)
        else:  # HARDMAX: 1 at the first largest (torch.argmax returns the first maximal index)
            y = torch.zeros_like(flat).scatter_(-1, torch.argmax(flat, -1, keepdim=True), 1)
        return back(y)
    return run


def activation_with(fn, *fields):
    """An activation of x and the desc's FLOAT fields, evaluated in x's type."""
    def run(d, npy, dev):
        x = x_in(d, npy, dev)
        if not x.dtype.is_floating_point:
            raise NotImplementedError("integer data")
        return fn(x, *[num(d[f]) for f in fields]).to(x.dtype)
    return run


def spatial2(d):
    """DimensionCount 1 or 2 as PyTorch's 2-D window arguments (a 1-D window as 1 x W)."""
    k = int(d["DimensionCount"])
    if k not in (1, 2):
        raise NotImplementedError(f"{k} spatial dimensions (PyTorch's fold, unfold and lp_pool are 2-D)")
    def two(f, fill):
        v = [int(x) for x in d.get(f, [fill] * k)]
        return ([fill] if k == 1 else []) + v
    return k, two


def padded(x, start, end):
    """x zero-padded by StartPadding and EndPadding over its last two dimensions."""
    return F.pad(x, (start[1], end[1], start[0], end[0]))


def unfold(d, npy, dev):
    x = x_in(d, npy, dev)
    if not x.dtype.is_floating_point:
        raise NotImplementedError("integer data (PyTorch's unfold pads floats)")
    k, two = spatial2(d)
    x4 = x.reshape(x.shape[0], x.shape[1], *([1] if k == 1 else []), *x.shape[2:])
    x4 = padded(x4, two("StartPadding", 0), two("EndPadding", 0))
    y = F.unfold(x4, two("WindowSizes", 1), dilation=two("Dilations", 1), stride=two("Strides", 1))
    return y.reshape(d["OutputTensor"]["Sizes"])


def fold(d, npy, dev):
    """FOLD through PyTorch's col2im onto the padded image, then cropped; PyTorch sums the
    overlapping taps in its own order, in the tensor's type."""
    x = x_in(d, npy, dev)
    if not x.dtype.is_floating_point:
        raise NotImplementedError("integer data")
    k, two = spatial2(d)
    out = d["OutputTensor"]["Sizes"]
    n, c = out[0], out[1]
    s, e = two("StartPadding", 0), two("EndPadding", 0)
    image = ([1] if k == 1 else []) + list(out[2:])
    full = [image[i] + s[i] + e[i] for i in range(2)]
    cols = x.reshape(n, c * int(np.prod(two("WindowSizes", 1))), -1)
    y = F.fold(cols, full, two("WindowSizes", 1), dilation=two("Dilations", 1), stride=two("Strides", 1))
    y = y[:, :, s[0]:s[0] + image[0], s[1]:s[1] + image[1]]
    return y.reshape(out)


def lp_pool(d, npy, dev):
    """PyTorch's lp_pool2d: avg_pool2d of x^P times the window's size, then the P-th root (x^P, not
    |x|^P: the SignedPowers reading where P is odd). Zeros pad (0^P adds nothing); floor sizes only."""
    x = x_in(d, npy, dev)
    if not x.dtype.is_floating_point:
        raise NotImplementedError("integer data")
    if any(int(v) != 1 for v in d.get("Dilations", [])):
        raise NotImplementedError("dilations (PyTorch's lp_pool has none)")
    k, two = spatial2(d)
    x4 = x.reshape(x.shape[0], x.shape[1], *([1] if k == 1 else []), *x.shape[2:])
    x4 = padded(x4, two("StartPadding", 0), two("EndPadding", 0))
    w, st = two("WindowSize", 1), two("Strides", 1)
    floor = [(x4.shape[2 + i] - w[i]) // st[i] + 1 for i in range(2)]
    image = ([1] if k == 1 else []) + list(d["OutputTensor"]["Sizes"][2:])
    if floor != image:
        raise NotImplementedError("ceil output sizes (PyTorch's lp_pool divides partial windows)")
    y = F.lp_pool2d(x4, float(num(d["P"])), w, st)
    return y.reshape(d["OutputTensor"]["Sizes"])


def attention(d, npy, dev, plant=None):
    """MULTIHEAD_ATTENTION(1), every form dmlref evaluates: separate or stacked Query, Key and Value
    (their trailing dimensions: leading 1s dropped), BiasTensor added to each, past keys and values
    before the new ones (the present outputs their concatenation), RelativePositionBias, the
    masks NONE, BOOLEAN (0 adds MaskFilterValue), KEY_SEQUENCE_LENGTH and KEY_SEQUENCE_END_START
    (keys outside [start, end) score MaskFilterValue), PastSequenceLengths (past keys at or beyond
    a batch's length left out of the softmax): the page's composite in the tensor's type on cuBLAS
    (TF32 off) and PyTorch's softmax."""
    mt = d.get("MaskType", "NONE").removeprefix("DML_MULTIHEAD_ATTENTION_MASK_TYPE_")
    h = int(d.get("HeadCount", d.get("QueryHeadCount", 0)))
    hkv = int(d.get("KeyValueHeadCount", h))  # MULTIHEAD_ATTENTION1: query head i reads key/value head i / (h / hkv)
    last = lambda t, n: t.reshape(t.shape[t.dim() - n:]) if t.dim() > n else t
    if "StackedQueryKeyValueTensor" in d:  # [B, S, H, 3, hd]
        x = last(x_in(d, npy, dev, "StackedQueryKeyValueTensor"), 5)
        b, sq = x.shape[0], x.shape[1]
        q, k_, v = (x[:, :, :, i, :].reshape(b, sq, -1) for i in range(3))
    else:
        if "StackedQueryKeyTensor" in d:  # [B, S, H, 2, hd]
            x = last(x_in(d, npy, dev, "StackedQueryKeyTensor"), 5)
            q, k_ = (x[:, :, :, i, :].reshape(x.shape[0], x.shape[1], -1) for i in range(2))
        else:
            q = last(x_in(d, npy, dev, "QueryTensor"), 3)
            k_ = last(x_in(d, npy, dev, "KeyTensor"), 3) if "KeyTensor" in d else None
        if "StackedKeyValueTensor" in d:  # [B, Skv, KH, 2, hd]
            x = last(x_in(d, npy, dev, "StackedKeyValueTensor"), 5)
            k_, v = (x[:, :, :, i, :].reshape(x.shape[0], x.shape[1], -1) for i in range(2))
        else:
            v = last(x_in(d, npy, dev, "ValueTensor"), 3)
    b, sq, sk = q.shape[0], q.shape[1], k_.shape[1]
    if "BiasTensor" in d and plant != "attention_bias_ignored":  # [hidden + hidden (KH heads) + value hidden], added to Q, K and V in their type
        bias = last(x_in(d, npy, dev, "BiasTensor"), 1).to(q.dtype)
        nq, nk = q.shape[2], k_.shape[2]
        q, k_, v = q + bias[:nq], k_ + bias[nq:nq + nk], v + bias[nq + nk:]
    heads = lambda t, n: t.reshape(b, t.shape[1], n, -1).transpose(1, 2)
    kh, vh = heads(k_, hkv), heads(v, hkv)  # [B, KH, Skv, hd]
    if "PastKeyTensor" in d:
        kh = torch.cat([last(x_in(d, npy, dev, "PastKeyTensor"), 4).to(kh.dtype), kh], 2)
        vh = torch.cat([last(x_in(d, npy, dev, "PastValueTensor"), 4).to(vh.dtype), vh], 2)
    past = kh.shape[2] - sk
    t = kh.shape[2]
    rep = lambda x: x.repeat_interleave(h // hkv, dim=1)
    s = torch.matmul(heads(q, h), rep(kh).transpose(-1, -2)) * num(d["Scale"])
    if "RelativePositionBiasTensor" in d:
        s = s + last(x_in(d, npy, dev, "RelativePositionBiasTensor"), 4).reshape(b, h, sq, t).to(s.dtype)
    j = torch.arange(t, device=s.device).reshape(1, 1, 1, t)
    if mt == "BOOLEAN":
        m = last(x_in(d, npy, dev, "MaskTensor"), 4).reshape(b, -1, sq, t)
        s = s + torch.where(m == 0, num(d["MaskFilterValue"]), 0.0).to(s.dtype)
    elif mt in ("KEY_SEQUENCE_LENGTH", "KEY_SEQUENCE_END_START"):
        m = last(x_in(d, npy, dev, "MaskTensor"), 2).to(torch.float64)
        end = m[0].reshape(b, 1, 1, 1)
        start = m[1].reshape(b, 1, 1, 1) if mt == "KEY_SEQUENCE_END_START" else torch.zeros_like(end)
        if plant == "attention_end_start_swapped":
            end, start = start, end
        outside = (j >= end) | (j < start)
        s = torch.where(outside, torch.tensor(num(d["MaskFilterValue"]), dtype=s.dtype, device=s.device), s)
    elif mt != "NONE":
        raise NotImplementedError(f"mask {mt} (dmlref does not evaluate it)")
    if "PastSequenceLengthsTensor" in d and plant != "attention_past_lengths_ignored":
        n = last(x_in(d, npy, dev, "PastSequenceLengthsTensor"), 1).to(torch.float64).reshape(b, 1, 1, 1)
        s = torch.where((j < past) & ~(j < n), torch.tensor(float("-inf"), dtype=s.dtype, device=s.device), s)
    y = torch.matmul(torch.softmax(s, -1), rep(vh))
    out = {"OutputTensor": y.transpose(1, 2).reshape(d["OutputTensor"]["Sizes"])}
    if "OutputPresentKeyTensor" in d:
        out["OutputPresentKeyTensor"] = kh.reshape(d["OutputPresentKeyTensor"]["Sizes"])
    if "OutputPresentValueTensor" in d:
        out["OutputPresentValueTensor"] = vh.reshape(d["OutputPresentValueTensor"]["Sizes"])
    return out if len(out) > 1 else out["OutputTensor"]


def resample3_antialiased(d, npy, dev, antialias=True):
    """RESAMPLE3 with Antialiased TRUE and LINEAR over a float tensor whose last two dimensions are the
    resampled ones (the others Scale 1), half-pixel offsets: F.interpolate(mode="bilinear",
    antialias=True) with the same Scales (recompute_scale_factor False), PyTorch's triangle filter
    stretched by 1 / Scale wherever Scale < 1 (AntialiasFilter=AnyDownscale where 0.5 <= Scale < 1)."""
    if not d.get("Antialiased") or not d.get("InterpolationMode", "").endswith("LINEAR"):
        raise NotImplementedError("Antialiased FALSE or NEAREST_NEIGHBOR (RESAMPLE2's mapping)")
    x = x_in(d, npy, dev)
    sc = [float(num(v)) for v in d["Scales"]]
    if x.dim() < 2 or any(v != 1 for v in sc[:-2]) or x.dtype not in (torch.float32, torch.float16):
        raise NotImplementedError("resampled dimensions other than the last two, or an integer type")
    if any(float(num(v)) != 0.5 for v in d["InputPixelOffsets"]) or any(float(num(v)) != -0.5 for v in d["OutputPixelOffsets"]):
        raise NotImplementedError("offsets other than half-pixel")
    x4 = x.reshape(-1, 1, *x.shape[-2:])
    y = F.interpolate(x4.float(), scale_factor=(sc[-2], sc[-1]), mode="bilinear", antialias=antialias, align_corners=False,
                      recompute_scale_factor=False).to(x.dtype)
    return y.reshape(d["OutputTensor"]["Sizes"])


# ---------------------------------------------------------------- writes that may collide
def scatter_elements(d, npy, dev, accumulate=False):
    x, i, u = x_in(d, npy, dev), torch_data.idx_in(d, npy, dev), x_in(d, npy, dev, "UpdatesTensor")
    a = d["Axis"]
    i = torch_data.wrap(i, x.shape[a])
    r = x.clone()
    if not accumulate:
        return r.scatter_(a, i, u.to(r.dtype))
    r.scatter_(a, i, torch.zeros_like(u, dtype=r.dtype))  # every written element from 0, then the sum of its writes
    return r.scatter_add_(a, i, u.to(r.dtype))


def scatter_nd(d, npy, dev, accumulate=False):
    x = torch_data.trailing(x_in(d, npy, dev), d["InputDimensionCount"])
    i = torch_data.trailing(torch_data.idx_in(d, npy, dev), d["IndicesDimensionCount"])
    u = x_in(d, npy, dev, "UpdatesTensor")
    _, _, cols, k = torch_data.nd_positions(x, i, 0)
    u = u.reshape(-1, *x.shape[k:]).to(x.dtype)
    r = x.clone()
    if accumulate:
        r.index_put_(tuple(cols), torch.zeros_like(u))
    r.index_put_(tuple(cols), u, accumulate=accumulate)
    return r.reshape(d["OutputTensor"]["Sizes"])


def max_unpooling(d, npy, dev, accumulate=False):
    # DirectML's index is the position in OutputTensor as one contiguous row-major array (not
    # PyTorch's max_unpool, whose index is per plane).
    x, i = x_in(d, npy, dev), torch_data.idx_in(d, npy, dev)
    out = d["OutputTensor"]["Sizes"]
    r = torch.zeros(int(np.prod(out)), dtype=x.dtype, device=dev)
    r.index_put_((i.reshape(-1),), x.reshape(-1), accumulate=accumulate)
    return r.reshape(out)


def plant_sum_duplicates(d, npy, dev, outs):
    return {"SCATTER_ELEMENTS": scatter_elements, "SCATTER_ND": scatter_nd,
            "MAX_UNPOOLING": max_unpooling}[d["_op"]](d, npy, dev, accumulate=True)


OPERATORS = {
    "GEMM": gemm, "CONVOLUTION": convolution,
    "ELEMENT_WISE_EXP": unary(torch.exp), "ELEMENT_WISE_LOG": unary(torch.log),
    "ELEMENT_WISE_SIN": unary(torch.sin), "ELEMENT_WISE_COS": unary(torch.cos), "ELEMENT_WISE_TAN": unary(torch.tan),
    "ELEMENT_WISE_ASIN": unary(torch.asin), "ELEMENT_WISE_ACOS": unary(torch.acos), "ELEMENT_WISE_ATAN": unary(torch.atan),
    "ELEMENT_WISE_SINH": unary(torch.sinh), "ELEMENT_WISE_COSH": unary(torch.cosh), "ELEMENT_WISE_TANH": unary(torch.tanh),
    "ELEMENT_WISE_ASINH": unary(torch.asinh), "ELEMENT_WISE_ACOSH": unary(torch.acosh),
    "ELEMENT_WISE_ATANH": unary(torch.atanh), "ELEMENT_WISE_ERF": unary(torch.erf),
    "ELEMENT_WISE_POW": pow_, "ELEMENT_WISE_CONSTANT_POW": constant_pow, "ELEMENT_WISE_ATAN_YX": atan_yx,
    "ACTIVATION_SIGMOID": unary(torch.sigmoid), "ACTIVATION_TANH": unary(torch.tanh),
    "ACTIVATION_GELU": unary(lambda x: F.gelu(x, approximate="none")),
    "ACTIVATION_ELU": activation_with(lambda x, a: F.elu(x, a), "Alpha"),
    "ACTIVATION_CELU": activation_with(lambda x, a: F.celu(x, a), "Alpha"),
    "ACTIVATION_SCALED_ELU": activation_with(lambda x, a, g: g * F.elu(x, a), "Alpha", "Gamma"),
    # softplus without PyTorch's linear threshold (its default 20 returns x beyond it)
    "ACTIVATION_SOFTPLUS": activation_with(lambda x, s: F.softplus(x, s, threshold=float("inf")), "Steepness"),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": activation_with(lambda x, a, b: a * torch.log1p(torch.exp(b * x)), "Alpha", "Beta"),
    "ACTIVATION_SCALED_TANH": activation_with(lambda x, a, b: a * torch.tanh(b * x), "Alpha", "Beta"),
    "ACTIVATION_SWISH": activation_with(lambda x, s: x * torch.sigmoid(s * x), "SigmoidInputScale"),
    "ACTIVATION_SOFTMAX": softmax("soft"), "ACTIVATION_SOFTMAX1": softmax("soft"),
    "ACTIVATION_LOG_SOFTMAX": softmax("log"), "ACTIVATION_LOG_SOFTMAX1": softmax("log"),
    "ACTIVATION_HARDMAX": softmax("hard"), "ACTIVATION_HARDMAX1": softmax("hard"),
    "UNFOLD": unfold, "FOLD": fold, "LP_POOLING": lp_pool, "LP_POOLING1": lp_pool,
    "MULTIHEAD_ATTENTION": attention, "MULTIHEAD_ATTENTION1": attention,
    "RESAMPLE3": resample3_antialiased,
    "SCATTER_ELEMENTS": scatter_elements, "SCATTER_ND": scatter_nd, "MAX_UNPOOLING": max_unpooling,
}


def tf32(fn):
    def run(d, npy, dev, outs):
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
        try:
            return fn(d, npy, dev)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    return run


def plant_ulp2(d, npy, dev, outs):
    y = outs.clone() if torch.is_tensor(outs) else outs["OutputTensor"].clone()
    bits = y.view(torch.int32)
    return (bits + torch.where(y == 0, 0, 2).to(torch.int32)).view(torch.float32)


def plant_exp2(d, npy, dev, outs):
    return unary(torch.exp2)(d, npy, dev)


def plant_sin_f16(d, npy, dev, outs):
    return unary(lambda x: torch.sin(x.half()).float())(d, npy, dev)


def plant_log_of_softmax(d, npy, dev, outs):
    x = x_in(d, npy, dev)
    flat, back = rows(d, x)
    return back(torch.log(torch.softmax(flat, -1)))


PLANTED = {
    "tf32": (lambda d, npy, dev, outs: tf32(OPERATORS[d["_op"]])(d, npy, dev, outs), None),
    "ulp2": (plant_ulp2, None),
    "dropped_product": (lambda d, npy, dev, outs: gemm(d, npy, dev, drop_last_k=True), None),
    "flipped_kernel": (lambda d, npy, dev, outs: convolution(d, npy, dev, flip_mode=True), None),
    "transposed_a": (lambda d, npy, dev, outs: gemm(d, npy, dev, flip_trans_a=True), None),
    "half_accumulator": (lambda d, npy, dev, outs: gemm(d, npy, dev, half_accumulator=True), None),
    "padding_off_by_one": (lambda d, npy, dev, outs: convolution(d, npy, dev, shift_padding=True), None),
    "wrong_group": (lambda d, npy, dev, outs: convolution(d, npy, dev, roll_groups=True), None),
    "exp2_unscaled": (plant_exp2, None),
    "sin_f16_in_f16": (plant_sin_f16, None),
    "softmax_last_axis_only": (lambda d, npy, dev, outs: softmax("log" if "LOG" in d["_op"] else "soft", last_axis_only=True)(d, npy, dev), None),
    "softmax_in_f16": (lambda d, npy, dev, outs: softmax("soft", half=True)(d, npy, dev), None),
    "log_of_softmax": (plant_log_of_softmax, None),
    "attention_bias_ignored": (lambda d, npy, dev, outs: attention(d, npy, dev, "attention_bias_ignored"), None),
    "attention_end_start_swapped": (lambda d, npy, dev, outs: attention(d, npy, dev, "attention_end_start_swapped"), None),
    "attention_past_lengths_ignored": (lambda d, npy, dev, outs: attention(d, npy, dev, "attention_past_lengths_ignored"),
                                       None),
    "antialias_off": (lambda d, npy, dev, outs: resample3_antialiased(d, npy, dev, antialias=False), None),
    "elu_alpha_one": (lambda d, npy, dev, outs: unary(F.elu)(d, npy, dev), None),
    "swish_unscaled": (lambda d, npy, dev, outs: unary(lambda x: x * torch.sigmoid(x))(d, npy, dev), None),
    "sum_duplicates": (plant_sum_duplicates, None),
}


def planted_targets(op, d, rel, golden=None):
    dt = d.get("OutputTensor", {}).get("DataType")
    bugs = []
    if op in ("SCATTER_ELEMENTS", "SCATTER_ND", "MAX_UNPOOLING") and golden and \
            golden.get("expected", {}).get("OutputTensor", {}).get("Admissible"):
        bugs.append("sum_duplicates")  # only where writes of different bits meet
    if op in ("GEMM", "CONVOLUTION") and dt == "FLOAT32":
        bugs.append("tf32")
    if op == "GEMM" and dt == "FLOAT32" and "FusedActivation" not in d:
        bugs += ["ulp2", "dropped_product"]
    if op == "CONVOLUTION" and dt == "FLOAT32" and any(k > 1 for k in d["FilterTensor"]["Sizes"][2:]):
        bugs.append("flipped_kernel")
    if op == "GEMM" and dt in ("FLOAT32", "FLOAT16"):
        a = d["ATensor"]["Sizes"]
        if a[-1] == a[-2]:  # a square A: the flipped TransA keeps the shapes
            bugs.append("transposed_a")
        bugs.append("half_accumulator")
    if op == "CONVOLUTION" and dt in ("FLOAT32", "FLOAT16") and not d.get("Direction", "FORWARD").endswith("BACKWARD"):
        if any(p > 0 for p in d.get("StartPadding", [])):
            bugs.append("padding_off_by_one")
        if d.get("GroupCount", 1) > 1:
            bugs.append("wrong_group")
    if op == "ELEMENT_WISE_EXP" and dt == "FLOAT32":
        bugs.append("exp2_unscaled")
    if op == "RESAMPLE3" and dt == "FLOAT32" and d.get("Antialiased") and any(float(num(v)) < 0.5 for v in d["Scales"]):
        bugs.append("antialias_off")
    if op.startswith("MULTIHEAD_ATTENTION") and dt == "FLOAT32":
        if "BiasTensor" in d:
            bugs.append("attention_bias_ignored")
        if d.get("MaskType", "").endswith("KEY_SEQUENCE_END_START"):
            bugs.append("attention_end_start_swapped")
        if "PastSequenceLengthsTensor" in d:
            bugs.append("attention_past_lengths_ignored")
    if op == "ELEMENT_WISE_SIN" and dt == "FLOAT32":
        bugs.append("sin_f16_in_f16")
    if op in ("ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX1") and len(set(d["Axes"])) > 1:
        bugs.append("softmax_last_axis_only")
    if op in ("ACTIVATION_SOFTMAX", "ACTIVATION_SOFTMAX1") and dt == "FLOAT32":
        bugs.append("softmax_in_f16")
    if op in ("ACTIVATION_LOG_SOFTMAX", "ACTIVATION_LOG_SOFTMAX1") and dt == "FLOAT32":
        bugs.append("log_of_softmax")
    if op == "ACTIVATION_ELU" and dt == "FLOAT32" and num(d.get("Alpha", 1)) != 1:
        bugs.append("elu_alpha_one")
    if op == "ACTIVATION_SWISH" and dt == "FLOAT32" and num(d.get("SigmoidInputScale", 1)) != 1:
        bugs.append("swish_unscaled")
    return bugs


if __name__ == "__main__":
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    torch_data.main(OPERATORS, PLANTED, planted_targets)
