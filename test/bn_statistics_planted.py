#!/usr/bin/env python3
"""BATCH_NORMALIZATION_TRAINING's statistics bounds (docs/tolerance.md, "Batch normalization") on
backends written here in numpy:

    bn_statistics_planted.py DMLREF [WORKDIR] [--report]     (WORKDIR: a fresh temporary folder if not given)

Correct float32 backends pass `dmlref diff` (numpy's two-pass mean and variance, a sequential
E[X^2] - E[X]^2 loop, Welford's updates); backends with a semantic bug fail it at channels of
1,024 and 2,048 elements, FLOAT32 and FLOAT16 (FLOAT16 judged with `--accumulate float32`):

    bessel       the variance divided by n - 1, in OutputVariance and the normalization: OutputVariance
                 fails; OutputTensor (off by half as much) fails on the FLOAT32 channels of 1,024
    eps-outside  (X - mean) / (sqrt(variance) + Epsilon): OutputTensor fails
    wrong-axes   the statistics of every (N, C) plane over H, W only, not of every channel (reported
                 as the planes' averages): OutputTensor and OutputVariance fail

The goldens' OutputMeanTensor and OutputVarianceTensor are checked against the exact mean and
variance (Python fractions) rounded to the type. --report prints every output's worst
error/bound per backend. Data: X uniform on [-1, 3) (mean 1 against a spread of 1.15).

`--statistics stable` (two-pass or online statistics, not E[X^2] - E[X]^2) is judged too, on
those cases and on two FLOAT32 ones whose mean is large against the spread (channels of 1,024, X
uniform on [3, 5) and on [64, 65)), where the default `any` must admit the one-pass form's
cancellation: numpy's two-pass and Welford's updates still pass; bessel's OutputVariance passes
under any there but fails under stable; the one-pass loop passes under any and, on [64, 65),
fails under stable (intended: the profile claims the backend does not compute one-pass). Each
expected verdict there follows from the derivation (docs/tolerance.md, "Batch normalization"),
whose inequalities are checked on the data first:

    - stable's variance bound (the online form's, twice the two-pass one) is at most
      2 * 1.01 (e^2 + u (n + 6) (Var + 2 e max|X - mean| + e^2)) + u Var, e = 1.01 u (n + 1) max|X|
      the mean's error (u = 2^-24; the golden's half ULP included), and n - 1 moves the variance
      by Var / (n - 1), more;
    - any's variance bound is at least the one-pass form's 2 |mean| e_mean, with e_mean at least
      u min X (n - 1)(n + 2) / (2 n) (the order error of n terms of at least min X, times 1/n),
      more than n - 1's error;
    - on [64, 65) the one-pass loop's sum X^2 / n and mean^2 are floats in [2^12, 2^13), so its
      variance is a multiple of 2^-11: at least the exact variance's distance to that grid away,
      more than stable's bound on the channels where that distance is (at least one).
"""
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import numpy as np

args = [a for a in sys.argv[1:] if a != "--report"]
report = "--report" in sys.argv[1:]
dmlref = args[0]
_tmp = None if len(args) > 1 else tempfile.TemporaryDirectory()
work = args[1] if len(args) > 1 else _tmp.name
EPS = 2.0 ** -7  # Epsilon: eps-outside moves the output by up to Epsilon / 2 relative
STAT = ("OutputMeanTensor", "OutputVarianceTensor")
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


LARGE_MEAN = {"f32_c1024_m4": (3, 5), "f32_c1024_m64": (64, 65)}  # X's range: mean against spread


def cases():
    """(name, type, N x C x H x W): channels of 1,024 and 2,048 elements."""
    rng = np.random.default_rng(2026)
    for name, dt, shape in (("f32_c1024", "FLOAT32", (4, 3, 16, 16)), ("f32_c2048", "FLOAT32", (8, 2, 16, 16)),
                            ("f16_c1024", "FLOAT16", (4, 3, 16, 16)), ("f32_c1024_m4", "FLOAT32", (4, 3, 16, 16)),
                            ("f32_c1024_m64", "FLOAT32", (4, 3, 16, 16))):
        np_t = np.float32 if dt == "FLOAT32" else np.float16
        lo, hi = LARGE_MEAN.get(name, (-1, 3))
        x = rng.uniform(lo, hi, shape).astype(np_t)
        c = shape[1]
        scale = rng.uniform(0.5, 2, c).astype(np_t)
        bias = rng.uniform(-1, 1, c).astype(np_t)
        yield name, dt, x, scale, bias


