#!/usr/bin/env python3
"""Cross-check a GPU backend against dmlref's goldens: PyTorch's CUDA kernels for the
operators that have a direct PyTorch analogue.

    dmlref run cases --npy NPY            # inputs as .npy (on any machine)
    python3 tools/crosscheck/torch_cuda.py cases NPY OUT
    dmlref diff OUT/goldens OUT/actual    # judged by the tolerance model

For every golden in CASES whose operator and desc map onto PyTorch (packed tensors):
  ACTIVATION_RELU_GRAD  aten.threshold_backward(dY, X, 0)          (x <= 0 ? 0 : dY)
  MAX_POOLING_GRAD      max_pool2d / max_pool3d backward (symmetric padding, any dilation,
                        ceil mode when the golden's output size needs it; float types)
  SLICE_GRAD            autograd of indexing X with each dimension's window indices
it writes OUT/actual/<case>/OutputGradientTensor.npy and copies the golden to
OUT/goldens/<case>.json, so that `dmlref diff` can judge PyTorch's results. Cases it cannot map
are listed as skipped with the reason. PyTorch is a GPU backend of other frameworks, not of
DirectML: where it differs from the goldens it shows where backends read these operators
differently, which is what spec-clarification cases are for.
"""
import json
import os
import shutil
import sys

import numpy as np
import torch

DTYPES = {"FLOAT16": torch.float16, "FLOAT32": torch.float32, "FLOAT64": torch.float64,
          "INT8": torch.int8, "INT16": torch.int16, "INT32": torch.int32, "INT64": torch.int64,
          "UINT8": torch.uint8}


def tensor(npy_dir, field, desc, device):
    """The logical tensor of a packed input, from its buffer dump."""
    flat = np.load(os.path.join(npy_dir, field + ".npy"))
    n = int(np.prod(desc["Sizes"]))
    return torch.from_numpy(flat[:n].reshape(desc["Sizes"]).copy()).to(device)


def packed(d):
    return all("Strides" not in d[k] for k in d if isinstance(d[k], dict) and "Sizes" in d[k])


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


OPERATORS = {"ACTIVATION_RELU_GRAD": relu_grad, "MAX_POOLING_GRAD": max_pooling_grad, "SLICE_GRAD": slice_grad}


def main():
    cases, npy_root, out = sys.argv[1:4]
    dev = "cuda" if torch.cuda.is_available() else "cpu"
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
            try:
                if not packed(c["desc"]):
                    raise NotImplementedError("strided tensors")
                grad = OPERATORS[op](c["desc"], os.path.join(npy_root, rel), dev)
            except (NotImplementedError, RuntimeError) as e:
                print(f"skipped {rel}: {e}")
                continue
            torch.cuda.synchronize() if dev == "cuda" else None
            os.makedirs(os.path.join(out, "actual", rel), exist_ok=True)
            np.save(os.path.join(out, "actual", rel, "OutputGradientTensor.npy"), grad.detach().cpu().numpy())
            os.makedirs(os.path.dirname(os.path.join(out, "goldens", rel)), exist_ok=True)
            shutil.copy(path, os.path.join(out, "goldens", rel + ".json"))
            print(f"ran {rel}")


main()
