#!/usr/bin/env python3
"""Mirror a case and a backend's outputs along the channel dimension, to judge a backend that reads
an even LRN window on the other side (docs/crosscheck-gpu.md, "The even window's side"):

    python3 tools/crosscheck/flip_channels.py CASE.json ACTUAL_DIR OUT
    dmlref run OUT/case -o OUT/golden -q && dmlref diff OUT/golden OUT/actual

PyTorch's local_response_norm reads [c - L/2, c + L/2 - 1] for an even L, DirectML's region is
[c - L/2 + 1, c + L/2] (docs/golden.md, LrnEvenLocalSize): the one is the other with the channels
reversed. OUT/case/<name>.json is CASE with every input reversed along dimension 1 and no expected
values; OUT/actual/<name>/<Output>.npy is each .npy of ACTUAL_DIR reversed along dimension 1. If the
backend differs from the golden only by the side of the window, `dmlref diff` passes. Standard
library only (packed inputs listed in the case, little-endian .npy files in C order).
"""
import ast
import json
import os
import struct
import sys


def flip_list(values, sizes):
    """values in row-major order over sizes, reversed along dimension 1."""
    inner = 1
    for s in sizes[2:]:
        inner *= s
    c = sizes[1]
    out = []
    for n in range(sizes[0]):
        base = n * c * inner
        for ch in reversed(range(c)):
            out += values[base + ch * inner: base + (ch + 1) * inner]
    return out


def flip_npy(src, dst):
    data = open(src, "rb").read()
    assert data[:6] == b"\x93NUMPY", src
    major = data[6]
    hlen = struct.unpack("<H", data[8:10])[0] if major == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if major == 1 else 12) + hlen
    header = ast.literal_eval(data[start - hlen:start].decode("latin1"))
    assert not header["fortran_order"], src
    size = int(header["descr"][2:])
    shape = list(header["shape"])
    items = [data[start + i * size: start + (i + 1) * size] for i in range((len(data) - start) // size)]
    open(dst, "wb").write(data[:start] + b"".join(flip_list(items, shape)))


def main():
    case_path, actual, out = sys.argv[1:4]
    case = json.load(open(case_path))
    name = os.path.basename(case_path)[:-5]
    for field, values in case["inputs"].items():
        desc = case["desc"][field]
        if not isinstance(values, list) or "Strides" in desc:
            sys.exit(f"{case_path}: input {field} is not a packed list of values")
        case["inputs"][field] = flip_list(values, desc["Sizes"])
    case.pop("expected", None)
    os.makedirs(os.path.join(out, "case"), exist_ok=True)
    json.dump(case, open(os.path.join(out, "case", name + ".json"), "w"), indent=1)
    os.makedirs(os.path.join(out, "actual", name), exist_ok=True)
    for f in os.listdir(actual):
        if f.endswith(".npy"):
            flip_npy(os.path.join(actual, f), os.path.join(out, "actual", name, f))
    print(f"wrote {out}/case/{name}.json and {out}/actual/{name}/")


main()
