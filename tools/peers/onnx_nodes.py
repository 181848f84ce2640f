#!/usr/bin/env python3
"""Judge dmlref against ONNX's node tests (docs/peers-onnx.md).

    /usr/bin/python3 tools/peers/onnx_nodes.py NODE_DIR WORK [--dmlref build/tools/dmlref] [--only Op,Op]

NODE_DIR is an onnx checkout's onnx/backend/test/data/node (or a folder holding it: the path is
searched for it), or an onnx git directory, read at --commit (default: the last commit that still
holds the node tests' data, 6be0677fc22e74563e6eb472f931513aefe5648d; later commits removed it).

For each test_*/ whose model is one ONNX node with a natural DirectML mapping (ONNX attributes
made into the desc's fields, in DirectML's names; negative axes resolved; broadcasting made
explicit as Sizes and Strides 0), the tool writes
  WORK/cases/<Op>/<test>.json        a dmlref case, its inputs as .npy files beside it
  WORK/onnx/<Op>/<test>/<Field>.npy  ONNX's expected output, as a backend's output for `dmlref diff`
then runs `dmlref run WORK/cases -o WORK/golden --npy-outputs WORK/dmlref` (dmlref's golden) and
`dmlref diff WORK/golden WORK/onnx --json WORK/diff.json` (ONNX's expected output judged under
dmlref's tolerance), and compares dmlref's golden with ONNX's expected output as ONNX's runner
does (numpy.testing.assert_allclose, rtol 1e-3, atol 1e-7, for floats; exact for integers).
Tests with no mapping are counted as skipped, with the reason. WORK/report.json holds every
test's row; WORK/report.md the table per operator.

Needs python3-onnx (Debian 12: 1.12) and numpy; no file of ONNX is copied into this repository.
"""
import argparse
import collections
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

try:
    import onnx
    from onnx import helper, numpy_helper
except ImportError:  # pragma: no cover
    sys.exit("onnx_nodes.py: needs the onnx Python package (Debian 12: apt-get install python3-onnx)")

DEFAULT_COMMIT = "6be0677fc22e74563e6eb472f931513aefe5648d"
NODE_PATH = "onnx/backend/test/data/node"


class Skip(Exception):
    node = None


# ONNX TensorProto.DataType -> DirectML data type (BOOL is DirectML's UINT8, 0 or 1).
ONNX_TYPES = {1: "FLOAT32", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16", 6: "INT32", 7: "INT64", 9: "UINT8",
              10: "FLOAT16", 11: "FLOAT64", 12: "UINT32", 13: "UINT64"}
ONNX_TYPE_NAMES = {0: "UNDEFINED", 8: "STRING", 14: "COMPLEX64", 15: "COMPLEX128", 16: "BFLOAT16",
                   17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ", 21: "UINT4",
                   22: "INT4", 23: "FLOAT4E2M1", 24: "FLOAT8E8M0", 25: "UINT2", 26: "INT2"}
NP_TYPES = {"FLOAT16": np.float16, "FLOAT32": np.float32, "FLOAT64": np.float64, "INT8": np.int8, "INT16": np.int16,
            "INT32": np.int32, "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32,
            "UINT64": np.uint64}
DML_OF_NP = {np.dtype(v): k for k, v in NP_TYPES.items()}
DML_OF_NP[np.dtype(np.bool_)] = "UINT8"
INT32_MIN, INT32_MAX = -2**31, 2**31 - 1


def dml_type(a):
    return DML_OF_NP[a.dtype]


def as_dml(a):
    a = np.asarray(a)
    return a.astype(np.uint8) if a.dtype == np.bool_ else a


def T(a_or_type, sizes=None, strides=None):
    """A tensor desc: the DataType of an array (or a type name), its Sizes (the array's shape by
    default, [1] for a scalar), Strides when given."""
    dt = a_or_type if isinstance(a_or_type, str) else dml_type(np.asarray(a_or_type))
    if sizes is None:
        sizes = list(np.asarray(a_or_type).shape)
    sizes = [int(s) for s in sizes] or [1]
    d = {"DataType": dt, "Sizes": sizes}
    if strides is not None:
        d["Strides"] = [int(s) for s in strides] or [0]
    return d


def split_padding(total, auto, start, end):
    """ONNX's SAME padding: the total split in two, the odd one at the end (SAME_UPPER) or the start."""
    lo, hi = total // 2, total - total // 2
    start.append(hi if auto == "SAME_LOWER" else lo)
    end.append(lo if auto == "SAME_LOWER" else hi)


def same_padding(auto, out_sizes, strides, kernel, dilations, in_sizes):
    """StartPadding and EndPadding of auto_pad SAME_UPPER or SAME_LOWER for a forward window."""
    start, end = [], []
    for o, st, k, d, n in zip(out_sizes, strides, kernel, dilations, in_sizes):
        split_padding(max((o - 1) * st + (k - 1) * d + 1 - n, 0), auto, start, end)
    return start, end


def packed_strides(shape):
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= s
    return list(reversed(st))


def bcast(a, out_shape):
    """Desc of array a broadcast to out_shape (numpy rules): leading 1s, Strides 0 on broadcast dims."""
    a = np.asarray(a)
    r = len(out_shape)
    shape = [1] * (r - a.ndim) + list(a.shape)
    st = packed_strides(shape)
    st = [0 if shape[i] == 1 and out_shape[i] != 1 else st[i] for i in range(r)]
    if list(shape) == list(out_shape):
        return T(a, out_shape)
    return T(a, out_shape or [1], st or [0])


def pad_rank(shape, r):
    return [1] * (r - len(shape)) + list(shape)


def fval(x, dt):
    """A scalar written exactly for the case: a decimal that reads back to the same bits."""
    if dt.startswith("FLOAT"):
        x = float(x)
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        if dt == "FLOAT16":
            return {"UInt16": int(np.float16(x).view(np.uint16))}
        return repr(x) if x == 0 and np.signbit(x) else x
    return int(x)


def f32(x):
    """A FLOAT field's value: the float32 nearest the attribute (ONNX stores float attributes as float32)."""
    x = float(np.float32(x))
    return "-0.0" if x == 0 and np.signbit(x) else x


def axis_of(ax, r):
    ax = int(ax)
    return ax + r if ax < 0 else ax


class Ctx:
    def __init__(self, node, ins, outs, opset):
        self.node, self.ins, self.outs, self.opset = node, ins, outs, opset
        self.attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def a(self, name, default=None):
        v = self.attrs.get(name, default)
        if isinstance(v, bytes):
            v = v.decode()
        return v

    def i(self, k):
        return self.ins[k] if k < len(self.ins) else None


def mapped(operator, desc, inputs, outputs, note=None):
    return {"operator": operator, "desc": desc, "inputs": inputs, "outputs": outputs, "note": note}


# ---------------------------------------------------------------- data movement

def h_gather(c):
    x, idx = c.ins[0], c.ins[1]
    r, q = x.ndim, idx.ndim
    ax = axis_of(c.a("axis", 0), r)
    D = max(r + q - 1, r, q, 1)
    desc = {"InputTensor": T(x, pad_rank(x.shape, D)), "IndicesTensor": T(idx, pad_rank(idx.shape, D)),
            "OutputTensor": T(c.outs[0], pad_rank(c.outs[0].shape, D)), "Axis": ax + D - r, "IndexDimensions": q}
    return mapped("GATHER", desc, {"InputTensor": x, "IndicesTensor": idx}, {"OutputTensor": c.outs[0]})


def h_gather_elements(c):
    x, idx = c.ins[0], c.ins[1]
    desc = {"InputTensor": T(x), "IndicesTensor": T(idx), "OutputTensor": T(c.outs[0]),
            "Axis": axis_of(c.a("axis", 0), x.ndim)}
    return mapped("GATHER_ELEMENTS", desc, {"InputTensor": x, "IndicesTensor": idx}, {"OutputTensor": c.outs[0]})


def h_gather_nd(c):
    x, idx, y = c.ins[0], c.ins[1], c.outs[0]
    D = max(x.ndim, idx.ndim, y.ndim)
    desc = {"InputTensor": T(x, pad_rank(x.shape, D)), "IndicesTensor": T(idx, pad_rank(idx.shape, D)),
            "OutputTensor": T(y, pad_rank(y.shape, D)), "InputDimensionCount": x.ndim,
            "IndicesDimensionCount": idx.ndim, "BatchDimensionCount": int(c.a("batch_dims", 0))}
    return mapped("GATHER_ND1", desc, {"InputTensor": x, "IndicesTensor": idx}, {"OutputTensor": y})


def h_scatter_elements(c):
    red = c.a("reduction", "none")
    if red != "none":
        raise Skip(f"reduction={red}: DirectML's SCATTER_ELEMENTS writes, it has no reduction")
    x, idx, upd = c.ins[:3]
    desc = {"InputTensor": T(x), "IndicesTensor": T(idx), "UpdatesTensor": T(upd), "OutputTensor": T(c.outs[0]),
            "Axis": axis_of(c.a("axis", 0), x.ndim)}
    return mapped("SCATTER_ELEMENTS", desc, {"InputTensor": x, "IndicesTensor": idx, "UpdatesTensor": upd},
                  {"OutputTensor": c.outs[0]})


def h_scatter_nd(c):
    red = c.a("reduction", "none")
    if red != "none":
        raise Skip(f"reduction={red}: DirectML's SCATTER_ND writes, it has no reduction")
    x, idx, upd = c.ins[:3]
    D = max(x.ndim, idx.ndim, upd.ndim)
    desc = {"InputTensor": T(x, pad_rank(x.shape, D)), "IndicesTensor": T(idx, pad_rank(idx.shape, D)),
            "UpdatesTensor": T(upd, pad_rank(upd.shape, D)), "OutputTensor": T(c.outs[0], pad_rank(c.outs[0].shape, D)),
            "InputDimensionCount": x.ndim, "IndicesDimensionCount": idx.ndim}
    return mapped("SCATTER_ND", desc, {"InputTensor": x, "IndicesTensor": idx, "UpdatesTensor": upd},
                  {"OutputTensor": c.outs[0]})


PAD_MODES = {"constant": "CONSTANT", "edge": "EDGE", "reflect": "REFLECTION", "wrap": "WRAP"}


def h_pad(c):
    x = c.ins[0]
    r = x.ndim
    mode = c.a("mode", "constant")
    if c.opset < 11:
        pads, value = list(c.a("pads")), c.a("value", 0.0)
    else:
        pads = [int(v) for v in c.ins[1]]
        cv = c.i(2)
        value = cv.reshape(-1)[0] if cv is not None and cv.size else 0
        axes = c.i(3)
        if axes is not None:
            axes = [axis_of(a, r) for a in axes]
            full = [0] * (2 * r)
            for k, a in enumerate(axes):
                full[a], full[r + a] = pads[k], pads[len(axes) + k]
            pads = full
    if any(p < 0 for p in pads):
        raise Skip("negative pads (cropping): DirectML's PADDING has UINT StartPadding and EndPadding")
    dt = dml_type(x)
    desc = {"InputTensor": T(x), "OutputTensor": T(c.outs[0]), "PaddingMode": PAD_MODES[mode],
            "PaddingValueDataType": dt, "PaddingValue": fval(value, dt), "DimensionCount": r,
            "StartPadding": pads[:r], "EndPadding": pads[r:]}
    return mapped("PADDING1", desc, {"InputTensor": x}, {"OutputTensor": c.outs[0]})


