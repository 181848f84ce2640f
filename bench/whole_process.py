#!/usr/bin/env python3
"""Whole-process figures for dmlref: wall time and peak RSS of `run`, `run -o`,
`validate`, `diff` and reading a golden back, on one FLOAT32 ACTIVATION_RELU case of N elements
(Random input), with peak RSS as a multiple of the case's tensor bytes (input + output). Also the
golden I/O rates: an inline JSON golden (--npy-threshold above N) written and read, and .npy
files written (--npy-outputs) and read (diff against them).

Usage: bench/whole_process.py DMLREF [N] [--peer DMLREF2] [--dir DIR]
With --peer, every row is measured for both binaries in the same run (the peer first), and the
ratio column is peer time / DMLREF time. Peak RSS comes from wait4 (the kernel's ru_maxrss).
Times are wall seconds and, in brackets, CPU seconds (user + system): on a shared, loaded
machine the CPU seconds are the process's own work, the wall seconds include waiting for a core
and for the disk (goldens and .npy files are flushed to disk before they are renamed into place).
"""
import argparse, json, os, platform, shutil, subprocess, sys, tempfile, time


def measure(cmd, cwd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    return (wall, ru.ru_utime + ru.ru_stime), ru.ru_maxrss * 1024, rc, err.decode(errors="replace")


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.node()}: {cpu}, {os.cpu_count()} cores, load {load:.1f}"


def rows_for(dmlref, n, work, supports_threshold):
    """(name, command, MB of the file it reads or writes or None) in order; each depends on the ones before."""
    big = 1 << 62
    thr = ["--npy-threshold", str(big)] if supports_threshold else []
    return [
        ("run (evaluate, no golden)", [dmlref, "run", "-q", "-j", "1", "case.json"], None),
        ("run -o (golden; .npy beside where supported)",
         [dmlref, "run", "-q", "-j", "1", "case.json", "-o", "gold"], None),
        ("validate golden", [dmlref, "validate", "gold/case.json"], None),
        ("run golden (read back, compare)", [dmlref, "run", "-q", "-j", "1", "gold/case.json"], None),
        ("run --npy-outputs (write .npy)", [dmlref, "run", "-q", "-j", "1", "case.json", "--npy-outputs", "act"], None),
        ("diff golden vs .npy", [dmlref, "diff", "gold/case.json", "act/case"], None),
        ("run -o inline JSON golden", [dmlref, "run", "-q", "-j", "1", "case.json", "-o", "inline"] + thr, "inline/case.json"),
        ("validate inline JSON golden", [dmlref, "validate", "inline/case.json"], "inline/case.json"),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dmlref")
    ap.add_argument("n", nargs="?", type=int, default=16 << 20)
    ap.add_argument("--peer", help="another dmlref binary (e.g. the last release) measured in the same run")
    ap.add_argument("--dir", help="work folder (default: a temporary one, removed after)")
    a = ap.parse_args()
    work_root = a.dir or tempfile.mkdtemp(prefix="dmlref-whole-")
    tensor_bytes = 2 * 4 * a.n  # input + output, FLOAT32
    case = {"format": 1, "name": "whole", "operator": "DML_OPERATOR_ACTIVATION_RELU",
            "desc": {"InputTensor": {"DataType": "FLOAT32", "Sizes": [a.n]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [a.n]}},
            "inputs": {"InputTensor": {"Random": {"Seed": 1}}}}
    binaries = ([("peer", os.path.abspath(a.peer))] if a.peer else []) + [("dmlref", os.path.abspath(a.dmlref))]
    results = {}
    for label, exe in binaries:
        work = os.path.join(work_root, label)
        os.makedirs(work, exist_ok=True)
        with open(os.path.join(work, "case.json"), "w") as f:
            json.dump(case, f)
        help_text = subprocess.run([exe, "run", "--help"], capture_output=True, text=True).stdout
        for name, cmd, sized in rows_for(exe, a.n, work, "--npy-threshold" in help_text):
            print(f"  {label}: {name} ...", file=sys.stderr, flush=True)
            wall, rss, rc, err = measure(cmd, work)
            mb = os.path.getsize(os.path.join(work, sized)) / 1e6 if sized and os.path.exists(os.path.join(work, sized)) else None
            if rc not in (0, 1):
                print(f"  {label}: {name}: exit {rc}: {err[:300]}", file=sys.stderr)
            results.setdefault(name, {})[label] = (wall, rss, rc, mb)
        if not a.dir:
            shutil.rmtree(work, ignore_errors=True)
    if not a.dir:
        shutil.rmtree(work_root, ignore_errors=True)

    print(f"machine: {machine()}")
    print(f"case: ACTIVATION_RELU FLOAT32, {a.n} elements; tensor bytes (input + output) {tensor_bytes / 2**20:.0f} MiB")
    head = "| command | time (s) [CPU] | peak RSS (MiB) | peak / tensor bytes |"
    sep = "|---|---|---|---|"
    if a.peer:
        head = "| command | peer time (s) [CPU] | time (s) [CPU] | CPU ratio (peer / this) | peer peak / tensor | peak / tensor |"
        sep = "|---|---|---|---|---|---|"
    print(head)
    print(sep)
    def t(x, mb):
        (w, cpu) = x
        return f"{w:.2f} [{cpu:.2f}]" + (f" ({mb:.0f} MB, {mb / cpu:.0f} MB/s of CPU)" if mb else "")
    for name, by in results.items():
        if "dmlref" not in by:
            continue
        w, r, rc, mb = by["dmlref"]
        if a.peer and "peer" in by:
            pw, pr, prc, pmb = by["peer"]
            print(f"| {name} | {t(pw, pmb)} | {t(w, mb)} | {pw[1] / max(w[1], 1e-3):.1f} | {pr / tensor_bytes:.2f} | {r / tensor_bytes:.2f} |")
        else:
            print(f"| {name} | {t(w, mb)} | {r / 2**20:.0f} | {r / tensor_bytes:.2f} |")


if __name__ == "__main__":
    main()
