#!/usr/bin/env python3
"""Independent cross-check of the "modules" facts (docs/facts-modules.md), computed with the Python
standard library from the raw trace rather than with our C++ loaders.

  /usr/bin/python3 tests/realdata/verify_modules.py TRACE   (a Kineto .json/.json.gz or a torch_npu trace_view.json)

Prints one line per module path, "module PATH total_device_ns N", and "in_modules_ns N" (summed over
the steps, not averaged). The rule, written from the profilers' formats:
  - steps: the ProfilerStep#N ranges on the host;
  - module ranges: X events named "nn.Module: ..." and record_function ranges (category
    user_annotation or mstx) other than ProfilerStep#N, nested per thread id by containment; a
    path is the names from the outermost range down (nn.Module: prefix dropped), joined with /;
  - Kineto: a device op (kernel, gpu_memcpy, gpu_memset) is launched by the cuda_runtime /
    cuda_driver call with its correlation id (the earliest); it counts for the step whose span holds
    the whole call, and for the innermost module range on the call's thread holding the call's start;
  - torch_npu: a device task of a computing type (Ascend Hardware, Task Type AI_CORE, AI_VECTOR_CORE,
    MIX_AIC, MIX_AIV, AI_CPU, DSA_SQE, ...) is launched where its async_npu arrow starts; it counts for
    the step holding that time and for the innermost module range on that thread holding it.
  - backward: a fwdbwd arrow joins a forward op to its backward op; the backward range is the longest
    X event on the arrow's end thread that starts at the arrow's end, and it belongs to the innermost
    module range holding the arrow's start. A launch held by no module range on its thread counts
    for the module of the latest-starting backward range on its thread that holds it.
Times: microseconds as decimals -> ns, rounded half up.
"""
import decimal
import gzip
import json
import sys
from collections import defaultdict


def ns(v):
    d = decimal.Decimal(str(v)) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


COMPUTE = {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU", "FFTS_PLUS", "DSA_SQE", "AIV", "AIC"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    return d if isinstance(d, list) else d["traceEvents"]


def main(path):
    ev = load(path)
    pname = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    steps, ranges = [], defaultdict(list)
    for e in ev:
        if e.get("ph") != "X":
            continue
        name, cat = e.get("name", ""), e.get("cat")
        if name.startswith("ProfilerStep#") and cat in ("user_annotation", "cpu_op"):
            steps.append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
        elif (name.startswith("nn.Module: ") or cat in ("user_annotation", "mstx")) and ns(e.get("dur", 0)) > 0:
            label = name[len("nn.Module: "):] if name.startswith("nn.Module: ") else name
            ranges[e["tid"]].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), label))
    steps.sort()

    def step_of(ts, end=None):
        for i, (a, b) in enumerate(steps):
            if a <= ts <= b and (end is None or end <= b):
                return i
        return -1

    # Nest each thread's ranges: (start, end, path), parents before children.
    nested = {}
    for tid, rs in ranges.items():
        rs.sort(key=lambda r: (r[0], -(r[1] - r[0])))
        out, stack = [], []
        for a, b, label in rs:
            while stack and not (a >= stack[-1][0] and b <= stack[-1][1]):
                stack.pop()
            path = stack[-1][2] + "/" + label if stack else label
            stack.append((a, b, path))
            out.append((a, b, path))
        nested[tid] = out

    def innermost(tid, ts):
        best = None
        for a, b, path in nested.get(tid, []):
            if a <= ts <= b and (best is None or a >= best[0]):
                best = (a, b, path)
        return best[2] if best else None

    # Backward ranges: (start, end, path) per thread.
    fb_start, backward = {}, defaultdict(list)
    for e in ev:
        if e.get("cat") == "fwdbwd" and e.get("ph") == "s":
            fb_start[e["id"]] = e
    longest = {}
    for e in ev:
        if e.get("ph") == "X":
            k = (e["pid"], e["tid"], ns(e["ts"]))
            if k not in longest or ns(e["dur"]) > ns(longest[k]["dur"]):
                longest[k] = e
    for e in ev:
        if e.get("cat") != "fwdbwd" or e.get("ph") != "f" or e["id"] not in fb_start:
            continue
        s = fb_start[e["id"]]
        path = innermost(s["tid"], ns(s["ts"]))
        b = longest.get((e["pid"], e["tid"], ns(e["ts"])))
        if path and b:
            backward[e["tid"]].append((ns(b["ts"]), ns(b["ts"]) + ns(b["dur"]), path))

    def backward_path(tid, ts):
        best = None
        for a, b, path in backward.get(tid, []):
            if a <= ts <= b and (best is None or a > best[0] or (a == best[0] and b > best[1])):
                best = (a, b, path)
        return best[2] if best else None

    total = defaultdict(int)
    launches = []  # (duration, tid, launch ts, step)
    if any(e.get("cat") == "kernel" for e in ev):
        calls = {}
        for e in ev:
            if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
                c = e.get("args", {}).get("correlation")
                if c is not None and (c not in calls or ns(e["ts"]) < ns(calls[c]["ts"])):
                    calls[c] = e
        for e in ev:
            if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
                c = calls.get(e.get("args", {}).get("correlation"))
                if c is None:
                    continue
                t0 = ns(c["ts"])
                launches.append((ns(e["dur"]), c["tid"], t0, step_of(t0, t0 + ns(c["dur"]))))
    else:
        starts, task_at = {}, {}
        for e in ev:
            if e.get("cat") == "async_npu" and e.get("ph") == "s":
                starts[e["id"]] = e
        for e in ev:
            if e.get("ph") == "X" and pname.get(e["pid"]) == "Ascend Hardware":
                task_at[(e["pid"], e["tid"], ns(e["ts"]))] = e
        seen = set()
        for e in ev:
            if e.get("cat") != "async_npu" or e.get("ph") != "f" or e["id"] not in starts:
                continue
            key = (e["pid"], e["tid"], ns(e["ts"]))
            t = task_at.get(key)
            if t is None or key in seen or t.get("args", {}).get("Task Type") not in COMPUTE:
                continue
            seen.add(key)
            s = starts[e["id"]]
            t0 = ns(s["ts"])
            launches.append((ns(t["dur"]), s["tid"], t0, step_of(t0)))
    for dur, tid, t0, step in launches:
        if step < 0:
            continue
        path = innermost(tid, t0) or backward_path(tid, t0)
        while path:
            total[path] += dur
            path = path.rsplit("/", 1)[0] if "/" in path else None
    for path in sorted(total):
        print(f"module {path} total_device_ns {total[path]}")
    print("in_modules_ns", sum(v for p, v in total.items() if "/" not in p))


if __name__ == "__main__":
    main(sys.argv[1])
