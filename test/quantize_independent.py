#!/usr/bin/env python3
"""An independent computation of the QUANTIZE and DEQUANTIZE goldens (docs/golden.md, "Quantize and
dequantize"): each case's quantization tensors are expanded to the input's sizes, block by block
(element i takes, along each dimension d, entry i_d // (InputSizes[d] // QSizes[d]): written here
from the rule, no dmlref code), and the element-wise case that results is recomputed with the
fractions of test/quantization_independent.py (ELEMENT_WISE_QUANTIZE_LINEAR's and
ELEMENT_WISE_DEQUANTIZE_LINEAR's element functions, which QUANTIZE and DEQUANTIZE share).
Usage: quantize_independent.py DIR   (prints "agree N differ M skipped K"; exits 1 when M > 0)
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quantization_independent as qi  # noqa: E402


def expand(sizes, qdesc, qvalues):
    """The entry of each input element's block (row-major over sizes)."""
    qs = qdesc["Sizes"]
    out = []
    n = 1
    for s in sizes:
        n *= s
    for i in range(n):
        coord, rest = [], i
        for s in reversed(sizes):
            coord.insert(0, rest % s)
            rest //= s
        flat = 0
        for c, s, q in zip(coord, sizes, qs):
            flat = flat * q + c // (s // q)
        out.append(qvalues[flat])
    return out


def compute(c):
    op = c["operator"].replace("DML_OPERATOR_", "")
    if op not in ("QUANTIZE", "DEQUANTIZE"):
        return None
    d, inp = c["desc"], c["inputs"]
    sizes = d["InputTensor"]["Sizes"]
    x = qi.logical(d["InputTensor"], inp["InputTensor"], d["InputTensor"]["DataType"])
    qts = d["QuantizationTensors"]
    scale = qts[0]
    s = expand(sizes, scale, qi.logical(scale, inp["QuantizationTensors[0]"], scale["DataType"]))
    flat = lambda t: {"DataType": t, "Sizes": [len(x)]}
    e = {"operator": "ELEMENT_WISE_" + op + "_LINEAR",
         "desc": {"InputTensor": flat(d["InputTensor"]["DataType"]), "ScaleTensor": flat(scale["DataType"]),
                  "OutputTensor": flat(d["OutputTensor"]["DataType"])},
         "inputs": {"InputTensor": x, "ScaleTensor": s}}
    if len(qts) > 1:
        z = expand(sizes, qts[1], qi.logical(qts[1], inp["QuantizationTensors[1]"], qts[1]["DataType"]))
        e["desc"]["ZeroPointTensor"] = flat(qts[1]["DataType"])
        e["inputs"]["ZeroPointTensor"] = z
    return qi.compute(e)


if __name__ == "__main__":
    qi.main(sys.argv[1], compute)
