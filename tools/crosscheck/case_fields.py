"""Fields of a dmlref case as the cross-check scripts read them (docs/case-format.md)."""
import numpy as np


def num(v):
    """A FLOAT field of a case: a JSON number, or the FLOAT32's bits as "0x3dcccccd"."""
    if isinstance(v, str) and v.startswith("0x"):
        return float(np.array([int(v, 16)], dtype=np.uint32).view(np.float32)[0])
    return float(v)
