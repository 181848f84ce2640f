#!/usr/bin/env python3
"""Cross-check the reduction, scan, indexing and layout families on a GPU backend: PyTorch's
CUDA kernels against dmlref's goldens (docs/crosscheck-gpu.md, "Reductions, indexing and layout").

    dmlref gen sweeps/reduction.json -o CASES/reduction   # and the other families' sweeps
    dmlref run CASES --npy NPY                           # inputs as .npy (on any machine)
    python3 tools/crosscheck/torch_data.py CASES NPY OUT [--planted] [--bundle] [--cpu]
    dmlref diff OUT/goldens OUT/actual                   # judged by the tolerance model

For every golden in CASES whose operator maps onto PyTorch (inputs read through their Strides,
so broadcast and strided inputs are included):
  REDUCE                 amax/amin, sum, prod, mean, abs().sum, sqrt of the sum of squares,
                         square().sum, log(sum), logsumexp; ARGMAX/ARGMIN over the reduced axes
                         flattened in row-major order (integer AVERAGE, L2 and logs: skipped)
  ARGMIN, ARGMAX         the same; AxisDirection DECREASING as the last extreme index
  CUMULATIVE_SUMMATION   cumsum / cumprod, flipped for DECREASING, shifted for exclusive scans
  CUMULATIVE_PRODUCT
  GATHER                 index_select with the indices flattened (negative indices from the end)
  GATHER_ELEMENTS        torch.gather
  GATHER_ND, GATHER_ND1  ONNX GatherND by advanced indexing over the trailing dimensions
  SCATTER_ELEMENTS       torch.scatter
  SCATTER_ND             index_put over the trailing dimensions
  ONE_HOT                where(arange(depth) == index, on, off) (negative indices from the end)
  TOP_K, TOP_K1          torch.topk(sorted=True)
  JOIN, SPLIT            torch.cat, torch.split
  PADDING, PADDING1      F.pad: constant at any rank; EDGE, REFLECTION as replicate, reflect, one
                         dimension at a time (SYMMETRIC and WRAP: skipped)
  TILE                   Tensor.repeat
  DEPTH_TO_SPACE(1)      pixel_shuffle (COLUMN_ROW_DEPTH) or the DEPTH_COLUMN_ROW permutation
  SPACE_TO_DEPTH(1)      pixel_unshuffle or the DEPTH_COLUMN_ROW permutation
Element types without PyTorch support in the operation are skipped with the reason.
--planted writes OUT/planted/<bug>/... with one bug planted each, which `dmlref diff` must reject.
"""
import json
import os
import shutil
import sys

from bundle import bundle  # tools/crosscheck/bundle.py, beside this script
import numpy as np
import torch
import torch.nn.functional as F

