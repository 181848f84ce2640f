#!/usr/bin/env python3
"""Per-operator tally of `dmlref diff --json` reports: cases ran and passed, one column per backend.

    python3 tools/crosscheck/tally.py cuda=out/report.json cpu=out-cpu/report.json

Prints a Markdown table (operator, then "ran, passed" per backend), the form docs/crosscheck-gpu.md uses."""
import json
import sys
from collections import defaultdict


def main():
    backends = [a.split("=", 1) for a in sys.argv[1:]]
    rows = defaultdict(dict)
    for name, path in backends:
        for c in json.load(open(path))["cases"]:
            op = c["operator"].removeprefix("DML_OPERATOR_")
            ran, passed = rows[op].get(name, (0, 0))
            rows[op][name] = (ran + 1, passed + (c["status"] == "pass"))
    print("| operator | " + " | ".join(f"{n}: ran, pass" for n, _ in backends) + " |")
    print("|---|" + "---|" * len(backends))
    for op in sorted(rows):
        print(f"| {op} | " + " | ".join("%d, %d" % rows[op][n] if n in rows[op] else "-" for n, _ in backends) + " |")


if __name__ == "__main__":
    main()