def h_tile(c):
    x = c.ins[0]
    reps = [int(v) for v in c.ins[1]]
    desc = {"InputTensor": T(x), "OutputTensor": T(c.outs[0]), "RepeatsCount": len(reps), "Repeats": reps}
    return mapped("TILE", desc, {"InputTensor": x}, {"OutputTensor": c.outs[0]})


def h_topk(c):
    x = c.ins[0]
    k = int(c.ins[1].reshape(-1)[0]) if c.opset >= 10 else int(c.a("k"))
    if int(c.a("sorted", 1)) == 0:
        raise Skip("sorted=0: ONNX leaves the order unspecified; DirectML's TOP_K always sorts")
    ax = axis_of(c.a("axis", -1), x.ndim)
    vals, idx = c.outs
    idx = idx.astype(np.uint64)
    desc = {"InputTensor": T(x), "OutputValueTensor": T(vals), "OutputIndexTensor": T(idx), "Axis": ax, "K": k,
            "AxisDirection": "DECREASING" if int(c.a("largest", 1)) else "INCREASING"}
    return mapped("TOP_K1", desc, {"InputTensor": x}, {"OutputValueTensor": vals, "OutputIndexTensor": idx},
                  "ONNX's INT64 indices compared as DirectML's UINT64")


def h_onehot(c):
    idx, depth, values = c.ins[:3]
    y = c.outs[0]
    ax = axis_of(c.a("axis", -1), y.ndim)
    note = None
    if idx.dtype.kind == "f":
        if not np.all(idx == np.round(idx)):
            raise Skip("non-integral float indices")
        idx = idx.astype(np.int64)
        note = "ONNX's float indices given as INT64 (DirectML's indices are integers; the values are integral)"
    isz = list(y.shape)
    isz[ax] = 1
    desc = {"IndicesTensor": T(idx, isz), "ValuesTensor": T(values, [1] * (y.ndim - 1) + [2]), "OutputTensor": T(y),
            "Axis": ax}
    return mapped("ONE_HOT", desc, {"IndicesTensor": idx, "ValuesTensor": values}, {"OutputTensor": y}, note)


