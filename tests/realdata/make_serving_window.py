#!/usr/bin/env python3
"""A multi-iteration serving window built from a real single-iteration one, as an engine runs:
copy k of every event is shifted by k * (span + 1 ms), its correlation, flow and Python ids made
unique, and its batch size written into the engine's names (SGLang `step[DECODE bs=N]`, vLLM /
TraceLens `execute_N_context_0(...)_generation_N(...)`), so that the window holds several
iterations with varying batch sizes, in order (tests/realdata/inference_realdata_test.cpp).

    make_serving_window.py IN.json.gz OUT.json --batches 32,31,32,30,29

Each copy keeps the hole of the cut original (the previous batch's device work is not in it): an
iteration's own window is the original's.

    make_serving_window.py IN.json.gz OUT.json --batches 32,30 --scales 1,1.2

--scales stretches copy k in time by its factor (every timestamp's distance from the original's
start and every duration): its own window, hole and busy time are the original's times the
factor, so two windows of known times can be compared (tests/realdata/inference_compare_realdata_test.cpp).
Standard library only.
"""
import argparse
import gzip
import json
import re

ID_STRIDE = 10_000_000
SGLANG = re.compile(r"^step\[(\w+) bs=\d+")
DETAILED = re.compile(r"^execute_\d+_context_0(\(.*?\))_generation_\d+")


def rename(name, bs):
    name = SGLANG.sub(lambda m: f"step[{m[1]} bs={bs}", name)
    return DETAILED.sub(lambda m: f"execute_{bs}_context_0{m[1]}_generation_{bs}", name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--batches", required=True)
    ap.add_argument("--scales", help="one time factor per batch (default 1 each)")
    a = ap.parse_args()
    batches = [int(b) for b in a.batches.split(",")]
    scales = [float(s) for s in a.scales.split(",")] if a.scales else [1.0] * len(batches)
    if len(scales) != len(batches):
        ap.error("--scales needs one factor per batch")
    doc = json.load(gzip.open(a.input) if a.input.endswith(".gz") else open(a.input))
    events = doc["traceEvents"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    lo = min(float(e["ts"]) for e in timed)
    hi = max(float(e["ts"]) + float(e.get("dur", 0)) for e in timed)
    out = [e for e in events if e.get("ph") == "M" or "ts" not in e]
    start = lo  # us: where copy k starts, each copy (hi - lo) * its scale long, 1 ms apart
    for k, bs in enumerate(batches):
        scale = scales[k]
        for e in timed:
            c = dict(e)
            c["ts"] = start + (float(e["ts"]) - lo) * scale if scale != 1.0 else float(e["ts"]) + (start - lo)
            if "dur" in e and scale != 1.0:
                c["dur"] = float(e["dur"]) * scale
            if "id" in c and isinstance(c["id"], int):
                c["id"] += k * ID_STRIDE
            if "args" in e:
                args = dict(e["args"])
                for key in ("correlation", "External id", "Python id", "Python parent id"):
                    if isinstance(args.get(key), int) and args[key] >= 0:
                        args[key] += k * ID_STRIDE
                c["args"] = args
            if e.get("cat") == "user_annotation":
                c["name"] = rename(e["name"], bs)
            out.append(c)
        start += (hi - lo) * scale + 1000.0
    doc["traceEvents"] = out
    with open(a.output, "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
