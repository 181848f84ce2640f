#!/usr/bin/env python3
"""The GPU half of the pow calibration (docs/crosscheck-gpu.md, "pow"): torch.pow in float32 on
CUDA for the inputs pow_inputs.py wrote.

    python3 tools/crosscheck/pow_cuda.py DIR OUT

OUT/pow_tt.npy = torch.pow(b, p) (tensor, tensor); OUT/pow_ts.npy = torch.pow(bs, s) for each
scalar s of DIR/scalars.txt in turn, concatenated. pow_ulp (pow_ulp.cpp) measures them here.
"""
import os
import sys

import numpy as np
import torch

d, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
dev = "cuda"
print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
b = torch.from_numpy(np.load(os.path.join(d, "b.npy"))).to(dev)
p = torch.from_numpy(np.load(os.path.join(d, "p.npy"))).to(dev)
np.save(os.path.join(out, "pow_tt.npy"), torch.pow(b, p).cpu().numpy())
bs = torch.from_numpy(np.load(os.path.join(d, "bs.npy"))).to(dev)
scalars = [float(s) for s in open(os.path.join(d, "scalars.txt")).read().split()]
np.save(os.path.join(out, "pow_ts.npy"), torch.cat([torch.pow(bs, s) for s in scalars]).cpu().numpy())
print("pow done")