def h_depth_to_space(c):
    x, y = c.ins[0], c.outs[0]
    order = {"DCR": "DEPTH_COLUMN_ROW", "CRD": "COLUMN_ROW_DEPTH"}[c.a("mode", "DCR")]
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "BlockSize": int(c.a("blocksize")), "Order": order}
    return mapped("DEPTH_TO_SPACE1", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_space_to_depth(c):
    x, y = c.ins[0], c.outs[0]
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "BlockSize": int(c.a("blocksize")),
            "Order": "DEPTH_COLUMN_ROW"}
    return mapped("SPACE_TO_DEPTH1", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_concat(c):
    y = c.outs[0]
    ins = {f"InputTensors[{k}]": x for k, x in enumerate(c.ins)}
    if any(x.size == 0 for x in c.ins):
        raise Skip("a zero-sized input: DirectML's sizes are at least 1")
    desc = {"InputTensors": [T(x) for x in c.ins], "OutputTensor": T(y), "Axis": axis_of(c.a("axis"), y.ndim)}
    return mapped("JOIN", desc, ins, {"OutputTensor": y})


def h_split(c):
    x = c.ins[0]
    if any(o.size == 0 for o in c.outs):
        raise Skip("a zero-sized output: DirectML's sizes are at least 1")
    desc = {"InputTensor": T(x), "OutputTensors": [T(o) for o in c.outs], "Axis": axis_of(c.a("axis", 0), x.ndim)}
    return mapped("SPLIT", desc, {"InputTensor": x}, {f"OutputTensors[{k}]": o for k, o in enumerate(c.outs)})


def h_eyelike(c):
    y = c.outs[0]
    k = int(c.a("k", 0))
    dt = dml_type(y)
    desc = {"InputTensor": None, "OutputTensor": T(y), "ValueDataType": dt, "Value": fval(1, dt),
            "DiagonalFillBegin": k, "DiagonalFillEnd": k + 1}
    return mapped("DIAGONAL_MATRIX1", desc, {}, {"OutputTensor": y},
                  "the input's values are not read (only its shape), so no InputTensor")


def h_trilu(c):
    x, y = c.ins[0], c.outs[0]
    if x.size == 0:
        raise Skip("a zero-sized input: DirectML's sizes are at least 1")
    kt = c.i(1)
    k = int(kt.reshape(-1)[0]) if kt is not None else 0
    upper = int(c.a("upper", 1))
    # Triu keeps j - i >= k and fills j - i < k; Tril keeps j - i <= k and fills j - i > k.
    begin, end = (INT32_MIN, max(min(k, INT32_MAX), INT32_MIN)) if upper else (min(k + 1, INT32_MAX), INT32_MAX)
    dt = dml_type(x)
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "ValueDataType": dt, "Value": fval(0, dt),
            "DiagonalFillBegin": begin, "DiagonalFillEnd": end}
    return mapped("DIAGONAL_MATRIX1", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_range(c):
    start, limit, delta = c.ins[:3]
    y = c.outs[0]
    if y.size == 0:
        raise Skip("an empty range: DirectML's sizes are at least 1")
    dt = dml_type(y)
    desc = {"OutputTensor": T(y), "ValueDataType": dt, "ValueStart": fval(start.reshape(-1)[0], dt),
            "ValueDelta": fval(delta.reshape(-1)[0], dt)}
    return mapped("FILL_VALUE_SEQUENCE", desc, {}, {"OutputTensor": y})


def h_nonzero(c):
    x, y = c.ins[0], c.outs[0]
    n = x.size
    coords = np.zeros((n, x.ndim), np.uint32)
    coords[:y.shape[1]] = y.T.astype(np.uint32)
    r = max(x.ndim, 2)
    x = x.reshape(pad_rank(x.shape, r))
    desc = {"InputTensor": T(x), "OutputCountTensor": T("UINT32", [1] * r), "OutputCoordinatesTensor":
            T("UINT32", [1] * (r - 2) + [n, coords.shape[1]])}
    return mapped("NONZERO_COORDINATES", desc, {"InputTensor": x},
                  {"OutputCountTensor": np.array([y.shape[1]], np.uint32), "OutputCoordinatesTensor": coords},
                  "ONNX's INT64 [rank, count] coordinates compared as DirectML's UINT32 [count, rank] rows")


def h_reverse_sequence(c):
    x, lens = c.ins[:2]
    ta, ba = int(c.a("time_axis", 0)), int(c.a("batch_axis", 1))
    sz = list(x.shape)
    sz[ta] = 1
    st = [0] * x.ndim
    st[ba] = 1
    desc = {"InputTensor": T(x), "SequenceLengthsTensor": T(lens, sz, st), "OutputTensor": T(c.outs[0]), "Axis": ta}
    return mapped("REVERSE_SUBSEQUENCES", desc, {"InputTensor": x, "SequenceLengthsTensor": lens},
                  {"OutputTensor": c.outs[0]})


def h_maxunpool(c):
    x, idx = c.ins[:2]
    y = c.outs[0]
    if np.any(idx < 0):
        raise Skip("negative indices")
    idx = idx.astype(np.uint64)
    desc = {"InputTensor": T(x), "IndicesTensor": T(idx), "OutputTensor": T(y)}
    return mapped("MAX_UNPOOLING", desc, {"InputTensor": x, "IndicesTensor": idx}, {"OutputTensor": y},
                  "ONNX's INT64 indices given as UINT64 (DirectML's indices are UINT32 or UINT64)")


# ---------------------------------------------------------------- GEMM, convolution, reduction

def h_gemm(c):
    a, b = c.ins[:2]
    cc = c.i(2)
    y = c.outs[0]
    desc = {"ATensor": T(a, pad_rank(a.shape, 4)), "BTensor": T(b, pad_rank(b.shape, 4)),
            "CTensor": None, "OutputTensor": T(y, pad_rank(y.shape, 4)),
            "TransA": "TRANSPOSE" if int(c.a("transA", 0)) else "NONE",
            "TransB": "TRANSPOSE" if int(c.a("transB", 0)) else "NONE",
            "Alpha": f32(c.a("alpha", 1.0)), "Beta": f32(c.a("beta", 1.0)), "FusedActivation": None}
    inputs = {"ATensor": a, "BTensor": b}
    if cc is not None:
        desc["CTensor"] = bcast(cc, pad_rank(y.shape, 4))
        inputs["CTensor"] = cc
    else:
        desc["Beta"] = 0.0
    return mapped("GEMM", desc, inputs, {"OutputTensor": y})


def h_matmul(c):
    a, b = c.ins[:2]
    y = c.outs[0]
    ash = [1] + list(a.shape) if a.ndim == 1 else list(a.shape)
    bsh = list(b.shape) + [1] if b.ndim == 1 else list(b.shape)
    batch = list(np.broadcast_shapes(tuple(ash[:-2]), tuple(bsh[:-2])))
    R = max(4, len(batch) + 2)
    oshape = pad_rank(batch + [ash[-2], bsh[-1]], R)
    ad = bcast(a.reshape(ash), oshape[:-2] + ash[-2:])
    bd = bcast(b.reshape(bsh), oshape[:-2] + bsh[-2:])
    desc = {"ATensor": ad, "BTensor": bd, "CTensor": None, "OutputTensor": T(y, oshape), "TransA": "NONE",
            "TransB": "NONE", "Alpha": 1.0, "Beta": 0.0, "FusedActivation": None}
    return mapped("GEMM", desc, {"ATensor": a, "BTensor": b}, {"OutputTensor": y})


def h_matmul_integer(c):
    a, b = c.ins[:2]
    az, bz = c.i(2), c.i(3)
    y = c.outs[0]
    if a.ndim != 2 or b.ndim != 2:
        raise Skip("only 2-D operands are mapped")
    M, N = a.shape[0], b.shape[1]
    desc = {"ATensor": T(a, [1, 1] + list(a.shape)), "AZeroPointTensor": None, "BTensor": T(b, [1, 1] + list(b.shape)),
            "BZeroPointTensor": None, "OutputTensor": T(y, [1, 1, M, N])}
    inputs = {"ATensor": a, "BTensor": b}
    if az is not None:
        desc["AZeroPointTensor"] = T(az, [1, 1, M, 1], [0, 0, 1 if az.size > 1 else 0, 0])
        inputs["AZeroPointTensor"] = az
    if bz is not None:
        desc["BZeroPointTensor"] = T(bz, [1, 1, 1, N], [0, 0, 0, 1 if bz.size > 1 else 0])
        inputs["BZeroPointTensor"] = bz
    return mapped("MATRIX_MULTIPLY_INTEGER", desc, inputs, {"OutputTensor": y})


def conv_geometry(c, x, w, y, transpose):
    sp = x.ndim - 2
    k = list(c.a("kernel_shape", w.shape[2:]))
    s = list(c.a("strides", [1] * sp))
    d = list(c.a("dilations", [1] * sp))
    pads = list(c.a("pads", [0] * (2 * sp)))
    auto = c.a("auto_pad", "NOTSET")
    op = list(c.a("output_padding", [0] * sp)) if transpose else [0] * sp
    start, end = pads[:sp], pads[sp:]
    outsp = list(y.shape[2:])
    if transpose and (auto in ("SAME_UPPER", "SAME_LOWER") or c.a("output_shape") is not None):
        start, end = [], []
        for i in range(sp):
            total = s[i] * (x.shape[2 + i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - outsp[i]
            if total < 0:
                op[i] += -total
                total = 0
            split_padding(total, auto, start, end)
    elif auto in ("SAME_UPPER", "SAME_LOWER"):
        start, end = same_padding(auto, outsp, s, k, d, x.shape[2:])
    elif auto == "VALID":
        start, end = [0] * sp, [0] * sp
    return sp, s, d, start, end, op


def conv_shapes(sp, x, w, y):
    # A 1-D convolution is a 2-D one with a spatial dimension of 1 (DirectML's convolutions are 2-D or 3-D).
    if sp == 1:
        return ([*x.shape[:2], 1, x.shape[2]], [*w.shape[:2], 1, w.shape[2]], [*y.shape[:2], 1, y.shape[2]])
    return list(x.shape), list(w.shape), list(y.shape)


def conv_layout(c, x, w, y, transpose):
    """conv_geometry and conv_shapes, a 1-D convolution lifted to 2-D: sizes, Strides, Dilations,
    StartPadding, EndPadding, OutputPadding and DimensionCount."""
    sp, s, d, start, end, op = conv_geometry(c, x, w, y, transpose)
    xs, ws, ys = conv_shapes(sp, x, w, y)
    if sp == 1:
        s, d, start, end, op = [1] + s, [1] + d, [0] + start, [0] + end, [0] + op
    return xs, ws, ys, s, d, start, end, op, len(xs) - 2


def h_conv(c, transpose=False):
    x, w = c.ins[:2]
    bias = c.i(2)
    y = c.outs[0]
    xs, ws, ys, s, d, start, end, op, dims = conv_layout(c, x, w, y, transpose)
    desc = {"InputTensor": T(x, xs), "FilterTensor": T(w, ws), "BiasTensor": None, "OutputTensor": T(y, ys),
            "Mode": "CROSS_CORRELATION", "Direction": "BACKWARD" if transpose else "FORWARD", "DimensionCount": dims,
            "Strides": s, "Dilations": d, "StartPadding": start, "EndPadding": end, "OutputPadding": op,
            "GroupCount": int(c.a("group", 1)), "FusedActivation": None}
    inputs = {"InputTensor": x, "FilterTensor": w}
    if bias is not None:
        desc["BiasTensor"] = T(bias, [1, bias.size] + [1] * dims)
        inputs["BiasTensor"] = bias
    return mapped("CONVOLUTION", desc, inputs, {"OutputTensor": y})


def h_conv_transpose(c):
    return h_conv(c, True)


def h_conv_integer(c):
    x, w = c.ins[:2]
    xz, wz = c.i(2), c.i(3)
    y = c.outs[0]
    xs, ws, ys, s, d, start, end, _, dims = conv_layout(c, x, w, y, False)
    desc = {"InputTensor": T(x, xs), "InputZeroPointTensor": None, "FilterTensor": T(w, ws),
            "FilterZeroPointTensor": None, "OutputTensor": T(y, ys), "DimensionCount": dims, "Strides": s,
            "Dilations": d, "StartPadding": start, "EndPadding": end, "GroupCount": int(c.a("group", 1))}
    inputs = {"InputTensor": x, "FilterTensor": w}
    if xz is not None:
        desc["InputZeroPointTensor"] = T(xz, [1] * (dims + 2))
        inputs["InputZeroPointTensor"] = xz
    if wz is not None:
        desc["FilterZeroPointTensor"] = T(wz, [1] * (dims + 2)) if wz.size == 1 else T(wz, [1, wz.size] + [1] * dims)
        inputs["FilterZeroPointTensor"] = wz
    return mapped("CONVOLUTION_INTEGER", desc, inputs, {"OutputTensor": y})


REDUCE_FUNCTIONS = {"ReduceSum": "SUM", "ReduceMean": "AVERAGE", "ReduceMax": "MAX", "ReduceMin": "MIN",
                    "ReduceProd": "MULTIPLY", "ReduceL1": "L1", "ReduceL2": "L2", "ReduceLogSum": "LOG_SUM",
                    "ReduceLogSumExp": "LOG_SUM_EXP", "ReduceSumSquare": "SUM_SQUARE"}


def reduce_axes(c, x):
    axes = c.a("axes")
    if axes is None and c.i(1) is not None:
        axes = [int(v) for v in c.ins[1].reshape(-1)]
    if not axes:
        if int(c.a("noop_with_empty_axes", 0)):
            raise Skip("noop_with_empty_axes with no axes: the input unchanged, no reduction")
        axes = list(range(x.ndim))
    return sorted(set(axis_of(a, x.ndim) for a in axes))


def h_reduce(c):
    x, y = c.ins[0], c.outs[0]
    if x.size == 0:
        raise Skip("a zero-sized input (empty set): DirectML's sizes are at least 1")
    axes = reduce_axes(c, x)
    osz = [1 if i in axes else s for i, s in enumerate(x.shape)]
    desc = {"Function": REDUCE_FUNCTIONS[c.node.op_type], "InputTensor": T(x), "OutputTensor": T(y, osz),
            "AxisCount": len(axes), "Axes": axes}
    return mapped("REDUCE", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_argminmax(c):
    x, y = c.ins[0], c.outs[0]
    ax = axis_of(c.a("axis", 0), x.ndim)
    osz = list(x.shape)
    osz[ax] = 1
    desc = {"InputTensor": T(x), "OutputTensor": T(y, osz), "AxisCount": 1, "Axes": [ax],
            "AxisDirection": "DECREASING" if int(c.a("select_last_index", 0)) else "INCREASING"}
    return mapped("ARGMAX" if c.node.op_type == "ArgMax" else "ARGMIN", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_cumulative(c):
    x, y = c.ins[0], c.outs[0]
    ax = axis_of(c.ins[1].reshape(-1)[0], x.ndim)
    prod = c.node.op_type == "CumProd"
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "Axis": ax,
            "AxisDirection": "DECREASING" if int(c.a("reverse", 0)) else "INCREASING",
            ("HasExclusiveProduct" if prod else "HasExclusiveSum"): int(c.a("exclusive", 0))}
    return mapped("CUMULATIVE_PRODUCT" if prod else "CUMULATIVE_SUMMATION", desc, {"InputTensor": x},
                  {"OutputTensor": y})


# ---------------------------------------------------------------- element-wise

BINARY = {"Add": "ELEMENT_WISE_ADD", "Sub": "ELEMENT_WISE_SUBTRACT", "Mul": "ELEMENT_WISE_MULTIPLY",
          "Div": "ELEMENT_WISE_DIVIDE", "Max": "ELEMENT_WISE_MAX", "Min": "ELEMENT_WISE_MIN",
          "Mean": "ELEMENT_WISE_MEAN", "Equal": "ELEMENT_WISE_LOGICAL_EQUALS",
          "Greater": "ELEMENT_WISE_LOGICAL_GREATER_THAN", "Less": "ELEMENT_WISE_LOGICAL_LESS_THAN",
          "GreaterOrEqual": "ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL",
          "LessOrEqual": "ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL", "And": "ELEMENT_WISE_LOGICAL_AND",
          "Or": "ELEMENT_WISE_LOGICAL_OR", "Xor": "ELEMENT_WISE_LOGICAL_XOR", "BitwiseAnd": "ELEMENT_WISE_BIT_AND",
          "BitwiseOr": "ELEMENT_WISE_BIT_OR", "BitwiseXor": "ELEMENT_WISE_BIT_XOR"}


def h_binary(c):
    if len(c.ins) != 2:
        raise Skip(f"{len(c.ins)} inputs: DirectML's {c.node.op_type.upper()} is binary")
    a, b = c.ins
    y = c.outs[0]
    op = c.node.op_type
    if op == "Mod":
        operator = "ELEMENT_WISE_MODULUS_TRUNCATE" if int(c.a("fmod", 0)) else "ELEMENT_WISE_MODULUS_FLOOR"
    elif op == "BitShift":
        operator = "ELEMENT_WISE_BIT_SHIFT_" + ("LEFT" if c.a("direction") == "LEFT" else "RIGHT")
    else:
        operator = BINARY[op]
    osh = list(y.shape)
    desc = {"ATensor": bcast(a, osh), "BTensor": bcast(b, osh), "OutputTensor": T(y, osh or [1])}
    return mapped(operator, desc, {"ATensor": a, "BTensor": b}, {"OutputTensor": y})


def h_pow(c):
    a, b = c.ins
    y = c.outs[0]
    if a.dtype != b.dtype:
        raise Skip(f"mixed types ({a.dtype}, {b.dtype}): DirectML's POW takes one type")
    osh = list(y.shape)
    desc = {"InputTensor": bcast(a, osh), "ExponentTensor": bcast(b, osh), "OutputTensor": T(y, osh or [1]),
            "ScaleBias": None}
    return mapped("ELEMENT_WISE_POW", desc, {"InputTensor": a, "ExponentTensor": b}, {"OutputTensor": y})


def h_prelu(c):
    x, slope = c.ins
    y = c.outs[0]
    desc = {"InputTensor": T(x), "SlopeTensor": bcast(slope, list(x.shape)), "OutputTensor": T(y)}
    return mapped("ACTIVATION_PARAMETERIZED_RELU", desc, {"InputTensor": x, "SlopeTensor": slope}, {"OutputTensor": y})


def h_where(c):
    cond, a, b = c.ins
    y = c.outs[0]
    osh = list(y.shape)
    desc = {"ConditionTensor": bcast(cond, osh), "ATensor": bcast(a, osh), "BTensor": bcast(b, osh),
            "OutputTensor": T(y, osh or [1])}
    return mapped("ELEMENT_WISE_IF", desc, {"ConditionTensor": cond, "ATensor": a, "BTensor": b}, {"OutputTensor": y})


# ONNX op -> (DirectML operator, has ScaleBias, fields from attributes)
UNARY = {
    "Abs": ("ELEMENT_WISE_ABS", True), "Neg": ("ELEMENT_WISE_NEGATE", False), "Sign": ("ELEMENT_WISE_SIGN", False),
    "Ceil": ("ELEMENT_WISE_CEIL", True), "Floor": ("ELEMENT_WISE_FLOOR", True), "Round": ("ELEMENT_WISE_ROUND", False),
    "Reciprocal": ("ELEMENT_WISE_RECIP", True), "Sqrt": ("ELEMENT_WISE_SQRT", True),
    "Not": ("ELEMENT_WISE_LOGICAL_NOT", False), "BitwiseNot": ("ELEMENT_WISE_BIT_NOT", False),
    "IsNaN": ("ELEMENT_WISE_IS_NAN", False), "IsInf": ("ELEMENT_WISE_IS_INFINITY", False),
    "Exp": ("ELEMENT_WISE_EXP", True), "Log": ("ELEMENT_WISE_LOG", True), "Sin": ("ELEMENT_WISE_SIN", True),
    "Cos": ("ELEMENT_WISE_COS", True), "Tan": ("ELEMENT_WISE_TAN", True), "Asin": ("ELEMENT_WISE_ASIN", True),
    "Acos": ("ELEMENT_WISE_ACOS", True), "Atan": ("ELEMENT_WISE_ATAN", True), "Sinh": ("ELEMENT_WISE_SINH", True),
    "Cosh": ("ELEMENT_WISE_COSH", True), "Tanh": ("ELEMENT_WISE_TANH", True), "Asinh": ("ELEMENT_WISE_ASINH", True),
    "Acosh": ("ELEMENT_WISE_ACOSH", True), "Atanh": ("ELEMENT_WISE_ATANH", True), "Erf": ("ELEMENT_WISE_ERF", True),
    "Identity": ("ELEMENT_WISE_IDENTITY", True), "Relu": ("ACTIVATION_RELU", False),
    "Sigmoid": ("ACTIVATION_SIGMOID", False), "Softsign": ("ACTIVATION_SOFTSIGN", False),
    "Cast": ("CAST", False), "CastLike": ("CAST", False), "Elu": ("ACTIVATION_ELU", False),
    "Celu": ("ACTIVATION_CELU", False),
    "Selu": ("ACTIVATION_SCALED_ELU", False), "LeakyRelu": ("ACTIVATION_LEAKY_RELU", False),
    "ThresholdedRelu": ("ACTIVATION_THRESHOLDED_RELU", False), "HardSigmoid": ("ACTIVATION_HARD_SIGMOID", False),
    "HardSwish": ("ACTIVATION_HARD_SWISH", False), "Shrink": ("ACTIVATION_SHRINK", False),
    "Softplus": ("ACTIVATION_SOFTPLUS", False), "Gelu": ("ACTIVATION_GELU", False),
}


def h_unary(c):
    op = c.node.op_type
    operator, scale_bias = UNARY[op]
    x, y = c.ins[0], c.outs[0]
    desc = {"InputTensor": T(x), "OutputTensor": T(y, list(x.shape))}
    if scale_bias:
        desc["ScaleBias"] = None
    if op == "Round":
        desc["RoundingMode"] = "HALVES_TO_NEAREST_EVEN"
    elif op == "IsInf":
        pos, neg = int(c.a("detect_positive", 1)), int(c.a("detect_negative", 1))
        if not pos and not neg:
            raise Skip("detect_positive=0 and detect_negative=0: no DirectML InfinityMode")
        desc["InfinityMode"] = "EITHER" if pos and neg else ("POSITIVE" if pos else "NEGATIVE")
    elif op == "Elu":
        desc["Alpha"] = f32(c.a("alpha", 1.0))
    elif op == "Celu":
        desc["Alpha"] = f32(c.a("alpha", 1.0))
    elif op == "Selu":
        desc["Alpha"] = f32(c.a("alpha", 1.67326319217681884765625))
        desc["Gamma"] = f32(c.a("gamma", 1.05070102214813232421875))
    elif op == "LeakyRelu":
        desc["Alpha"] = f32(c.a("alpha", 0.01))
    elif op == "ThresholdedRelu":
        desc["Alpha"] = f32(c.a("alpha", 1.0))
    elif op == "HardSigmoid":
        desc["Alpha"], desc["Beta"] = f32(c.a("alpha", 0.2)), f32(c.a("beta", 0.5))
    elif op == "HardSwish":
        desc["Alpha"], desc["Beta"] = f32(1 / 6), f32(0.5)
    elif op == "Shrink":
        desc["Bias"], desc["Threshold"] = f32(c.a("bias", 0.0)), f32(c.a("lambd", 0.5))
    elif op == "Softplus":
        desc["Steepness"] = 1.0
    elif op == "Gelu":
        if c.a("approximate", "none") != "none":
            raise Skip("approximate=tanh: DirectML's GELU is the erf form")
    return mapped(operator, desc, {"InputTensor": x}, {"OutputTensor": y})


def h_clip(c):
    x, y = c.ins[0], c.outs[0]
    dt = dml_type(x)
    if c.opset < 11:
        lo, hi = c.a("min"), c.a("max")
    else:
        lo = c.i(1).reshape(-1)[0] if c.i(1) is not None else None
        hi = c.i(2).reshape(-1)[0] if c.i(2) is not None else None
    if dt.startswith("FLOAT"):
        lo = -np.inf if lo is None else lo
        hi = np.inf if hi is None else hi
    else:
        info = np.iinfo(NP_TYPES[dt])
        lo = info.min if lo is None else lo
        hi = info.max if hi is None else hi
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "ScaleBias": None, "MinMaxDataType": dt,
            "Min": fval(lo, dt), "Max": fval(hi, dt)}
    return mapped("ELEMENT_WISE_CLIP1", desc, {"InputTensor": x}, {"OutputTensor": y})


# ---------------------------------------------------------------- beyond the three families

def h_sum(c):
    if len(c.ins) != 2:
        raise Skip(f"{len(c.ins)} inputs: DirectML's ADD is binary")
    a, b = c.ins
    y = c.outs[0]
    osh = list(y.shape)
    desc = {"ATensor": bcast(a, osh), "BTensor": bcast(b, osh), "OutputTensor": T(y, osh or [1])}
    return mapped("ELEMENT_WISE_ADD", desc, {"ATensor": a, "BTensor": b}, {"OutputTensor": y})


def h_expand(c):
    x, y = c.ins[0], c.outs[0]
    desc = {"InputTensor": bcast(x, list(y.shape)), "OutputTensor": T(y), "ScaleBias": None}
    return mapped("ELEMENT_WISE_IDENTITY", desc, {"InputTensor": x}, {"OutputTensor": y},
                  "broadcast as Strides 0 on an identity")


def h_transpose(c):
    x, y = c.ins[0], c.outs[0]
    perm = list(c.a("perm", list(reversed(range(x.ndim)))))
    st = packed_strides(list(x.shape))
    desc = {"InputTensor": T(x, [x.shape[p] for p in perm], [st[p] for p in perm]), "OutputTensor": T(y),
            "ScaleBias": None}
    return mapped("ELEMENT_WISE_IDENTITY", desc, {"InputTensor": x}, {"OutputTensor": y},
                  "the permutation as the input's Strides on an identity")


def h_slice(c):
    x, y = c.ins[0], c.outs[0]
    if y.size == 0:
        raise Skip("an empty result: DirectML's sizes are at least 1")
    r = x.ndim
    starts, ends = [int(v) for v in c.ins[1]], [int(v) for v in c.ins[2]]
    axes = [axis_of(a, r) for a in c.ins[3]] if c.i(3) is not None else list(range(len(starts)))
    steps = [int(v) for v in c.ins[4]] if c.i(4) is not None else [1] * len(starts)
    off, size, stride = [0] * r, list(x.shape), [1] * r
    for a, b, e, st in zip(axes, starts, ends, steps):
        b, e, st = slice(b, e, st).indices(x.shape[a])
        n = len(range(b, e, st))
        first, last = b, b + (n - 1) * st
        off[a], size[a], stride[a] = min(first, last), abs(last - first) + 1, st
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "DimensionCount": r, "InputWindowOffsets": off,
            "InputWindowSizes": size, "InputWindowStrides": stride}
    return mapped("SLICE1", desc, {"InputTensor": x}, {"OutputTensor": y})


SOFTMAX = {"Softmax": "ACTIVATION_SOFTMAX1", "LogSoftmax": "ACTIVATION_LOG_SOFTMAX1", "Hardmax": "ACTIVATION_HARDMAX1"}


def h_softmax(c):
    x, y = c.ins[0], c.outs[0]
    if c.opset >= 13:
        axes = [axis_of(c.a("axis", -1), x.ndim)]
    else:
        axes = list(range(axis_of(c.a("axis", 1), x.ndim), x.ndim))
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "AxisCount": len(axes), "Axes": axes}
    return mapped(SOFTMAX[c.node.op_type], desc, {"InputTensor": x}, {"OutputTensor": y})


def pool_geometry(c, x, y, k):
    sp = x.ndim - 2
    s = list(c.a("strides", [1] * sp))
    d = list(c.a("dilations", [1] * sp))
    pads = list(c.a("pads", [0] * (2 * sp)))
    auto = c.a("auto_pad", "NOTSET")
    start, end = pads[:sp], pads[sp:]
    outsp = list(y.shape[2:])
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        start, end = same_padding(auto, outsp, s, k, d, x.shape[2:])
    elif auto == "VALID":
        start, end = [0] * sp, [0] * sp
    extra = [0] * sp
    for i in range(sp):
        # ceil_mode: DirectML's output size is floor((in + pads - window) / stride) + 1; ceil_mode's last
        # window is made by more end padding.
        need = (outsp[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 - (x.shape[2 + i] + start[i] + end[i])
        if need > 0:
            extra[i] = need
            end[i] += need
    return sp, s, d, start, end, extra


def h_pool(c):
    op = c.node.op_type
    x, y = c.ins[0], c.outs[0]
    if len(c.outs) > 1 and int(c.a("storage_order", 0)):
        raise Skip("storage_order=1: ONNX's column-major Indices; DirectML's OutputIndicesTensor is row-major")
    glob = op.startswith("Global")
    k = list(x.shape[2:]) if glob else list(c.a("kernel_shape"))
    sp, s, d, start, end, extra = pool_geometry(c, x, y, k) if not glob else (
        x.ndim - 2, [1] * (x.ndim - 2), [1] * (x.ndim - 2), [0] * (x.ndim - 2), [0] * (x.ndim - 2), [0] * (x.ndim - 2))
    xs, ys = list(x.shape), list(y.shape)
    if sp == 1:
        xs, ys = xs[:2] + [1] + xs[2:], ys[:2] + [1] + ys[2:]
        k, s, d, start, end = [1] + k, [1] + s, [1] + d, [0] + start, [0] + end
    dims = len(xs) - 2
    desc = {"InputTensor": T(x, xs), "OutputTensor": T(y, ys), "DimensionCount": dims, "Strides": s, "WindowSize": k,
            "StartPadding": start, "EndPadding": end}
    note = "ceil_mode's last window as EndPadding" if any(extra) else None
    if op in ("MaxPool", "GlobalMaxPool"):
        desc["OutputIndicesTensor"] = None
        desc["Dilations"] = d
        outputs = {"OutputTensor": y}
        if len(c.outs) > 1:
            idx = c.outs[1].astype(np.uint64)
            desc["OutputIndicesTensor"] = T(idx, ys)
            outputs["OutputIndicesTensor"] = idx
            note = (note + "; " if note else "") + "ONNX's INT64 Indices compared as DirectML's UINT64"
        return mapped("MAX_POOLING2", desc, {"InputTensor": x}, outputs, note)
    if op in ("AveragePool", "GlobalAveragePool"):
        desc["Dilations"] = d
        desc["IncludePadding"] = int(c.a("count_include_pad", 0))
        return mapped("AVERAGE_POOLING1", desc, {"InputTensor": x}, {"OutputTensor": y}, note)
    desc["Dilations"] = d
    desc["P"] = int(c.a("p", 2))
    return mapped("LP_POOLING1", desc, {"InputTensor": x}, {"OutputTensor": y}, note)


def h_lrn(c):
    x, y = c.ins[0], c.outs[0]
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "CrossChannel": 1, "LocalSize": int(c.a("size")),
            "Alpha": f32(c.a("alpha", 0.0001)), "Beta": f32(c.a("beta", 0.75)), "Bias": f32(c.a("bias", 1.0))}
    return mapped("LOCAL_RESPONSE_NORMALIZATION", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_lpnorm(c):
    x, y = c.ins[0], c.outs[0]
    # ONNX has no Epsilon and defines a zero vector's output as 0 (its test: "0/0 = 0"); DirectML divides by
    # max(norm, Epsilon), so the smallest positive FLOAT32 gives ONNX's value: every non-zero norm is at least it.
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "Axis": axis_of(c.a("axis", -1), x.ndim),
            "Epsilon": "0x00000001", "P": int(c.a("p", 2))}
    return mapped("LP_NORMALIZATION", desc, {"InputTensor": x}, {"OutputTensor": y},
                  "Epsilon the smallest FLOAT32 subnormal: ONNX's zero vector gives 0, any other norm is unchanged")


def h_instancenorm(c):
    x, scale, bias = c.ins[:3]
    y = c.outs[0]
    cs = [1, x.shape[1]] + [1] * (x.ndim - 2)
    desc = {"InputTensor": T(x), "ScaleTensor": T(scale, cs), "BiasTensor": T(bias, cs), "OutputTensor": T(y),
            "AxisCount": x.ndim - 2, "Axes": list(range(2, x.ndim)), "NormalizeVariance": 1,
            "Epsilon": f32(c.a("epsilon", 1e-5)), "FusedActivation": None}
    return mapped("MEAN_VARIANCE_NORMALIZATION1", desc, {"InputTensor": x, "ScaleTensor": scale, "BiasTensor": bias},
                  {"OutputTensor": y})


def h_mvn(c):
    x, y = c.ins[0], c.outs[0]
    axes = sorted(axis_of(a, x.ndim) for a in c.a("axes", [0, 2, 3]))
    desc = {"InputTensor": T(x), "ScaleTensor": None, "BiasTensor": None, "OutputTensor": T(y),
            "AxisCount": len(axes), "Axes": axes, "NormalizeVariance": 1, "Epsilon": f32(1e-9), "FusedActivation": None}
    return mapped("MEAN_VARIANCE_NORMALIZATION1", desc, {"InputTensor": x}, {"OutputTensor": y},
                  "Epsilon 1e-9, the constant of ONNX's function body")


def h_batchnorm(c):
    if int(c.a("training_mode", 0)) or len(c.outs) > 1:
        raise Skip("training_mode: ONNX's running mean and variance (momentum) have no DirectML form")
    x, scale, bias, mean, var = c.ins[:5]
    y = c.outs[0]
    cs = [1, x.shape[1]] + [1] * (x.ndim - 2)
    desc = {"InputTensor": T(x), "MeanTensor": T(mean, cs), "VarianceTensor": T(var, cs), "ScaleTensor": T(scale, cs),
            "BiasTensor": T(bias, cs), "OutputTensor": T(y), "Spatial": 1, "Epsilon": f32(c.a("epsilon", 1e-5)),
            "FusedActivation": None}
    return mapped("BATCH_NORMALIZATION", desc, {"InputTensor": x, "MeanTensor": mean, "VarianceTensor": var,
                                                "ScaleTensor": scale, "BiasTensor": bias}, {"OutputTensor": y})


def h_swish(c):
    x, y = c.ins[0], c.outs[0]
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "SigmoidInputScale": f32(c.a("alpha", 1.0))}
    return mapped("ACTIVATION_SWISH", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_quantize(c):
    op = c.node.op_type
    x, scale = c.ins[:2]
    zp = c.i(2)
    y = c.outs[0]
    if int(c.a("block_size", 0)):
        raise Skip("blocked quantization: DirectML's scale is per tensor or per axis")
    if op == "QuantizeLinear" and y.dtype not in (np.int8, np.uint8):
        raise Skip(f"{y.dtype} output: DirectML's ELEMENT_WISE_QUANTIZE_LINEAR writes INT8 or UINT8")
    # A per-tensor scale and zero point broadcast over the input; a per-axis one runs along its axis.
    ax = axis_of(c.a("axis", 1), x.ndim) if scale.size > 1 else -1

    def qd(t):
        return T(t, list(x.shape), [1 if i == ax else 0 for i in range(x.ndim)])
    desc = {"InputTensor": T(x), "ScaleTensor": qd(scale), "ZeroPointTensor": None, "OutputTensor": T(y)}
    inputs = {"InputTensor": x, "ScaleTensor": scale}
    if zp is not None:
        desc["ZeroPointTensor"] = qd(zp)
        inputs["ZeroPointTensor"] = zp
    elif op == "QuantizeLinear":
        zp = np.zeros(1, y.dtype)
        desc["ZeroPointTensor"] = qd(zp)
        inputs["ZeroPointTensor"] = zp
    operator = "ELEMENT_WISE_QUANTIZE_LINEAR" if op == "QuantizeLinear" else "ELEMENT_WISE_DEQUANTIZE_LINEAR"
    return mapped(operator, desc, inputs, {"OutputTensor": y})


def h_dynamic_quantize(c):
    x = c.ins[0]
    y, sc, zp = c.outs
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "OutputScaleTensor": T(sc, [1] * x.ndim),
            "OutputZeroPointTensor": T(zp, [1] * x.ndim)}
    return mapped("DYNAMIC_QUANTIZE_LINEAR", desc, {"InputTensor": x},
                  {"OutputTensor": y, "OutputScaleTensor": sc, "OutputZeroPointTensor": zp})


def h_layernorm(c):
    x, w = c.ins[:2]
    b = c.i(2)
    y = c.outs[0]
    ax = axis_of(c.a("axis", -1), x.ndim)
    axes = list(range(ax, x.ndim))
    desc = {"InputTensor": T(x), "ScaleTensor": bcast(w, list(x.shape)), "BiasTensor": None, "OutputTensor": T(y),
            "AxisCount": len(axes), "Axes": axes, "NormalizeVariance": 1, "Epsilon": f32(c.a("epsilon", 1e-5)),
            "FusedActivation": None}
    inputs = {"InputTensor": x, "ScaleTensor": w}
    if b is not None:
        desc["BiasTensor"] = bcast(b, list(x.shape))
        inputs["BiasTensor"] = b
    extra = [o for o in c.outs[1:] if o is not None]
    return mapped("MEAN_VARIANCE_NORMALIZATION1", desc, inputs, {"OutputTensor": y},
                  "Y only: ONNX's Mean and InvStdDev outputs have no DirectML output" if extra else None)


def h_roialign(c):
    x, rois, bidx = c.ins[:3]
    y = c.outs[0]
    mode = c.a("coordinate_transformation_mode", "half_pixel" if c.opset >= 16 else "output_half_pixel")
    sr = int(c.a("sampling_ratio", 0))
    scale = f32(c.a("spatial_scale", 1.0))
    bidx = bidx.astype(np.uint64)
    desc = {"InputTensor": T(x), "ROITensor": T(rois), "BatchIndicesTensor": T(bidx), "OutputTensor": T(y),
            "ReductionFunction": "MAX" if c.a("mode", "avg") == "max" else "AVERAGE", "InterpolationMode": "LINEAR",
            "SpatialScaleX": scale, "SpatialScaleY": scale, "InputPixelOffset": 0.5 if mode == "half_pixel" else 0.0,
            "OutputPixelOffset": -0.5, "OutOfBoundsInputValue": 0.0,
            "MinimumSamplesPerOutput": sr if sr else 1, "MaximumSamplesPerOutput": sr if sr else 2**32 - 1,
            "AlignRegionsToCorners": 0}
    return mapped("ROI_ALIGN1", desc, {"InputTensor": x, "ROITensor": rois, "BatchIndicesTensor": bidx},
                  {"OutputTensor": y}, "ONNX's INT64 batch indices given as UINT64")


def h_resize(c):
    x, y = c.ins[0], c.outs[0]
    r = x.ndim
    mode = c.a("mode", "nearest")
    if mode not in ("nearest", "linear"):
        raise Skip(f"mode={mode}: DirectML's RESAMPLE is nearest or linear")
    ctm = c.a("coordinate_transformation_mode", "half_pixel" if c.node.op_type == "Resize" and c.opset >= 11
              else "asymmetric")
    if ctm not in ("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"):
        raise Skip(f"coordinate_transformation_mode={ctm}: no DirectML offsets give it")
    if c.node.op_type == "Upsample" or c.opset < 11:
        scales_in, sizes_in = c.i(1), None
    else:
        scales_in, sizes_in = c.i(2), c.i(3)
    axes = [axis_of(a, r) for a in c.a("axes", list(range(r)))]
    scales = [1.0] * r
    if scales_in is not None and scales_in.size:
        for a, v in zip(axes, scales_in.reshape(-1)):
            scales[a] = float(np.float32(v))
    else:
        ratios = [float(np.float32(sizes_in.reshape(-1)[k]) / np.float32(x.shape[a])) for k, a in enumerate(axes)]
        policy = c.a("keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            ratios = [(min if policy == "not_larger" else max)(ratios)] * len(axes)
        for a, v in zip(axes, ratios):
            scales[a] = float(np.float32(v))
    inoff, outoff = [0.0] * r, [0.0] * r
    for a in range(r):
        if x.shape[a] == y.shape[a] and scales[a] == 1.0:
            continue
        if ctm in ("half_pixel", "pytorch_half_pixel"):
            if ctm == "pytorch_half_pixel" and y.shape[a] == 1:
                raise Skip("pytorch_half_pixel with an output of 1: its coordinate 0 is no offset")
            inoff[a], outoff[a] = 0.5, -0.5
        elif ctm == "align_corners":
            if y.shape[a] == 1 or x.shape[a] == 1:
                raise Skip("align_corners with a size of 1")
            scales[a] = float(np.float32((y.shape[a] - 1) / (x.shape[a] - 1)))
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "DimensionCount": r}
    note = None
    if mode == "nearest":
        nm = c.a("nearest_mode", "round_prefer_floor") if c.node.op_type == "Resize" else "floor"
        desc["InterpolationMode"] = "NEAREST_NEIGHBOR"
        # DECREASING is floor(x), INCREASING ceil(x) (docs/golden.md, NearestNeighborRounding); ONNX's
        # round_prefer_floor is ceil(x - 0.5), round_prefer_ceil floor(x + 0.5): InputPixelOffsets shifted by 0.5.
        if nm == "floor":
            desc["RoundingDirection"] = "DECREASING"
        elif nm == "ceil":
            desc["RoundingDirection"] = "INCREASING"
        elif nm == "round_prefer_floor":
            desc["RoundingDirection"] = "INCREASING"
            inoff = [v + 0.5 for v in inoff]
        else:
            desc["RoundingDirection"] = "DECREASING"
            inoff = [v - 0.5 for v in inoff]
        note = f"nearest_mode={nm} as RoundingDirection {desc['RoundingDirection']}" + (
            ", InputPixelOffsets shifted by 0.5" if nm.startswith("round") else "")
    else:
        desc["InterpolationMode"] = "LINEAR"
        desc["RoundingDirection"] = "DECREASING"
    desc.update({"Scales": scales, "InputPixelOffsets": inoff, "OutputPixelOffsets": outoff,
                 "Antialiased": int(c.a("antialias", 0))})
    return mapped("RESAMPLE3", desc, {"InputTensor": x}, {"OutputTensor": y}, note)


ONNX_ACTIVATIONS = {"Sigmoid": "ACTIVATION_SIGMOID", "Tanh": "ACTIVATION_TANH", "Relu": "ACTIVATION_RELU"}
RECURRENT = {"RNN": (1, ["Tanh"]), "GRU": (3, ["Sigmoid", "Tanh"]), "LSTM": (4, ["Sigmoid", "Tanh", "Tanh"])}


def h_recurrent(c):
    op = c.node.op_type
    G, default_acts = RECURRENT[op]
    x, w, r = c.ins[:3]
    b, lens, h0 = c.i(3), c.i(4), c.i(5)
    c0, peep = (c.i(6), c.i(7)) if op == "LSTM" else (None, None)
    layout = int(c.a("layout", 0))
    direction = c.a("direction", "forward")
    ndir = 2 if direction == "bidirectional" else 1
    acts = c.a("activations")
    acts = [a.decode() if isinstance(a, bytes) else a for a in acts] if acts else default_acts * ndir
    if any(a not in ONNX_ACTIVATIONS for a in acts) or c.a("activation_alpha") or c.a("activation_beta"):
        raise Skip(f"activations {acts} with alpha/beta: not mapped")
    if layout:
        x = np.ascontiguousarray(np.swapaxes(x, 0, 1))
        h0 = None if h0 is None else np.ascontiguousarray(np.swapaxes(h0, 0, 1))
        c0 = None if c0 is None else np.ascontiguousarray(np.swapaxes(c0, 0, 1))
    batch = x.shape[1]
    desc = {"InputTensor": T(x, [1, *x.shape]), "WeightTensor": T(w, [1, *w.shape]),
            "RecurrenceTensor": T(r, [1, *r.shape])}
    inputs = {"InputTensor": x, "WeightTensor": w, "RecurrenceTensor": r}
    if b is not None:
        desc["BiasTensor"] = T(b, [1, 1, *b.shape])
        inputs["BiasTensor"] = b
    if h0 is not None:
        desc["HiddenInitTensor"] = T(h0, [1, *h0.shape])
        inputs["HiddenInitTensor"] = h0
    if c0 is not None:
        desc["CellMemInitTensor"] = T(c0, [1, *c0.shape])
        inputs["CellMemInitTensor"] = c0
    if lens is not None:
        lens = lens.astype(np.uint32)
        desc["SequenceLengthsTensor"] = T(lens, [1, 1, 1, batch])
        inputs["SequenceLengthsTensor"] = lens
    if peep is not None:
        desc["PeepholeTensor"] = T(peep, [1, 1, *peep.shape])
        inputs["PeepholeTensor"] = peep
    outputs = {}
    names = ["OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor"]
    for k, o in enumerate(c.outs):
        if o is None:
            continue
        if layout:  # Y [batch, seq, dir, hidden] -> [seq, dir, batch, hidden]; Y_h [batch, dir, hidden]
            o = np.ascontiguousarray(o.transpose(1, 2, 0, 3) if k == 0 else np.swapaxes(o, 0, 1))
        sz = list(o.shape) if k == 0 else [1, *o.shape]
        desc[names[k]] = T(o, sz)
        outputs[names[k]] = o
    desc["ActivationDescCount"] = len(acts)
    for k, a in enumerate(acts):
        desc[f"ActivationDescs[{k}]"] = {"Type": ONNX_ACTIVATIONS[a]}
    desc["Direction"] = direction.upper()
    if op == "GRU":
        desc["LinearBeforeReset"] = int(c.a("linear_before_reset", 0))
    if op == "LSTM":
        clip = c.a("clip")
        desc["ClipThreshold"] = f32(clip) if clip is not None else 0.0
        desc["UseClipThreshold"] = int(clip is not None)
        desc["CoupleInputForget"] = int(c.a("input_forget", 0))
    note = "layout=1 transposed to DirectML's sequence-major layout" if layout else None
    return mapped(op, desc, inputs, outputs, note)


def h_qlinear_matmul(c):
    a, asc, azp, b, bsc, bzp, ysc, yzp = c.ins[:8]
    y = c.outs[0]
    if any(t.dtype != np.float32 for t in (asc, bsc, ysc)):
        raise Skip("FLOAT16 scales: DirectML's QUANTIZED_LINEAR_MATRIX_MULTIPLY takes FLOAT32 scales")
    if a.ndim > 4 or b.ndim > 4 or a.ndim < 2 or b.ndim < 2 or (a.ndim > 2 and (asc.size > 1 or bsc.size > 1)):
        raise Skip("only 2-D to 4-D operands, per-row and per-column scales in 2-D")
    M, N = a.shape[-2], b.shape[-1]
    oshape = pad_rank(list(y.shape), 4)

    def q(t, per, pos):
        sz = [1, 1, 1, 1]
        st = [0, 0, 0, 0]
        if t.size > 1:
            sz[pos], st[pos] = per, 1
        return T(t, sz, st)

    desc = {"ATensor": bcast(a, oshape[:2] + list(a.shape[-2:])), "AScaleTensor": q(asc, M, 2),
            "AZeroPointTensor": q(azp, M, 2), "BTensor": bcast(b, oshape[:2] + list(b.shape[-2:])),
            "BScaleTensor": q(bsc, N, 3), "BZeroPointTensor": q(bzp, N, 3), "OutputScaleTensor": q(ysc, 1, 3),
            "OutputZeroPointTensor": q(yzp, 1, 3), "OutputTensor": T(y, oshape)}
    inputs = {"ATensor": a, "AScaleTensor": asc, "AZeroPointTensor": azp, "BTensor": b, "BScaleTensor": bsc,
              "BZeroPointTensor": bzp, "OutputScaleTensor": ysc, "OutputZeroPointTensor": yzp}
    return mapped("QUANTIZED_LINEAR_MATRIX_MULTIPLY", desc, inputs, {"OutputTensor": y})


def h_qlinear_conv(c):
    x, xsc, xzp, w, wsc, wzp, ysc, yzp = c.ins[:8]
    bias = c.i(8)
    y = c.outs[0]
    xs, ws, ys, s, d, start, end, _, dims = conv_layout(c, x, w, y, False)
    one = [1] * (dims + 2)
    desc = {"InputTensor": T(x, xs), "InputScaleTensor": T(xsc, one), "InputZeroPointTensor": T(xzp, one),
            "FilterTensor": T(w, ws),
            "FilterScaleTensor": T(wsc, one) if wsc.size == 1 else T(wsc, [1, wsc.size] + [1] * dims),
            "FilterZeroPointTensor": T(wzp, one) if wzp.size == 1 else T(wzp, [1, wzp.size] + [1] * dims),
            "BiasTensor": None, "OutputScaleTensor": T(ysc, one), "OutputZeroPointTensor": T(yzp, one),
            "OutputTensor": T(y, ys), "DimensionCount": dims, "Strides": s, "Dilations": d, "StartPadding": start,
            "EndPadding": end, "GroupCount": int(c.a("group", 1))}
    inputs = {"InputTensor": x, "InputScaleTensor": xsc, "InputZeroPointTensor": xzp, "FilterTensor": w,
              "FilterScaleTensor": wsc, "FilterZeroPointTensor": wzp, "OutputScaleTensor": ysc,
              "OutputZeroPointTensor": yzp}
    if bias is not None:
        desc["BiasTensor"] = T(bias, [1, bias.size] + [1] * dims)
        inputs["BiasTensor"] = bias
    return mapped("QUANTIZED_LINEAR_CONVOLUTION", desc, inputs, {"OutputTensor": y})


def h_col2im(c):
    x, y = c.ins[0], c.outs[0]
    block = [int(v) for v in c.ins[2]]
    D = len(block)
    pads = list(c.a("pads", [0] * (2 * D)))
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "DimensionCount": D, "WindowSizes": block,
            "Strides": list(c.a("strides", [1] * D)), "Dilations": list(c.a("dilations", [1] * D)),
            "StartPadding": pads[:D], "EndPadding": pads[D:]}
    return mapped("FOLD", desc, {"InputTensor": x}, {"OutputTensor": y})


