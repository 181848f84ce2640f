#!/usr/bin/env python3
"""The Python module dmlref (docs/python.md), imported from the build (PYTHONPATH), against values
read independently: the goldens' JSON read with json and numpy (never through the module), hand
derivations, and `dmlref diff` run on the same data written as .npy.

Usage: python_module.py DMLREF SOURCE_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import dmlref

dmlref_exe, root = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += not ok


UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def values_from_json(values, dtype):
    """A case's JSON values as an array (docs/case-format.md, "Values"): numbers, "nan", "inf",
    "-inf" and "0x" bits; decimals here are exact in the type."""
    dtype = np.dtype(dtype)
    out = np.zeros(len(values), dtype)
    bits = out.view(UINT[dtype.itemsize])
    for i, v in enumerate(values):
        if isinstance(v, str) and v.startswith("0x"):
            bits[i] = int(v, 16)
        else:
            out[i] = float(v) if dtype.kind == "f" else int(v)
    return out


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.view(UINT[a.dtype.itemsize]), b.view(UINT[b.dtype.itemsize]))


def raises(rule, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except dmlref.Error as e:
        return e.rule == rule and f"[{rule}]" in str(e), f"{e.rule}: {e}"
    except Exception as e:  # any other exception is a failure of the module's contract
        return False, f"{type(e).__name__}: {e}"
    return False, "no exception"


case = lambda rel: os.path.join(root, "cases", rel)  # noqa: E731
clip = case("clip/clip1_float16_dxdispatch_example.json")
upsample = case("resample/linear_upsample_2x2_to_4x4.json")
zero_taps = case("resample/zero_weight_taps_add_nothing.json")

# run: a bundled FLOAT16 case; its expected values read from the JSON.
doc = json.load(open(clip))
out = dmlref.run(clip)
want = values_from_json(doc["expected"]["OutputTensor"]["Values"], np.float16)
check(list(out) == ["OutputTensor"] and same_bits(out["OutputTensor"], want), "run: CLIP1 FLOAT16 outputs as numpy.float16, as the golden's JSON")

# run: a 2-D LINEAR resample, against the golden's JSON and a bilinear interpolation by hand
# (x = (o + 0.5) / 2 - 0.5 clamped to [0, 1], in both dimensions).
doc = json.load(open(upsample))
out = dmlref.run(upsample)["OutputTensor"]
want = values_from_json(doc["expected"]["OutputTensor"]["Values"], np.float32).reshape(4, 4)
x = np.clip((np.arange(4) + 0.5) / 2 - 0.5, 0, 1)
w = np.stack([1 - x, x], axis=1)  # weights of input rows/columns 0 and 1
by_hand = (w @ np.array([[1.0, 2.0], [3.0, 4.0]]) @ w.T).astype(np.float32)
check(out.shape == (4, 4) and same_bits(out, want) and same_bits(out, by_hand), "run: RESAMPLE2 LINEAR 2x2 -> 4x4 in its Sizes, as the JSON and by hand")

# read_golden: inputs, expected values, operator and policies, as the JSON says.
g = dmlref.read_golden(upsample)
check(g.operator == doc["operator"] and g.policies == doc["policies"] and g.name == doc["name"], "read_golden: operator, name, policies")
check(same_bits(g.inputs["InputTensor"], values_from_json(doc["inputs"]["InputTensor"], np.float32).reshape(2, 2)), "read_golden: inputs in their Sizes")
check(same_bits(g.expected["OutputTensor"], want) and g.tolerances["OutputTensor"]["Kind"] == "Summed", "read_golden: expected values and tolerance")

# run under an alternative reading: the values the golden's "readings" records for it.
zdoc = json.load(open(zero_taps))
alt = dmlref.run(zero_taps, {"ZeroWeightTaps": "MultiplyAll"})["OutputGradientTensor"]
want_alt = values_from_json(zdoc["readings"]["ZeroWeightTaps=MultiplyAll"]["OutputGradientTensor"]["Values"], np.float32)
check(np.isinf(alt[0]) and np.isnan(alt[1]) and np.array_equal(np.isnan(alt), np.isnan(want_alt)), "run with policies: ZeroWeightTaps=MultiplyAll gives [inf, nan]")

# run: a descriptor, as `dmlref run DESCRIPTOR --npy-outputs` computes it.
desc = "SLICE1 INT8 5x6 s-2x3 o1x0 ws4x6"
sliced = dmlref.run(desc)["OutputTensor"]
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([dmlref_exe, "run", desc, "--npy-outputs", tmp, "-q"], check=True, capture_output=True)
    files = [os.path.join(d, f) for d, _, fs in os.walk(tmp) for f in fs]
    check(len(files) == 1 and same_bits(sliced, np.load(files[0])) and sliced.dtype == np.int8, "run: a descriptor, as the command line runs it")

# diff: the golden's own values pass; a planted wrong array fails as `dmlref diff` says on the same
# data written as .npy (verdict, exit code, elements over, the text report but for the source).
r = dmlref.diff(upsample, {"OutputTensor": want})
check(r.passed and r.exit_code == 0 and r.over == 0 and bool(r) and r.outputs["OutputTensor"].identical == 16, "diff: the expected values pass")
planted = want.copy()
planted[1, 1] += 0.5
planted[2, 2] = -planted[2, 2]
r = dmlref.diff(upsample, {"OutputTensor": planted})
o = r.outputs["OutputTensor"]
check(not r.passed and r.exit_code == 1 and r.over == 2 and o.over == 2 and o.identical == 14, "diff: a planted wrong array fails, 2 elements over")
with tempfile.TemporaryDirectory() as tmp:
    npy = os.path.join(tmp, "planted.npy")
    np.save(npy, planted)
    report = os.path.join(tmp, "report.json")
    cli = subprocess.run([dmlref_exe, "diff", upsample, npy, "--json", report], capture_output=True, text=True)
    rep = json.load(open(report))
    cli_out = rep["cases"][0]["outputs"][0]
    check(cli.returncode == r.exit_code and cli_out["over"] == o.over and cli_out["identical"] == o.identical, "diff: the command line gives the same exit code and counts")
    check(cli.stdout.replace("from " + npy, "from the array for OutputTensor") == r.text, "diff: the command line's text report, word for word")
    check(json.loads(r.json)["cases"][0]["outputs"][0]["over"] == 2, "diff: the JSON report")
# The statistics profile (docs/tolerance.md, "Batch normalization") reaches the report.
r = dmlref.diff(upsample, {"OutputTensor": want}, statistics="stable")
check(r.passed and json.loads(r.json)["profile"]["statistics"] == "stable" and "statistics=stable" in r.text,
      "diff: statistics=stable, in the JSON and text reports")

# diff with TMPDIR naming no folder: its arrays go to /tmp.
saved = os.environ.get("TMPDIR")
os.environ["TMPDIR"] = "/nonexistent-dmlref-tmpdir"
try:
    ok = dmlref.diff(upsample, {"OutputTensor": want}).passed
except Exception as e:
    ok = False
    print(f"     {type(e).__name__}: {e}")
finally:
    if saved is None:
        del os.environ["TMPDIR"]
    else:
        os.environ["TMPDIR"] = saved
check(ok, "diff: TMPDIR that names no folder")

# diff names the reading a backend follows.
r = dmlref.diff(zero_taps, {"OutputGradientTensor": alt})
check(not r.passed and r.reading == "ZeroWeightTaps=MultiplyAll" and r.readings == {"ZeroWeightTaps=MultiplyAll": 1}, "diff: names the reading ZeroWeightTaps=MultiplyAll")

# diff of an element several writes reach with different bits (the golden's Admissible lists,
# DuplicateIndex=AnyWrite): each listed value passes, a sum of the writes does not.
anywrite = case("scatter/scatter_elements_duplicates_any_write.json")
first = np.array([[10, 2, 30], [4, 0, 6]], dtype=np.float32)  # the first write of each, by hand
r = dmlref.diff(anywrite, {"OutputTensor": first})
check(r.passed and "the backend wrote the 1st" in r.text, "diff: the first admissible writes pass, as the report says")
summed = np.array([[10, 2, 30], [4, 7.5, 6]], dtype=np.float32)  # 0 + 7 + 0.5 at (1, 1)
r = dmlref.diff(anywrite, {"OutputTensor": summed})
check(not r.passed and r.over == 1 and "none of them" in r.text, "diff: the sum of the writes fails")

# Errors raise dmlref.Error with the rule id, and the interpreter goes on.
for rule, fn, args, kwargs, what in [
    ("file.read", dmlref.run, ["/nonexistent/case.json"], {}, "run: a path that does not exist"),
    ("descriptor.syntax", dmlref.run, ["SLICE1 INT8 5x6 nonsense"], {}, "run: a bad descriptor"),
    ("policy.unknown-name", dmlref.run, [clip, {"NoSuchPolicy": "X"}], {}, "run: an unknown policy"),
    ("file.read", dmlref.read_golden, ["/nonexistent/golden.json"], {}, "read_golden: a path that does not exist"),
    ("file.read", dmlref.read_golden, [clip + "\0.json"], {}, "read_golden: a path with a NUL byte"),
    ("file.read", dmlref.diff, [os.path.join(root, "cases"), {}], {}, "diff: a folder for the golden"),
    ("file.read", dmlref.diff, ["/nonexistent/golden.json", {}], {}, "diff: a golden that does not exist"),
    ("diff", dmlref.diff, [upsample, {"OutputTensor": want.astype(np.float64)}], {}, "diff: an array of the wrong dtype"),
    ("diff", dmlref.diff, [upsample, {"OutputTensor": want[:3]}], {}, "diff: an array of the wrong shape"),
    ("diff", dmlref.diff, [upsample, {"Output": want}], {}, "diff: an array for no output"),
    ("python.array", dmlref.diff, [upsample, {"OutputTensor": want.astype(np.complex64)}], {}, "diff: an array of no element type"),
    ("python.option", dmlref.diff, [upsample, {"OutputTensor": want}], {"accumulate": "float16"}, "diff: a bad option value"),
    ("python.option", dmlref.diff, [upsample, {"OutputTensor": want}], {"statistics": "welford"}, "diff: a bad statistics value"),
]:
    ok, got = raises(rule, fn, *args, **kwargs)
    check(ok, f"{what} raises [{rule}]" + ("" if ok else f" (got {got})"))

with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.json")
    doc = json.load(open(clip))
    doc["desc"]["InputTensor"]["Sizes"] = [0]
    json.dump(doc, open(bad, "w"))
    try:
        dmlref.read_golden(bad)
        check(False, "read_golden: a zero size raises")
    except dmlref.Error as e:
        check(e.rule == "tensor.sizes.positive" and e.pointer == "/desc/InputTensor/Sizes/0" and e.file == bad, "read_golden: a bad desc raises with its rule and JSON pointer")

print(f"python-module: {failures} failed" if failures else "python-module: all passed")
sys.exit(1 if failures else 0)
