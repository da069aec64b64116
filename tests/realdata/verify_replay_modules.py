#!/usr/bin/env python3
"""The device time of a graph replay's kernels per module the capture recorded, computed without
npu-advisor (tests/realdata/inference_realdata_test.cpp): the capture trace's launch calls
between StreamBeginCapture and StreamEndCapture, in time order, each with the nn.Module frames
open around it; the replay trace's kernels, copies and memsets launched by a graph launch, in time
order; the i-th replayed op is the i-th captured launch. Prints one line per module name that
holds replayed time: its microseconds, and the median over the names matching --layer.

    verify_replay_modules.py CAPTURE.json.gz REPLAY.json.gz --layer Qwen3DecoderLayer

Standard library only.
"""
import argparse
import collections
import gzip
import json
import statistics


def events(path):
    with (gzip.open(path) if path.endswith(".gz") else open(path)) as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]


def captured_launches(path):
    by_thread = collections.defaultdict(list)
    for e in events(path):
        if e.get("cat") in ("python_function", "cpu_op", "cuda_runtime", "user_annotation"):
            by_thread[(e["pid"], e["tid"])].append(e)
    out = []
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
        stack, capturing = [], False
        for e in evs:
            end = e["ts"] + e.get("dur", 0)
            while stack and stack[-1]["ts"] + stack[-1].get("dur", 0) < end:
                stack.pop()
            n = e["name"]
            if "BeginCapture" in n:
                capturing = True
            elif "EndCapture" in n:
                capturing = False
            elif capturing and e["cat"] == "cuda_runtime" and (
                    ("Launch" in n and "GraphLaunch" not in n) or "Memcpy" in n or "Memset" in n):
                mods = [s["name"][len("nn.Module: "):] for s in stack
                        if s["cat"] == "python_function" and s["name"].startswith("nn.Module: ")]
                out.append((e["ts"], mods))
            stack.append(e)
    return [mods for _, mods in sorted(out, key=lambda x: x[0])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture")
    ap.add_argument("replay")
    ap.add_argument("--layer", required=True)
    a = ap.parse_args()
    launches = captured_launches(a.capture)
    rep = events(a.replay)
    graph = {e["args"]["correlation"] for e in rep if e.get("cat") == "cuda_runtime" and "GraphLaunch" in e["name"]}
    ops = sorted((e for e in rep if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
                  and e.get("args", {}).get("correlation") in graph), key=lambda e: e["ts"])
    per = collections.Counter()
    for mods, op in zip(launches, ops):
        for m in set(mods):
            per[m] += op["dur"]
    print(f"captured launches {len(launches)}, replayed ops {len(ops)}")
    for name, us in sorted(per.items()):
        print(f"{name} {us:.3f}")
    layers = [us for name, us in per.items() if name.startswith(a.layer)]
    print(f"{a.layer}: {len(layers)} layers, median {statistics.median(layers):.3f} us, max {max(layers):.3f} us")


if __name__ == "__main__":
    main()
