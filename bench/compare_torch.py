#!/usr/bin/env python3
"""ReluGrad: dmlref against PyTorch's CPU threshold_backward, measured in the same run.

Runs bench_elementwise (dmlref, memcpy and raw-loop peers), then times
torch.ops.aten.threshold_backward(dY, X, 0, out=dX) into a preallocated buffer on one thread
with the same sizes and types, and prints the ratio dmlref / PyTorch per type.

    python3 bench/compare_torch.py BUILD/bench/bench_elementwise [elements] [repeats]
"""
import subprocess
import sys
import time

import torch

binary = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 24
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 20
torch.set_num_threads(1)

out = subprocess.run([binary, str(n), str(repeats)], check=True, capture_output=True, text=True).stdout
print(out, end="")
dmlref = {}
for line in out.splitlines()[2:]:
    f = line.split()
    dmlref[f[0]] = float(f[1])

types = {"FLOAT32": torch.float32, "FLOAT16": torch.float16, "FLOAT64": torch.float64, "INT32": torch.int32, "INT8": torch.int8}
g = torch.Generator().manual_seed(1)
print(f"\ntorch {torch.__version__} threshold_backward(out=), one thread (G elements/s)")
print(f"{'type':8} {'dmlref':>10} {'pytorch':>10} {'dmlref/pytorch':>16}")
for name, dtype in types.items():
    x = torch.randint(-100, 100, (n,), generator=g).to(dtype)
    dy = torch.randint(0, 100, (n,), generator=g).to(dtype)
    dx = torch.empty_like(dy)
    try:
        torch.ops.aten.threshold_backward(dy, x, 0, grad_input=dx)
    except Exception as e:  # a type PyTorch's CPU kernel does not take
        print(f"{name:8} {dmlref.get(name, 0):10.2f} {'n/a':>10} {'':>16}  ({type(e).__name__})")
        continue
    best = 1e30
    for _ in range(repeats):
        t0 = time.perf_counter()
        torch.ops.aten.threshold_backward(dy, x, 0, grad_input=dx)
        best = min(best, time.perf_counter() - t0)
    speed = n / best / 1e9
    print(f"{name:8} {dmlref[name]:10.2f} {speed:10.2f} {dmlref[name] / speed:16.2f}")