NP = {"FLOAT16": np.float16, "FLOAT32": np.float32, "FLOAT64": np.float64, "INT8": np.int8,
      "INT16": np.int16, "INT32": np.int32, "INT64": np.int64, "UINT8": np.uint8,
      "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64}
FLOATS = ("FLOAT16", "FLOAT32", "FLOAT64")


def tensor(npy_dir, field, desc, dev):
    """The logical tensor of an input, read through its Strides when it has them."""
    flat = np.load(os.path.join(npy_dir, field + ".npy"))
    if "Strides" in desc:
        view = np.lib.stride_tricks.as_strided(flat, shape=desc["Sizes"],
                                               strides=[s * flat.itemsize for s in desc["Strides"]])
        a = view.copy()
    else:
        a = flat[:int(np.prod(desc["Sizes"]))].reshape(desc["Sizes"]).copy()
    if a.dtype in (np.uint16, np.uint32, np.uint64):
        a = a.astype(np.int64)  # widened: the moves and index ops below keep the values exactly
    return torch.from_numpy(a).to(dev)


def as_output(t, desc):
    """The result as the output's DataType and Sizes (the bits of a narrowing cast wrap)."""
    a = t.detach().cpu()
    if a.dtype == torch.bool:
        a = a.to(torch.uint8)
    a = a.numpy()
    dt = NP[desc["DataType"]]
    if a.dtype != dt:
        a = a.astype(np.int64).astype(dt) if np.issubdtype(dt, np.integer) and not np.issubdtype(a.dtype, np.floating) else a.astype(dt)
    return a.reshape(desc["Sizes"])


def x_in(d, npy, dev, field="InputTensor"):
    return tensor(npy, field, d[field], dev)


def ordered_in(d, npy, dev, field="InputTensor"):
    """An input that is compared or summed: UINT64 has no PyTorch dtype that orders it."""
    if d[field]["DataType"] == "UINT64":
        raise NotImplementedError("UINT64 compared or summed (no PyTorch dtype orders it)")
    return x_in(d, npy, dev, field)


def idx_in(d, npy, dev, field="IndicesTensor"):
    return tensor(npy, field, d[field], dev).to(torch.int64)


# ---------------------------------------------------------------------------------- reductions
def arg_extreme(x, axes, largest, last):
    """ARGMAX/ARGMIN over `axes`, the index row-major over the reduced axes; first or last extreme."""
    keep = [a for a in range(x.dim()) if a not in axes]
    y = x.permute(keep + sorted(axes))
    y = y.reshape(*[x.shape[a] for a in keep], -1)
    n = y.shape[-1]
    if last:
        y = y.flip(-1)
    i = y.argmax(-1) if largest else y.argmin(-1)
    if last:
        i = n - 1 - i
    return i


def reduce_(d, npy, dev):
    x = ordered_in(d, npy, dev)
    axes = sorted(set(d["Axes"]))
    fn = d["Function"]
    integer = d["InputTensor"]["DataType"] not in FLOATS
    if fn in ("ARGMAX", "ARGMIN"):
        return arg_extreme(x, axes, fn == "ARGMAX", False)
    if integer and fn in ("AVERAGE", "L2", "LOG_SUM", "LOG_SUM_EXP"):
        raise NotImplementedError(f"{fn} of integers (no PyTorch analogue)")
    wide = x.to(torch.int64) if integer else x
    if fn == "MAX":
        return x.amax(axes, keepdim=True)
    if fn == "MIN":
        return x.amin(axes, keepdim=True)
    if fn == "SUM":
        return wide.sum(axes, keepdim=True)
    if fn == "MULTIPLY":
        r = wide
        for a in axes:
            r = r.prod(a, keepdim=True)
        return r
    if fn == "AVERAGE":
        return x.mean(axes, keepdim=True)
    if fn == "L1":
        return wide.abs().sum(axes, keepdim=True)
    if fn == "SUM_SQUARE":
        return (wide * wide).sum(axes, keepdim=True)
    if fn == "L2":
        return (x * x).sum(axes, keepdim=True).sqrt()
    if fn == "LOG_SUM":
        return x.sum(axes, keepdim=True).log()
    if fn == "LOG_SUM_EXP":
        return torch.logsumexp(x, axes, keepdim=True)
    raise NotImplementedError(fn)


def argminmax(largest):
    def f(d, npy, dev):
        return arg_extreme(ordered_in(d, npy, dev), sorted(set(d["Axes"])), largest, d.get("AxisDirection") == "DECREASING")
    return f


def cumulative(product):
    def f(d, npy, dev):
        x = ordered_in(d, npy, dev)
        a = d["Axis"]
        integer = d["InputTensor"]["DataType"] not in FLOATS
        if integer:
            x = x.to(torch.int64)
        exclusive = d.get("HasExclusiveProduct" if product else "HasExclusiveSum", 0)
        decreasing = d.get("AxisDirection") == "DECREASING"
        if decreasing:
            x = x.flip(a)
        if exclusive:
            fill = torch.ones_like(x.narrow(a, 0, 1)) if product else torch.zeros_like(x.narrow(a, 0, 1))
            x = torch.cat([fill, x.narrow(a, 0, x.shape[a] - 1)], a)
        r = x.cumprod(a) if product else x.cumsum(a)
        return r.flip(a) if decreasing else r
    return f


# ------------------------------------------------------------------------------------ indexing
def wrap(i, n):
    return torch.where(i < 0, i + n, i)


def gather(d, npy, dev):
    x, i = x_in(d, npy, dev), idx_in(d, npy, dev)
    a = d["Axis"]
    r = x.index_select(a, wrap(i, x.shape[a]).reshape(-1))
    return r  # reshaped to the output's Sizes by as_output (the order is data[:a] + indices + data[a+1:])


def gather_elements(d, npy, dev):
    x, i = x_in(d, npy, dev), idx_in(d, npy, dev)
    a = d["Axis"]
    return torch.gather(x, a, wrap(i, x.shape[a]))


def trailing(t, n):
    return t.reshape(t.shape[t.dim() - n:]) if n < t.dim() else t


def nd_positions(x, i, batch):
    """For ONNX GatherND/ScatterND: the index tuples into x (batch dims first)."""
    k = i.shape[-1]
    bshape = x.shape[:batch]
    nb = int(np.prod(bshape)) if batch else 1
    ii = i.reshape(nb, -1, k)
    cols = [wrap(ii[..., j], x.shape[batch + j]) for j in range(k)]
    b = torch.arange(nb, device=x.device).reshape(nb, 1).expand(ii.shape[0], ii.shape[1])
    return ii, b, cols, k


def gather_nd(d, npy, dev):
    x = trailing(x_in(d, npy, dev), d["InputDimensionCount"])
    i = trailing(idx_in(d, npy, dev), d["IndicesDimensionCount"])
    batch = d.get("BatchDimensionCount", 0)
    ii, b, cols, k = nd_positions(x, i, batch)
    xb = x.reshape(-1, *x.shape[batch:]) if batch else x.unsqueeze(0)
    return xb[(b, *cols)]


def scatter_elements(d, npy, dev):
    x, i, u = x_in(d, npy, dev), idx_in(d, npy, dev), x_in(d, npy, dev, "UpdatesTensor")
    a = d["Axis"]
    return torch.scatter(x, a, wrap(i, x.shape[a]), u)


def scatter_nd(d, npy, dev):
    x = trailing(x_in(d, npy, dev), d["InputDimensionCount"])
    i = trailing(idx_in(d, npy, dev), d["IndicesDimensionCount"])
    u = x_in(d, npy, dev, "UpdatesTensor")
    ii, b, cols, k = nd_positions(x, i, 0)
    r = x.clone()
    r.index_put_(tuple(cols), u.reshape(-1, *x.shape[k:]).to(r.dtype))
    return r


def one_hot(d, npy, dev):
    i, v = idx_in(d, npy, dev), x_in(d, npy, dev, "ValuesTensor").reshape(-1)
    a = d["Axis"]
    depth = d["OutputTensor"]["Sizes"][a]
    shape = [1] * i.dim()
    shape[a] = depth
    r = torch.arange(depth, device=i.device).reshape(shape)
    return torch.where(r == wrap(i, depth), v[1], v[0])


def top_k(d, npy, dev):
    x = ordered_in(d, npy, dev)
    largest = d.get("AxisDirection", "DECREASING") == "DECREASING"
    v, i = torch.topk(x, d["K"], dim=d["Axis"], largest=largest, sorted=True)
    return {"OutputValueTensor": v, "OutputIndexTensor": i}


# -------------------------------------------------------------------------------------- layout
def join(d, npy, dev):
    xs = [tensor(npy, f"InputTensors[{k}]", t, dev) for k, t in enumerate(d["InputTensors"])]
    return torch.cat(xs, d["Axis"])


def split(d, npy, dev):
    a = d["Axis"]
    parts = torch.split(x_in(d, npy, dev), [t["Sizes"][a] for t in d["OutputTensors"]], a)
    return {f"OutputTensors[{k}]": p for k, p in enumerate(parts)}


def padding(d, npy, dev):
    x = x_in(d, npy, dev)
    mode = d["PaddingMode"]
    s, e = d["StartPadding"], d["EndPadding"]
    pad = []
    for k in reversed(range(x.dim())):
        pad += [s[k], e[k]]
    if mode == "CONSTANT":
        v = d["PaddingValue"]
        if d["InputTensor"]["DataType"] in FLOATS:
            v = float(np.array(v, NP[d["InputTensor"]["DataType"]])) if not isinstance(v, str) else float(v)
        return F.pad(x, pad, "constant", v)
    torch_mode = {"EDGE": "replicate", "REFLECTION": "reflect"}.get(mode)
    if torch_mode is None:
        raise NotImplementedError(f"PaddingMode {mode} (no PyTorch mode)")
    if x.dtype not in (torch.float16, torch.float32, torch.float64):
        raise NotImplementedError(f"{mode} of {x.dtype} (PyTorch pads floats only)")
    # One dimension at a time, as a 1-D pad of the last axis (F.pad's replicate and reflect take at
    # most three): both modes are separable, so padding the axes in turn gives the N-d padding.
    for k in range(x.dim()):
        if s[k] or e[k]:
            y = x.movedim(k, -1)
            shape = y.shape
            y = F.pad(y.reshape(1, -1, shape[-1]), [s[k], e[k]], torch_mode)
            x = y.reshape(*shape[:-1], y.shape[-1]).movedim(-1, k)
    return x


def tile(d, npy, dev):
    return x_in(d, npy, dev).repeat(*d["Repeats"])


def depth_to_space(order_default):
    def f(d, npy, dev):
        x = x_in(d, npy, dev)
        b = d["BlockSize"]
        n, c, h, w = x.shape
        if d.get("Order", order_default) == "COLUMN_ROW_DEPTH":
            return F.pixel_shuffle(x, b) if x.is_floating_point() else \
                x.reshape(n, c // (b * b), b, b, h, w).permute(0, 1, 4, 2, 5, 3).reshape(n, c // (b * b), h * b, w * b)
        return x.reshape(n, b, b, c // (b * b), h, w).permute(0, 3, 4, 1, 5, 2).reshape(n, c // (b * b), h * b, w * b)
    return f


def space_to_depth(order_default):
    def f(d, npy, dev):
        x = x_in(d, npy, dev)
        b = d["BlockSize"]
        n, c, h, w = x.shape
        if d.get("Order", order_default) == "COLUMN_ROW_DEPTH":
            return F.pixel_unshuffle(x, b) if x.is_floating_point() else \
                x.reshape(n, c, h // b, b, w // b, b).permute(0, 1, 3, 5, 2, 4).reshape(n, c * b * b, h // b, w // b)
        return x.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4).reshape(n, c * b * b, h // b, w // b)
    return f


OPERATORS = {
    "REDUCE": reduce_, "ARGMAX": argminmax(True), "ARGMIN": argminmax(False),
    "CUMULATIVE_SUMMATION": cumulative(False), "CUMULATIVE_PRODUCT": cumulative(True),
    "GATHER": gather, "GATHER_ELEMENTS": gather_elements, "GATHER_ND": gather_nd, "GATHER_ND1": gather_nd,
    "SCATTER_ELEMENTS": scatter_elements, "SCATTER_ND": scatter_nd, "ONE_HOT": one_hot,
    "TOP_K": top_k, "TOP_K1": top_k, "JOIN": join, "SPLIT": split,
    "PADDING": padding, "PADDING1": padding, "TILE": tile,
    "DEPTH_TO_SPACE": depth_to_space("DEPTH_COLUMN_ROW"), "DEPTH_TO_SPACE1": depth_to_space("DEPTH_COLUMN_ROW"),
    "SPACE_TO_DEPTH": space_to_depth("DEPTH_COLUMN_ROW"), "SPACE_TO_DEPTH1": space_to_depth("DEPTH_COLUMN_ROW"),
}


# ------------------------------------------------------------------------------ planted bugs
class NotPlanted(Exception):
    """A plant that would leave this case's outputs unchanged (planted_tally.py counts the rest)."""


def plant_last_tie(d, npy, dev, outs):
    """ARGMAX/ARGMIN that returns the last extreme index instead of the first."""
    x = x_in(d, npy, dev)
    largest = d.get("Function", d["_op"]) == "ARGMAX"
    last = d.get("AxisDirection") != "DECREASING"
    return {"OutputTensor": arg_extreme(x, sorted(set(d["Axes"])), largest, last)}


def plant_dropped_term(d, npy, dev, outs):
    """REDUCE SUM that skips the first element of every reduction."""
    x = x_in(d, npy, dev)
    for a in sorted(set(d["Axes"])):
        if x.shape[a] > 1:
            x = x.clone()
            x.narrow(a, 0, 1).zero_()
            break
    return {"OutputTensor": x.sum(sorted(set(d["Axes"])), keepdim=True)}


def plant_inclusive(d, npy, dev, outs):
    """An exclusive scan computed inclusive."""
    return {"OutputTensor": cumulative(False)(dict(d, HasExclusiveSum=0), npy, dev)}


def plant_index_plus_one(d, npy, dev, outs):
    """GATHER_ELEMENTS reading the next element along the axis (clamped at the end)."""
    x, i = x_in(d, npy, dev), idx_in(d, npy, dev)
    a = d["Axis"]
    j = torch.clamp(wrap(i, x.shape[a]) + 1, max=x.shape[a] - 1)
    return {"OutputTensor": torch.gather(x, a, j)}


def plant_wrong_order(d, npy, dev, outs):
    """DEPTH_TO_SPACE1 with the other Order."""
    other = "COLUMN_ROW_DEPTH" if d.get("Order", "DEPTH_COLUMN_ROW") == "DEPTH_COLUMN_ROW" else "DEPTH_COLUMN_ROW"
    return {"OutputTensor": depth_to_space("DEPTH_COLUMN_ROW")(dict(d, Order=other), npy, dev)}


def plant_edge_mode(d, npy, dev, outs):
    """PADDING with the mode at the edge off by one element: REFLECTION computed as SYMMETRIC
    (the edge element repeated), EDGE and SYMMETRIC computed as REFLECTION (numpy's np.pad)."""
    x = x_in(d, npy, "cpu").numpy()
    mode = {"REFLECTION": "symmetric", "EDGE": "reflect", "SYMMETRIC": "reflect"}[d["PaddingMode"]]
    pad = list(zip(d["StartPadding"], d["EndPadding"]))
    return {"OutputTensor": torch.from_numpy(np.pad(x, pad, mode))}


def plant_lost_negative_zero(d, npy, dev, outs):
    """A move that loses the sign of zero: every -0 of the outputs written as +0 (as a copy through
    float arithmetic, x + 0, would)."""
    if not any(bool(((t == 0) & t.signbit()).any()) for t in outs.values()):
        raise NotPlanted("no -0 in the outputs")
    return {k: torch.where(t == 0, torch.zeros_like(t), t) for k, t in outs.items()}


PLANTED = {
    "last_tie": (plant_last_tie, ["reduction/reduce_op/argmax_float32_ties", "reduction/reduce_op/argmin_float32_ties",
                                 "reduction/argmax_op/increasing_int32_ties", "reduction/argmin_op/increasing_int32_ties"]),
    "dropped_term": (plant_dropped_term, ["reduction/reduce_op/sum_float32_random", "reduction/reduce_op/sum_float16_random",
                                         "reduction/reduce_op/sum_float32_r3x4_dyadic"]),
    "inclusive_scan": (plant_inclusive, []),  # targets: the exclusive CUMULATIVE_SUMMATION cases (found below)
    "index_plus_one": (plant_index_plus_one, []),  # targets: GATHER_ELEMENTS FLOAT32 cases (found below)
    "wrong_order": (plant_wrong_order, []),  # targets: DEPTH_TO_SPACE1 FLOAT32 cases where the orders differ
    "edge_mode": (plant_edge_mode, []),  # targets: PADDING and PADDING1 float cases of EDGE, REFLECTION, SYMMETRIC
    "lost_negative_zero": (plant_lost_negative_zero, []),  # targets: the moving operators' FLOAT32 and FLOAT16 cases
}
MOVES = ("GATHER", "GATHER_ELEMENTS", "GATHER_ND", "GATHER_ND1", "SCATTER_ELEMENTS", "SCATTER_ND", "JOIN", "SPLIT",
         "PADDING", "PADDING1", "TILE", "DEPTH_TO_SPACE", "DEPTH_TO_SPACE1", "SPACE_TO_DEPTH", "SPACE_TO_DEPTH1")


def planted_targets(op, d, rel, golden=None):
    bugs = [b for b, (_, t) in PLANTED.items() if rel in t]
    dt = next(v["DataType"] for v in d.values() if isinstance(v, dict) and "DataType" in v)
    if op == "CUMULATIVE_SUMMATION" and d.get("HasExclusiveSum") and dt == "FLOAT32":
        bugs.append("inclusive_scan")
    if op == "GATHER_ELEMENTS" and dt == "FLOAT32":
        bugs.append("index_plus_one")
    if op == "DEPTH_TO_SPACE1" and dt == "FLOAT32" and d["BlockSize"] > 1 and d["InputTensor"]["Sizes"][1] > d["BlockSize"] ** 2:
        # (with one output channel, or BlockSize 1, both orders give the same tensor)
        bugs.append("wrong_order")
    if op in ("PADDING", "PADDING1") and dt in FLOATS and d["PaddingMode"] in ("EDGE", "REFLECTION", "SYMMETRIC"):
        bugs.append("edge_mode")
    if op in MOVES and dt in ("FLOAT32", "FLOAT16"):
        bugs.append("lost_negative_zero")  # (planted only where an output holds a -0)
    return bugs


def output_fields(c):
    return [k for k in c["expected"]]




def as_dict(c, results):
    """A plant's or a mapping's results as {output field: tensor}."""
    return results if isinstance(results, dict) else {output_fields(c)[0]: results}


def output_desc(c, field):
    return c["desc"][field] if field in c["desc"] else c["desc"]["OutputTensors"][int(field.split("[")[1][:-1])]


def save(out, top, rel, c, results):
    for field, t in as_dict(c, results).items():
        os.makedirs(os.path.join(out, top, rel), exist_ok=True)
        np.save(os.path.join(out, top, rel, field + ".npy"), as_output(t, output_desc(c, field)))


def main(operators, planted_bugs, targets):
    """Runs every case in CASES that OPERATORS maps, and the bugs of PLANTED_BUGS that TARGETS names for it."""
    cases, npy_root, out = sys.argv[1:4]
    planted = "--planted" in sys.argv
    dev = "cuda" if torch.cuda.is_available() and "--cpu" not in sys.argv else "cpu"
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0) if dev == 'cuda' else 'cpu'}")
    ran = skipped = errors = 0
    for root, _, files in os.walk(cases):
        for f in sorted(files):
            if not f.endswith(".json"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, cases)[:-5]
            c = json.load(open(path))
            op = c["operator"].removeprefix("DML_OPERATOR_")
            npy = os.path.join(npy_root, rel)
            if op not in operators or not c.get("expected") or not os.path.isdir(npy):
                continue
            try:
                results = operators[op](c["desc"], npy, dev)
                if dev == "cuda":
                    torch.cuda.synchronize()
                save(out, "actual", rel, c, results)
            except (NotImplementedError, RuntimeError, TypeError) as e:
                print(f"skipped {rel}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
                skipped += 1
                continue
            except Exception as e:  # a harness bug must not end the run: reported, the case left out
                print(f"error {rel}: {type(e).__name__}: {e}")
                errors += 1
                continue
            os.makedirs(os.path.dirname(os.path.join(out, "goldens", rel)), exist_ok=True)
            shutil.copy(path, os.path.join(out, "goldens", rel + ".json"))
            ran += 1
            if not planted:
                continue
            for bug in targets(op, c["desc"], rel, c):
                try:
                    g = planted_bugs[bug][0](dict(c["desc"], _op=op), npy, dev, as_dict(c, results))
                    save(out, os.path.join("planted", bug), rel, c, g)
                    print(f"  planted {bug} in {rel}")
                except NotPlanted as e:
                    print(f"  not planted {bug} in {rel}: {e}")
                except Exception as e:
                    print(f"  plant {bug} failed in {rel}: {type(e).__name__}: {e}")
    print(f"ran {ran}, skipped {skipped}, errors {errors}")
    if "--bundle" in sys.argv:
        bundle(out)


if __name__ == "__main__":
    main(OPERATORS, PLANTED, planted_targets)
