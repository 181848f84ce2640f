#!/usr/bin/env python3
"""A planted buggy backend for `dmlref reduce` tests (docs/reduce.md's contract):

    planted_backend.py DMLREF BUG CASE.json OUTDIR

computes the case's outputs with dmlref itself (`dmlref run CASE --npy-outputs`) and then
plants one bug class in every output before writing OUTDIR/<OutputField>.npy:

    negative-zero   every -0.0 becomes +0.0 (as a scatter-add that starts from +0 does)
    nan-to-zero     every NaN becomes +0.0
    inf-to-max      every +inf becomes the largest finite value (a saturating conversion)
    last-bit        every value above 1 has its lowest bit flipped (a wrong rounding)

No numpy: .npy files are read and written with the standard library.
"""
import os
import subprocess
import sys
import tempfile

dmlref, bug, case, out = sys.argv[1:5]
WIDTH = {"<f2": 2, "<f4": 4, "<f8": 8}


def planted(descr, data):
    w = WIDTH.get(descr)
    if w is None:
        return data
    b = bytearray(data)
    for i in range(0, len(b), w):
        e = b[i:i + w]
        if bug == "negative-zero" and all(x == 0 for x in e[:-1]) and e[-1] == 0x80:
            b[i:i + w] = bytes(w)
        elif bug == "nan-to-zero":
            v = int.from_bytes(e, "little")
            ebits, mbits = {2: (5, 10), 4: (8, 23), 8: (11, 52)}[w]
            exp = (v >> mbits) & ((1 << ebits) - 1)
            if exp == (1 << ebits) - 1 and v & ((1 << mbits) - 1):
                b[i:i + w] = bytes(w)
        elif bug == "last-bit":
            v = int.from_bytes(e, "little")
            one = {2: 0x3c00, 4: 0x3f800000, 8: 0x3ff0000000000000}[w]
            ebits, mbits = {2: (5, 10), 4: (8, 23), 8: (11, 52)}[w]
            if one < v < ((1 << ebits) - 1) << mbits:
                b[i:i + w] = (v ^ 1).to_bytes(w, "little")
        elif bug == "inf-to-max":
            ebits, mbits = {2: (5, 10), 4: (8, 23), 8: (11, 52)}[w]
            inf = ((1 << ebits) - 1) << mbits
            if int.from_bytes(e, "little") == inf:
                b[i:i + w] = (inf - 1).to_bytes(w, "little")
    return bytes(b)


with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([dmlref, "run", "--quiet", case, "--npy-outputs", tmp], check=True, stdout=subprocess.DEVNULL)
    stem = os.path.splitext(os.path.basename(case))[0]
    for name in os.listdir(os.path.join(tmp, stem)):
        raw = open(os.path.join(tmp, stem, name), "rb").read()
        header_len = int.from_bytes(raw[8:10], "little")
        header = raw[10:10 + header_len].decode("latin1")
        descr = header.split("'descr': '")[1].split("'")[0]
        with open(os.path.join(out, name), "wb") as f:
            f.write(raw[:10 + header_len] + planted(descr, raw[10 + header_len:]))
