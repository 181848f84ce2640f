#!/usr/bin/env python3
"""Write the inputs of the pow calibration (docs/crosscheck-gpu.md, "pow"): float32 bases and
exponents as .npy, without numpy.

    python3 tools/crosscheck/pow_inputs.py DIR

DIR/b.npy, DIR/p.npy: 1,000,000 (base, exponent) pairs for torch.pow(tensor, tensor): half the
bases log-uniform over [2^-30, 2^30], half uniform over [0.5, 8] (LRN's B = Bias + Alpha/L S);
exponents uniform over [-4, 4] or one of SCALARS. DIR/bs.npy: 300,000 bases (the same mix) for
torch.pow(tensor, scalar) with each exponent of SCALARS (the path local_response_norm takes).
"""
import os
import random
import struct
import sys

SCALARS = [0.75, -0.75, 1.5, -1.75, -0.25, 0.3333333432674408]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def save(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def bases(r, n):
    out = []
    for i in range(n):
        out.append(f32(2.0 ** r.uniform(-30, 30)) if i % 2 == 0 else f32(r.uniform(0.5, 8)))
    return out


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    r = random.Random(20261123)
    b = bases(r, 1000000)
    p = [f32(r.uniform(-4, 4)) if i % 2 == 0 else f32(SCALARS[i // 2 % len(SCALARS)]) for i in range(len(b))]
    save(os.path.join(d, "b.npy"), b)
    save(os.path.join(d, "p.npy"), p)
    save(os.path.join(d, "bs.npy"), bases(r, 300000))
    with open(os.path.join(d, "scalars.txt"), "w") as f:
        f.write("\n".join(repr(s) for s in SCALARS) + "\n")
    print(f"wrote {len(b)} pairs and 300000 bases to {d}")


main()