def bits(a):
    """The values as raw bits (docs/case-format.md): exact, whatever the decimal reader."""
    w = 4 if a.dtype == np.float16 else 8
    return ["0x%0*x" % (w, int(v)) for v in a.ravel().view(np.uint16 if a.dtype == np.float16 else np.uint32)]


def write_case(path, name, dt, x, scale, bias):
    stat = [1, x.shape[1], 1, 1]
    t = lambda s: {"DataType": dt, "Sizes": list(s)}
    case = {"format": 1, "name": name, "description": "test/bn_statistics_planted.py",
            "operator": "DML_OPERATOR_BATCH_NORMALIZATION_TRAINING",
            "desc": {"InputTensor": t(x.shape), "ScaleTensor": t(stat), "BiasTensor": t(stat),
                     "OutputTensor": t(x.shape), "OutputMeanTensor": t(stat), "OutputVarianceTensor": t(stat),
                     "Epsilon": EPS},
            "inputs": {"InputTensor": bits(x), "ScaleTensor": bits(scale), "BiasTensor": bits(bias)}}
    with open(path, "w") as f:
        json.dump(case, f)


def round_to(f, np_t):
    """The Fraction f rounded to nearest, ties to even, in np_t (no double rounding)."""
    c = np_t(float(f))
    best = c
    for n in (np.nextafter(c, np_t(-np.inf)), np.nextafter(c, np_t(np.inf))):
        d, db = abs(Fraction(float(n)) - f), abs(Fraction(float(best)) - f)
        if d < db or (d == db and int(n.view(np.uint16 if np_t == np.float16 else np.uint32)) % 2 == 0):
            best = n
    return best


# ---- The backends: float32 arithmetic (FLOAT16 data widened), outputs rounded to the type ------

def normalize(x, mean, var, scale, bias, root):
    m, s, b = (a.reshape(1, -1, 1, 1) for a in (mean, scale, bias))
    return ((x - m) * s / root(var.reshape(1, -1, 1, 1)) + b).astype(np.float32)


def two_pass(x):
    m = x.mean(axis=(0, 2, 3), dtype=np.float32)
    v = ((x - m.reshape(1, -1, 1, 1)) ** 2).mean(axis=(0, 2, 3), dtype=np.float32)
    return m, v


def one_pass(x):
    """A sequential loop: sum X and sum X^2, then E[X^2] - E[X]^2, all in float32."""
    c = x.shape[1]
    flat = np.moveaxis(x, 1, 0).reshape(c, -1)
    n = np.float32(flat.shape[1])
    s = np.cumsum(flat, axis=1, dtype=np.float32)[:, -1]  # cumsum adds in order
    s2 = np.cumsum(flat * flat, axis=1, dtype=np.float32)[:, -1]
    m = (s / n).astype(np.float32)
    return m, (s2 / n - m * m).astype(np.float32)


def welford(x):
    c = x.shape[1]
    flat = np.moveaxis(x, 1, 0).reshape(c, -1)
    m, M2 = np.zeros(c, np.float32), np.zeros(c, np.float32)
    for k in range(flat.shape[1]):
        v = flat[:, k]
        d = (v - m).astype(np.float32)
        m = (m + d / np.float32(k + 1)).astype(np.float32)
        M2 = (M2 + d * (v - m)).astype(np.float32)
    return m, (M2 / np.float32(flat.shape[1])).astype(np.float32)


