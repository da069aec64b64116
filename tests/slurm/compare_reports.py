#!/usr/bin/env python3
"""Compare two npu-advisor JSON reports apart from what names the input.

Usage: compare_reports.py DIRECT.json REDUCED.json

The direct cluster analysis (`analyze PROF`) and the reduce (`analyze --facts WORK/facts`)
differ only in what they were given: the `input` objects (path, and a description such as
"cluster of 8 rank folders" / "cluster of 8 rank facts files") and facts.cluster.input. Those
are blanked; everything else must be equal. Prints the first differences and exits 1 if any.
"""
import json
import sys


def normalise(report):
    report.get("input", {}).clear()
    report.get("summary", {}).get("input", {}).clear()
    cluster = report.get("facts", {}).get("cluster")
    if cluster is not None:
        cluster["input"] = ""
    return report


def differences(a, b, path=""):
    if type(a) is not type(b):
        yield f"{path}: {json.dumps(a)[:120]} vs {json.dumps(b)[:120]}"
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                yield f"{path}/{k}: only in the {'direct' if k in a else 'reduced'} report"
            else:
                yield from differences(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}/{i}")
    elif a != b:
        yield f"{path}: {json.dumps(a)[:120]} vs {json.dumps(b)[:120]}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        direct = normalise(json.load(f))
    with open(sys.argv[2]) as f:
        reduced = normalise(json.load(f))
    diffs = list(differences(direct, reduced))
    for d in diffs[:20]:
        print("differs:", d)
    if diffs:
        print(f"{len(diffs)} difference(s) between {sys.argv[1]} and {sys.argv[2]}")
        return 1
    print(f"same report apart from the input: {sys.argv[1]} and {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