def h_constant_of_shape(c):
    y = c.outs[0]
    if y.size == 0:
        raise Skip("a zero-sized output: DirectML's sizes are at least 1")
    v = c.a("value")
    v = numpy_helper.to_array(v).reshape(-1)[0] if v is not None else np.float32(0)
    dt = dml_type(y)
    desc = {"OutputTensor": T(y), "ValueDataType": dt, "Value": fval(v, dt)}
    return mapped("FILL_VALUE_CONSTANT", desc, {}, {"OutputTensor": y})


def h_dropout(c):
    x, y = c.ins[0], c.outs[0]
    tm = c.i(2)
    if len([o for o in c.outs if o is not None]) > 1 or (tm is not None and bool(tm.reshape(-1)[0])):
        raise Skip("training mode or the mask output: random, no DirectML operator")
    desc = {"InputTensor": T(x), "OutputTensor": T(y), "ScaleBias": None}
    return mapped("ELEMENT_WISE_IDENTITY", desc, {"InputTensor": x}, {"OutputTensor": y},
                  "inference: the input unchanged")


def h_group_norm(c):
    x, scale, bias = c.ins[:3]
    y = c.outs[0]
    G = int(c.a("num_groups"))
    N, C = x.shape[:2]
    S = int(np.prod(x.shape[2:]))
    # The channels' groups as a dimension: [N, G, C / G, spatial], normalised over the last two.
    sz = [N, G, C // G, S]
    per = [0, C // G, 1, 0] if scale.size == C else [0, 1, 0, 0]
    desc = {"InputTensor": T(x, sz), "ScaleTensor": T(scale, sz, per), "BiasTensor": T(bias, sz, per),
            "OutputTensor": T(y, sz), "AxisCount": 2, "Axes": [2, 3], "NormalizeVariance": 1,
            "Epsilon": f32(c.a("epsilon", 1e-5)), "FusedActivation": None}
    return mapped("MEAN_VARIANCE_NORMALIZATION1", desc, {"InputTensor": x, "ScaleTensor": scale, "BiasTensor": bias},
                  {"OutputTensor": y}, "the channels' groups as a dimension of the same buffer")


HANDLERS = {
    # data movement
    "Gather": h_gather, "GatherElements": h_gather_elements, "GatherND": h_gather_nd,
    "ScatterElements": h_scatter_elements, "Scatter": h_scatter_elements, "ScatterND": h_scatter_nd, "Pad": h_pad,
    "Tile": h_tile, "TopK": h_topk, "OneHot": h_onehot, "DepthToSpace": h_depth_to_space,
    "SpaceToDepth": h_space_to_depth, "Concat": h_concat, "Split": h_split, "EyeLike": h_eyelike, "Trilu": h_trilu,
    "Range": h_range, "NonZero": h_nonzero, "ReverseSequence": h_reverse_sequence, "MaxUnpool": h_maxunpool,
    # GEMM, convolution, reduction
    "Gemm": h_gemm, "MatMul": h_matmul, "MatMulInteger": h_matmul_integer, "Conv": h_conv,
    "ConvTranspose": h_conv_transpose, "ConvInteger": h_conv_integer, "ArgMax": h_argminmax, "ArgMin": h_argminmax,
    "CumSum": h_cumulative, "CumProd": h_cumulative,
    **{op: h_reduce for op in REDUCE_FUNCTIONS},
    # element-wise
    **{op: h_binary for op in BINARY}, "Mod": h_binary, "BitShift": h_binary, "Pow": h_pow, "PRelu": h_prelu,
    "Where": h_where, "Clip": h_clip, **{op: h_unary for op in UNARY},
    # beyond the three families
    "Sum": h_sum, "Expand": h_expand, "Transpose": h_transpose, "Slice": h_slice, **{op: h_softmax for op in SOFTMAX},
    "MaxPool": h_pool, "AveragePool": h_pool, "LpPool": h_pool, "GlobalMaxPool": h_pool, "GlobalAveragePool": h_pool,
    "LRN": h_lrn, "LpNormalization": h_lpnorm, "InstanceNormalization": h_instancenorm,
    "MeanVarianceNormalization": h_mvn,
    "BatchNormalization": h_batchnorm, "Swish": h_swish, "QuantizeLinear": h_quantize, "DequantizeLinear": h_quantize,
    "DynamicQuantizeLinear": h_dynamic_quantize, "LayerNormalization": h_layernorm, "RoiAlign": h_roialign,
    "Resize": h_resize, "Upsample": h_resize, "RNN": h_recurrent, "GRU": h_recurrent, "LSTM": h_recurrent,
    "QLinearMatMul": h_qlinear_matmul, "QLinearConv": h_qlinear_conv, "Col2Im": h_col2im,
    "ConstantOfShape": h_constant_of_shape, "Dropout": h_dropout, "GroupNormalization": h_group_norm,
}
FAMILY_ORDER = ["data movement", "GEMM, convolution, reduction", "element-wise", "beyond the three families"]
FAMILY = {}
for _op in ["Gather", "GatherElements", "GatherND", "ScatterElements", "Scatter", "ScatterND", "Pad", "Tile", "TopK",
            "OneHot", "DepthToSpace", "SpaceToDepth", "Concat", "Split", "EyeLike", "Trilu", "Range", "NonZero",
            "ReverseSequence", "MaxUnpool"]:
    FAMILY[_op] = "data movement"
for _op in ["Gemm", "MatMul", "MatMulInteger", "Conv", "ConvTranspose", "ConvInteger", "ArgMax", "ArgMin", "CumSum",
            "CumProd", *REDUCE_FUNCTIONS]:
    FAMILY[_op] = "GEMM, convolution, reduction"
for _op in ["Sum", "Expand", "Transpose", "Slice", *SOFTMAX, "MaxPool", "AveragePool", "LpPool", "GlobalMaxPool",
            "GlobalAveragePool", "LRN", "LpNormalization", "InstanceNormalization", "MeanVarianceNormalization",
            "BatchNormalization", "Swish", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
            "LayerNormalization", "RoiAlign", "Resize", "Upsample", "RNN", "GRU", "LSTM", "QLinearMatMul",
            "QLinearConv", "Col2Im", "ConstantOfShape", "Dropout", "GroupNormalization"]:
    FAMILY[_op] = "beyond the three families"


# ---------------------------------------------------------------- reading ONNX's tests

def find_node_dir(path, commit, tmp):
    if os.path.isdir(os.path.join(path, "objects")) or os.path.isfile(os.path.join(path, "HEAD")):
        out = os.path.join(tmp, "onnx")
        os.makedirs(out)
        arch = subprocess.run(["git", "--git-dir", path, "archive", commit, NODE_PATH], check=True,
                              stdout=subprocess.PIPE).stdout
        with tarfile.open(fileobj=io.BytesIO(arch)) as tf:
            tf.extractall(out)
        return os.path.join(out, NODE_PATH)
    for cand in (path, os.path.join(path, NODE_PATH)):
        if os.path.isdir(cand) and any(n.startswith("test_") for n in os.listdir(cand)):
            return cand
    sys.exit(f"onnx_nodes.py: {path}: neither a git directory nor a folder of node tests")


def read_tensor(path, vi):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    if t.data_type not in ONNX_TYPES:
        raise Skip(f"type {ONNX_TYPE_NAMES.get(t.data_type, t.data_type)}: DirectML has no such type")
    a = numpy_helper.to_array(t)
    return a


def skip(reason, node):
    e = Skip(reason)
    e.node = node
    return e


def load_test(tdir):
    model = onnx.load(os.path.join(tdir, "model.onnx"))
    g = model.graph
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    if len(g.node) != 1:
        raise Skip("a graph of several nodes (an expanded function body or a composition)")
    node = g.node[0]
    if node.domain not in ("", "ai.onnx"):
        raise skip(f"domain {node.domain}", node)
    ds = os.path.join(tdir, "test_data_set_0")
    for vi in list(g.input) + list(g.output):
        if not vi.type.HasField("tensor_type"):
            raise skip("a sequence or optional type: DirectML has tensors only", node)
    try:
        ins_by_name = {vi.name: read_tensor(os.path.join(ds, f"input_{k}.pb"), vi) for k, vi in enumerate(g.input)}
        outs_by_name = {vi.name: read_tensor(os.path.join(ds, f"output_{k}.pb"), vi) for k, vi in enumerate(g.output)}
    except Skip as e:
        raise skip(e.args[0], node)
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    outs = [outs_by_name.get(name) if name else None for name in node.output]
    while outs and outs[-1] is None:
        outs.pop()
    ins = []
    for name in node.input:
        ins.append(None if name == "" else ins_by_name.get(name, inits.get(name)))
    while ins and ins[-1] is None:
        ins.pop()
    return Ctx(node, ins, outs, opset)


# ---------------------------------------------------------------- writing, running, judging

def buffer_values(arr):
    """An input buffer in memory order, each element exact: floats as raw bits, integers as decimals
    (strings past 2^53, which JSON readers may round)."""
    a = np.ascontiguousarray(as_dml(arr)).reshape(-1)
    if a.dtype.kind == "f":
        return [f"0x{int(b):0{2 * a.itemsize}x}" for b in a.view(f"u{a.itemsize}")]
    return [int(v) if abs(int(v)) < 2**53 else str(int(v)) for v in a]


def write_case(work, op, test, m):
    cdir = os.path.join(work, "cases", op)
    os.makedirs(cdir, exist_ok=True)
    inputs = {field: buffer_values(arr) for field, arr in m["inputs"].items()}
    case = {"format": 1, "name": f"onnx/{op}/{test}",
            "description": f"ONNX node test {test} ({op}), mapped by tools/peers/onnx_nodes.py",
            "operator": m["operator"], "desc": m["desc"], "inputs": inputs}
    with open(os.path.join(cdir, test + ".json"), "w") as f:
        json.dump(case, f, indent=1)
    adir = os.path.join(work, "onnx", op, test)
    os.makedirs(adir, exist_ok=True)
    for field, arr in m["outputs"].items():
        # In the output's Sizes (a reshape of the same elements: padded ranks, a group as a dimension).
        mt = re.fullmatch(r"(\w+)\[(\d+)\]", field)
        td = m["desc"][mt.group(1)][int(mt.group(2))] if mt else m["desc"][field]
        arr = np.ascontiguousarray(as_dml(arr))
        if int(np.prod(td["Sizes"])) == arr.size:
            arr = arr.reshape(td["Sizes"])
        np.save(os.path.join(adir, field + ".npy"), arr)


def ulp_key(a):
    """Integers ordered as the floats are (for ULP distances)."""
    a = np.ascontiguousarray(a)
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.itemsize]
    i = a.view(bits).astype(np.int64)
    return np.where(i < 0, np.iinfo(bits).min - i, i)


def compare(golden, onnx_out):
    """dmlref's golden against ONNX's expected: bit-exact, ONNX runner's verdict, worst ULP."""
    g, o = np.asarray(golden), np.asarray(onnx_out).reshape(np.asarray(golden).shape)
    if g.dtype.kind == "f":
        same = (g.view(f"u{g.itemsize}") == o.view(f"u{o.itemsize}")) | (np.isnan(g) & np.isnan(o))
        try:
            np.testing.assert_allclose(o, g, rtol=1e-3, atol=1e-7)
            runner = True
        except AssertionError:
            runner = False
        fin = np.isfinite(g) & np.isfinite(o)
        ulp = int(np.max(np.abs(ulp_key(g[fin]) - ulp_key(o[fin])))) if fin.any() else 0
        return bool(same.all()), runner, ulp, int((~same).sum())
    same = g == o
    return bool(same.all()), bool(same.all()), 0, int((~same).sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("node_dir")
    ap.add_argument("work")
    ap.add_argument("--commit", default=DEFAULT_COMMIT)
    ap.add_argument("--dmlref", default="build/tools/dmlref")
    ap.add_argument("--only", default="", help="comma-separated ONNX operators")
    ap.add_argument("-j", default="2")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    work = os.path.abspath(args.work)
    for sub in ("cases", "onnx", "golden", "dmlref"):
        shutil.rmtree(os.path.join(work, sub), ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        node_dir = find_node_dir(args.node_dir, args.commit, tmp)
        rows = {}
        for test in sorted(os.listdir(node_dir)):
            tdir = os.path.join(node_dir, test)
            if not test.startswith("test_") or not os.path.isdir(tdir):
                continue
            test = test[5:]
            node = None
            try:
                c = load_test(tdir)
                node = c.node
                op = node.op_type
                if only and op not in only:
                    continue
                if op not in HANDLERS:
                    raise Skip("no DirectML mapping in this tool")
                m = HANDLERS[op](c)
                write_case(work, op, test, m)
                rows[test] = {"op": op, "status": "mapped", "operator": m["operator"], "note": m["note"],
                              "outputs": list(m["outputs"])}
            except Skip as e:
                node = node or e.node
                op = node.op_type if node is not None else "(graph)"
                if only and op not in only:
                    continue
                rows[test] = {"op": op, "status": "skipped", "reason": str(e.args[0])}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # dmlref's goldens.
    r = subprocess.run([args.dmlref, "run", os.path.join(work, "cases"), "-o", os.path.join(work, "golden"),
                        "--npy-outputs", os.path.join(work, "dmlref"), "-j", args.j],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(work, "run.log"), "w") as f:
        f.write(r.stdout)
    for test, row in rows.items():
        if row["status"] != "mapped":
            continue
        gpath = os.path.join(work, "golden", row["op"], test + ".json")
        if not os.path.exists(gpath):
            errs = [ln for ln in r.stdout.splitlines() if f"/{row['op']}/{test}.json" in ln and "error" in ln]
            row.update(status="refused", reason=errs[0].split("error: ", 1)[-1] if errs else "no golden (run.log)")
    # ONNX's expected outputs judged under dmlref's tolerance.
    d = subprocess.run([args.dmlref, "diff", os.path.join(work, "golden"), os.path.join(work, "onnx"), "--json",
                        os.path.join(work, "diff.json")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(work, "diff.log"), "w") as f:
        f.write(d.stdout)
    verdicts = {}
    try:
        with open(os.path.join(work, "diff.json")) as f:
            rep = json.load(f)
        for case in rep.get("cases", []):
            verdicts[os.path.relpath(case.get("golden", ""), os.path.join(work, "golden"))] = case
    except (OSError, ValueError):
        pass
    for test, row in rows.items():
        if row["status"] != "mapped":
            continue
        op = row["op"]
        v = verdicts.get(os.path.join(op, test + ".json"))
        row["within_tolerance"] = v is not None and v.get("status") == "pass"
        if v is not None:
            row["tolerance"] = sorted({o.get("Tolerance", {}).get("Kind", "?") for o in v.get("outputs", [])})
            row["over"] = sum(o.get("over", 0) for o in v.get("outputs", []))
            rd = collections.Counter()
            for o in v.get("outputs", []):
                rd.update(o.get("readings", {}))
            row["readings"] = dict(rd)
            ratios = [o["worst_ratio"] for o in v.get("outputs", []) if o.get("worst_ratio") is not None]
            row["worst_ratio"] = max(ratios) if ratios else None
            row["elements"] = sum(o.get("elements", 0) for o in v.get("outputs", []))
            if v.get("errors"):
                row["diff_errors"] = v["errors"]
        bits, runner, ulp, ndiff = True, True, 0, 0
        for field in row["outputs"]:
            g = np.load(os.path.join(work, "dmlref", op, test, field + ".npy"))
            o = np.load(os.path.join(work, "onnx", op, test, field + ".npy"))
            if op == "NonZero" and field == "OutputCoordinatesTensor":
                n = int(np.load(os.path.join(work, "onnx", op, test, "OutputCountTensor.npy"))[0])
                g, o = g[:n], o[:n]
            b, rr, u, nd = compare(g, o)
            bits, runner, ulp, ndiff = bits and b, runner and rr, max(ulp, u), ndiff + nd
        row.update(bit_exact=bits, runner_agrees=runner, worst_ulp=ulp, differing=ndiff)
    with open(os.path.join(work, "report.json"), "w") as f:
        json.dump(rows, f, indent=1, sort_keys=True)
    write_table(rows, os.path.join(work, "report.md"))
    print(open(os.path.join(work, "report.md")).read())


# Differences whose cause is a difference of semantics, named by test (docs/peers-onnx.md).
KNOWN = {
    "roialign_aligned_false":
        "ONNX's value inexact: its expected output is 4-digit decimal literals, up to 8.4e-5 off; ONNX's own "
        "reference implementation (onnx/reference/ops/op_roi_align.py) gives dmlref's golden bit for bit; ONNX's "
        "runner passes the literals by rtol 1e-3",
    "roialign_aligned_true":
        "ONNX's value inexact: its expected output is 4-digit decimal literals, up to 5.0e-5 off; ONNX's own "
        "reference implementation gives dmlref's golden bit for bit; ONNX's runner passes the literals by rtol 1e-3",
    "roialign_mode_max":
        "semantics: ONNX's max mode (its reference implementation and expected output) takes the greatest weighted "
        "tap w_i * x_i of each sample; dmlref's MAX takes the greatest whole bilinear sample "
        "(docs/golden.md, RoiAlignMax)",
    "resize_downsample_scales_linear_antialias":
        "semantics: Scale 0.6; ONNX's antialias stretches the linear filter at any downscale, DirectML's RESAMPLE3 "
        "page only where 1 / Scale > 2 (docs/golden.md, AntialiasFilter; AnyDownscale is the alternative reading)",
    "resize_downsample_sizes_linear_antialias":
        "semantics: Scale 0.75; ONNX's antialias stretches the linear filter at any downscale, DirectML's RESAMPLE3 "
        "page only where 1 / Scale > 2 (docs/golden.md, AntialiasFilter)",
    "averagepool_2d_ceil_last_window_starts_on_pad":
        "ONNX's value inexact: its expected output is a 4-digit decimal literal (0.1511, 0.2841, 0.3572 for "
        "0.15105554, 0.28404444, 0.35722223, the window sums over 9); ONNX's runner passes it by rtol 1e-3",
    "averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True":
        "semantics: DirectML has no ceil_mode; its last window is made by EndPadding, which IncludePadding counts, "
        "while ONNX's divisor leaves ceil_mode's extra taps out (the 218 elements differ by 5/4, (5/4)^2, (5/4)^3)",
    "clip_min_greater_than_max":
        "semantics: Min > Max; ONNX (numpy.clip) gives Max, DirectML's CLIP1 formula max(min(x, Max), Min) gives "
        "Min (docs/golden.md, MinGreaterThanMax=FormulaLiteral)",
    "maxunpool_export_with_output_shape":
        "semantics: with output_shape 5x5 larger than the default 4x4, ONNX's expected output reads each index as "
        "a position in the default 4x4 output and pads it to 5x5; DirectML's MAX_UNPOOLING reads the index as a "
        "flat offset into the OutputTensor it writes (5x5), as PyTorch's max_unpool2d does",
}


def explain(test, r):
    if r["status"] != "mapped":
        return f"{test}: {r['status']}: {r['reason']}"
    if r["bit_exact"] and r["within_tolerance"] and r["runner_agrees"]:
        return None
    if test in KNOWN:
        return f"{test}: {r['differing']} elements differ; {KNOWN[test]}"
    if r["within_tolerance"] and r["runner_agrees"]:
        ratio = f", worst error/bound {r['worst_ratio']:.2f}" if r.get("worst_ratio") is not None else ""
        return (f"{test}: ONNX's value inexact: {r['differing']} of {r.get('elements', '?')} elements "
                f"{'1' if r['worst_ulp'] <= 1 else '1 to ' + str(r['worst_ulp'])} ULP from the correctly rounded "
                f"value{ratio}")
    return (f"{test}: UNEXPLAINED: {r['differing']} elements differ, worst {r['worst_ulp']} ULP, within dmlref's "
            f"tolerance {'yes' if r['within_tolerance'] else 'no'}, runner {'yes' if r['runner_agrees'] else 'no'}")


def write_table(rows, path):
    by_op = collections.defaultdict(list)
    for test, row in rows.items():
        by_op[row["op"]].append((test, row))
    lines = []
    family = None
    def order(o):
        return FAMILY_ORDER.index(FAMILY.get(o, "element-wise")), o

    for op in sorted((o for o in by_op if o in HANDLERS), key=order):
        if FAMILY.get(op, "element-wise") != family:
            family = FAMILY.get(op, "element-wise")
            lines += ["", f"### {family[0].upper() + family[1:]}", "",
                      "| ONNX operator | DirectML operator | tests | mapped | within tolerance | runner agrees | "
                      "bit-exact | differences and skips |", "|---|---|---|---|---|---|---|---|"]
        ts = by_op[op]
        mp = [(t, r) for t, r in ts if r["status"] == "mapped"]
        dml = sorted({r["operator"] for _, r in mp})
        notes = [n for n in (explain(t, r) for t, r in ts) if n]
        skips = collections.Counter(r["reason"] for _, r in ts if r["status"] == "skipped")
        notes = [n for n in notes if ": skipped: " not in n]
        notes += [f"{k} skipped: {reason}" for reason, k in sorted(skips.items())]
        lines.append(f"| {op} | {', '.join(dml) or '-'} | {len(ts)} | {len(mp)} | "
                     f"{sum(1 for _, r in mp if r['within_tolerance'])} | "
                     f"{sum(1 for _, r in mp if r['runner_agrees'])} | "
                     f"{sum(1 for _, r in mp if r['bit_exact'])} | {'; '.join(notes)} |")
    total = collections.Counter(r["status"] for r in rows.values())
    mapped_rows = [r for r in rows.values() if r["status"] == "mapped"]
    lines = [f"{len(rows)} node tests: {total['mapped']} mapped, {total.get('skipped', 0)} skipped, "
             f"{total.get('refused', 0)} refused by dmlref; of the mapped, "
             f"{sum(1 for r in mapped_rows if r['within_tolerance'])} within dmlref's tolerance, "
             f"{sum(1 for r in mapped_rows if r['runner_agrees'])} agreeing under ONNX's runner, "
             f"{sum(1 for r in mapped_rows if r['bit_exact'])} bit-exact."] + lines
    other = collections.Counter(r["op"] for r in rows.values() if r["op"] not in HANDLERS)
    reasons = collections.Counter(r["reason"] for r in rows.values() if r["op"] not in HANDLERS)
    if other:
        lines += ["", f"Not mapped by this tool: {sum(other.values())} tests, "
                  + "; ".join(f"{k} {reason}" for reason, k in reasons.most_common()) + ". Operators: "
                  + ", ".join(f"{op} ({k})" for op, k in sorted(other.items())) + "."]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