def backend(kind, x, scale, bias):
    eps = np.float32(EPS)
    root = lambda v: np.sqrt(v + eps)
    if kind == "wrong-axes":  # per (N, C) plane
        m = x.mean(axis=(2, 3), keepdims=True, dtype=np.float32)
        v = ((x - m) ** 2).mean(axis=(2, 3), keepdims=True, dtype=np.float32)
        y = ((x - m) * scale.reshape(1, -1, 1, 1) / np.sqrt(v + eps) + bias.reshape(1, -1, 1, 1)).astype(np.float32)
        return y, m.mean(axis=0).ravel().astype(np.float32), v.mean(axis=0).ravel().astype(np.float32)
    m, v = {"two-pass": two_pass, "one-pass": one_pass, "welford": welford}.get(kind, two_pass)(x)
    if kind == "bessel":
        n = x.size // x.shape[1]
        v = (v * np.float32(n) / np.float32(n - 1)).astype(np.float32)
    if kind == "eps-outside":
        root = lambda v: np.sqrt(v) + eps
    return normalize(x, m, v, scale, bias, root), m, v


CORRECT = ("two-pass", "one-pass", "welford")
PLANTED = ("bessel", "eps-outside", "wrong-axes")

golden_dir, case_dir = os.path.join(work, "golden"), os.path.join(work, "cases")
os.makedirs(case_dir, exist_ok=True)
data = {}
for name, dt, x, scale, bias in cases():
    write_case(os.path.join(case_dir, name + ".json"), name, dt, x, scale, bias)
    data[name] = (dt, x, scale, bias)
r = subprocess.run([dmlref, "run", case_dir, "-o", golden_dir], capture_output=True, text=True)
check(r.returncode == 0, "dmlref run writes the goldens " + r.stderr.strip()[-300:])

# The goldens' statistics: the exact mean and variance rounded once.
for name, (dt, x, scale, bias) in data.items():
    g = json.load(open(os.path.join(golden_dir, name + ".json")))["expected"]
    np_t = np.float32 if dt == "FLOAT32" else np.float16
    for k in range(x.shape[1]):
        vals = [Fraction(float(v)) for v in x[:, k].ravel()]
        mean = sum(vals) / len(vals)
        var = sum((v - mean) ** 2 for v in vals) / len(vals)
        check(np_t(g["OutputMeanTensor"]["Values"][k]) == round_to(mean, np_t)
              and np_t(g["OutputVarianceTensor"]["Values"][k]) == round_to(var, np_t),
              f"{name} channel {k}: the golden mean and variance are the exact ones rounded")

U = Fraction(1, 2 ** 24)  # FLOAT32's unit roundoff


def channel_premises(name, x):
    """Per channel of a large-mean case: the derivation's inequalities behind the expected verdicts
    (the module's docstring), checked here on the exact statistics. Returns (bessel_caught_by_stable,
    bessel_admitted_by_any, one_pass_caught_by_stable) per channel."""
    n = x[:, 0].size
    out = []
    for k in range(x.shape[1]):
        vals = [Fraction(float(v)) for v in x[:, k].ravel()]
        mean = sum(vals) / n
        var = sum((v - mean) ** 2 for v in vals) / n
        e = Fraction(101, 100) * U * (n + 1) * max(abs(v) for v in vals)  # the mean's error, at most
        dmax = max(abs(v - mean) for v in vals)
        two = Fraction(101, 100) * (e * e + U * (n + 6) * (var + 2 * e * dmax + e * e))
        stable = 2 * two + U * var  # at least stable's variance bound, the golden's half ULP included
        bessel_off = var / (n - 1)  # n - 1's move of the variance
        # Stable rejects it beyond its bound and the float's own rounding.
        caught = bessel_off > stable + 2 * U * var
        lower = 2 * abs(mean) * U * min(vals) * (n - 1) * (n + 2) / (2 * n)  # below any's variance bound
        admitted = lower > bessel_off + 3 * U * var
        one_pass = False
        if name == "f32_c1024_m64":
            grid = Fraction(1, 2 ** 11)
            off_grid = abs(var - grid * round(var / grid))
            one_pass = off_grid > stable + U * var
        out.append((caught, admitted, one_pass))
    return out


