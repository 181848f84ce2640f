#!/usr/bin/env python3
"""Of one planted bug's cases, how many change the backend's own output bits, and how many of
those `dmlref diff` rejected (docs/crosscheck-gpu.md, "The remaining planted bugs").

    python3 tools/crosscheck/planted_tally.py OUT BUG REPORT.json

OUT is torch_compute.py's output folder (OUT/goldens, OUT/actual, OUT/planted/BUG) and REPORT
the `dmlref diff OUT/goldens OUT/planted/BUG --json REPORT` report. A bug that leaves a case's
bits unchanged (a transposed symmetric matrix, a shift over zeros) cannot be caught there, so
those cases are counted apart."""
import filecmp
import json
import os
import sys


def main():
    out, bug, report = sys.argv[1:4]
    status = {os.path.relpath(c["golden"], os.path.join(out, "goldens"))[:-5]: c["status"]
              for c in json.load(open(report))["cases"]}
    root = os.path.join(out, "planted", bug)
    changed = set()
    cases = set()
    for d, _, files in os.walk(root):
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            case = os.path.dirname(rel)
            cases.add(case)
            if not filecmp.cmp(os.path.join(root, rel), os.path.join(out, "actual", rel), shallow=False):
                changed.add(case)
    rejected = sum(status.get(c) == "fail" for c in changed)
    print(f"{bug}: {len(changed)} cases changed ({len(cases - changed)} unchanged), {rejected} rejected")


if __name__ == "__main__":
    main()
