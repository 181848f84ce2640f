#!/usr/bin/env python3
"""Names the semantic difference behind each failing case of a torch_data.py run
(docs/crosscheck-gpu.md, "Reductions, indexing and layout").

    dmlref diff OUT/goldens OUT/actual --json REPORT.json
    python3 tools/crosscheck/classify_data.py REPORT.json NPY OUT

Each failing case gets one cause, decided from its inputs and outputs, never from the golden
alone:
  topk-tie-order      every differing index points at an element that ties with the golden's
                      (equal values, or both NaN: dmlref ranks NaNs equal, above every number):
                      a tie put in another order. The pages guarantee ascending indices among
                      ties; torch.topk on CUDA does not. Where the tied values are +0 and -0, or
                      NaNs of other payloads, the value bits differ too.
  topk-nan-order      TOP_K whose input holds a NaN, not a tie: XLA sorts NaN by its sign bit
                      (-NaN below -inf, +NaN above +inf); dmlref ranks every NaN above +inf.
                      (jax_data.py takes INCREASING as top_k of -x, which flips NaN signs too.)
  nan-in-reduction    the reduced input holds a NaN (MIN/MAX/ARGMIN/ARGMAX: PyTorch propagates
                      NaN; dmlref's goldens follow D3D's min/max, where a NaN loses)
  signed-zero-arg     ARGMIN/ARGMAX whose reduced input holds both +0 and -0 and no NaN
  padding-value-cast  PADDING of an unsigned type with a negative PaddingValue (the golden
                      converts as CAST does, saturating to 0; PyTorch truncates and wraps)
  running-product     CUMULATIVE_PRODUCT whose running product in the output type overflows
                      before a factor 0 (inf * 0 = NaN in the running tally; the exact prefix
                      product is 0)
  nan-payload         every element over tolerance is a NaN given with other bits (PyTorch's
                      CPU kernels quiet a signalling FLOAT16 NaN as they move it)
  unexplained         none of these: a bug in dmlref, the harness or the backend
"""
import json
import os
import sys

import numpy as np


def load_case(golden):
    return json.load(open(golden))


def inputs(npy, field, desc=None):
    """An input's buffer; with its desc, the logical tensor read through its Strides."""
    flat = np.load(os.path.join(npy, field + ".npy"))
    if desc is None:
        return flat
    if "Strides" in desc:
        return np.lib.stride_tricks.as_strided(flat, shape=desc["Sizes"],
                                               strides=[s * flat.itemsize for s in desc["Strides"]]).copy()
    return flat[:int(np.prod(desc["Sizes"]))].reshape(desc["Sizes"])


def signed_zeros(x):
    z = x[x == 0]
    return x.dtype.kind == "f" and np.signbit(z).any() and (~np.signbit(z)).any()


def classify(case, npy, actual_dir):
    c = load_case(case["golden"])
    op = c["operator"].removeprefix("DML_OPERATOR_")
    d = c["desc"]
    if op in ("TOP_K", "TOP_K1"):
        outs = {o["output"]: o for o in case["outputs"]}
        x = inputs(npy, "InputTensor", d["InputTensor"])
        got = np.load(os.path.join(actual_dir, "OutputIndexTensor.npy")).astype(np.int64)
        want = np.array(c["expected"]["OutputIndexTensor"]["Values"], np.int64).reshape(got.shape)
        a = d["Axis"]
        vg = np.take_along_axis(x.reshape(got.shape[:a] + x.shape[a:a + 1] + got.shape[a + 1:]), got, a)
        vw = np.take_along_axis(x.reshape(want.shape[:a] + x.shape[a:a + 1] + want.shape[a + 1:]), want, a)
        tied = (vg == vw) | (np.isnan(vg) & np.isnan(vw)) if x.dtype.kind == "f" else vg == vw
        if tied.all():
            return "topk-tie-order"
        if x.dtype.kind == "f" and np.isnan(x).any():
            return "topk-nan-order"
    if op in ("REDUCE", "ARGMIN", "ARGMAX"):
        x = inputs(npy, "InputTensor")
        if x.dtype.kind == "f" and np.isnan(x).any():
            return "nan-in-reduction"
        if op != "REDUCE" and signed_zeros(x):
            return "signed-zero-arg"
    if op in ("PADDING", "PADDING1") and d["InputTensor"]["DataType"].startswith("UINT") \
            and d["PaddingMode"] == "CONSTANT" and float(d["PaddingValue"]) < 0:
        return "padding-value-cast"
    if op == "CUMULATIVE_PRODUCT":
        x = inputs(npy, "InputTensor")
        if x.dtype.kind == "f" and (x == 0).any():
            with np.errstate(all="ignore"):
                run = np.cumprod(x.astype(x.dtype), axis=None)
            if np.isinf(run).any():
                return "running-product"
    over = [w for o in case["outputs"] for w in o.get("worst", []) if w["verdict"] == "over"]
    if over and all(o["over"] <= len(o.get("worst", [])) for o in case["outputs"]) \
            and all(w["golden"].startswith("nan") and w["actual"].startswith("nan") for w in over):
        return "nan-payload"
    return "unexplained"


def main():
    report, npy_root, out = sys.argv[1:4]
    r = json.load(open(report))
    causes = {}
    for case in r["cases"]:
        if case["status"] == "pass":
            continue
        rel = case["golden"].replace(os.sep, "/").split("goldens/", 1)[1][:-5]  # as torch_data.py wrote it
        case = dict(case, golden=os.path.join(out, "goldens", rel + ".json"))
        cause = classify(case, os.path.join(npy_root, rel), os.path.join(out, "actual", rel))
        causes.setdefault(cause, []).append(rel)
    for cause, cases in sorted(causes.items()):
        print(f"{cause}: {len(cases)}")
        for rel in cases[:4]:
            print(f"  {rel}")
    return 1 if "unexplained" in causes else 0


sys.exit(main())