premises = {name: channel_premises(name, data[name][1]) for name in LARGE_MEAN}
for name, p in premises.items():
    check(all(c and a for c, a, _ in p), f"{name}: n - 1 is beyond stable's bound and within any's on every channel")
check(any(o for _, _, o in premises["f32_c1024_m64"]),
      "f32_c1024_m64: the one-pass grid puts some channel beyond stable's bound")

for kind in CORRECT + PLANTED:
    actual = os.path.join(work, "actual-" + kind)
    for name, (dt, x, scale, bias) in data.items():
        np_t = np.float32 if dt == "FLOAT32" else np.float16
        y, m, v = backend(kind, x.astype(np.float32), scale.astype(np.float32), bias.astype(np.float32))
        os.makedirs(os.path.join(actual, name), exist_ok=True)
        c = x.shape[1]
        for field, a in (("OutputTensor", y), ("OutputMeanTensor", m.reshape(1, c, 1, 1)),
                         ("OutputVarianceTensor", v.reshape(1, c, 1, 1))):
            np.save(os.path.join(actual, name, field + ".npy"), a.astype(np_t))
    for profile in ("any", "float32"):
        for stats in ("any", "stable"):
            js = os.path.join(work, f"{kind}-{profile}-{stats}.json")
            subprocess.run([dmlref, "diff", golden_dir, actual, "--accumulate", profile, "--statistics", stats,
                            "--json", js], capture_output=True, text=True)
            report_json = json.load(open(js))
            check(report_json["profile"]["statistics"] == stats, f"{kind} ({profile}, {stats}): the report's profile")
            where = f"{profile}" if stats == "any" else f"{profile}, stable"
            for case in report_json["cases"]:
                name = case["name"]
                if profile == "any" and data[name][0] == "FLOAT16":
                    continue  # FLOAT16 sums in FLOAT16 over 1,024 terms bound nothing: judged under float32
                outs = {o["output"]: o for o in case["outputs"]}
                if report:
                    print("      ", kind, where, name,
                          " ".join(f"{f}={outs[f].get('worst_ratio')}" for f in sorted(outs)))
                if name in LARGE_MEAN:
                    if profile != "any":
                        continue  # FLOAT32 data: float32 is one of any's precisions, nothing new
                    if kind in ("two-pass", "welford") or (kind == "one-pass" and stats == "any"):
                        check(case["status"] == "pass", f"{kind} {name} ({where}) passes")
                    elif kind == "one-pass" and name == "f32_c1024_m64":  # stable: the grid
                        check(not outs["OutputVarianceTensor"]["passed"],
                              f"one-pass {name} ({where}): OutputVariance fails (intended: stable excludes it)")
                    elif kind == "bessel":
                        ok = outs["OutputVarianceTensor"]["passed"] == (stats == "any")
                        check(ok, f"bessel {name} ({where}): OutputVariance "
                              + ("passes (any admits one-pass)" if stats == "any" else "fails"))
                    continue
                # Stable's bounds are at most any's (the same forms but one-pass): what fails under
                # any fails under stable; the one-pass backend is not claimed under stable.
                if kind in CORRECT:
                    if kind != "one-pass" or stats == "any":
                        check(case["status"] == "pass", f"{kind} {name} ({where}) passes")
                elif kind == "bessel":
                    # n / (n - 1): the variance is off by 1/n relative, the normalization by 1/(2n),
                    # which only FLOAT32 channels of 1,024 elements put beyond the output's bound.
                    check(not outs["OutputVarianceTensor"]["passed"], f"bessel {name} ({where}): OutputVariance fails")
                    if name == "f32_c1024":
                        check(not outs["OutputTensor"]["passed"], f"bessel {name} ({where}): OutputTensor fails")
                elif kind == "eps-outside":
                    check(not outs["OutputTensor"]["passed"], f"eps-outside {name} ({where}): OutputTensor fails")
                else:  # the mean of the planes' means is the channel's: OutputMean is right
                    check(not outs["OutputTensor"]["passed"] and not outs["OutputVarianceTensor"]["passed"],
                          f"wrong-axes {name} ({where}): OutputTensor and OutputVariance fail")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
