#!/usr/bin/env python3
"""Independent cross-check of the graph-execution numbers asserted in
graph_execution_realdata_test.cpp, computed with the Python standard library from the raw JSON
rather than with our C++ loaders.

  /usr/bin/python3 tests/realdata/verify_graph_execution.py REALDATA_DIR

msprof PROF_ folders (msprof_PROF/mindinsight_2device/PROF_*): from every
device_N/timeline/msprof_*.json, the "CANN" process's X events whose name is a graph execution
(Model@ModelExecute, GE@Infer, AscendCL@aclmdlExecute*, AscendCL@aclmdlRIExecute*), counted by
name; executions = the outermost ones per (pid, tid) (a call starting inside an earlier one on
the same thread is part of it); device tasks = "Ascend Hardware" X events with a "Task Type" arg;
a task is graph-launched when it starts inside an execution's [ts, ts + dur] (these calls wait for
the graph; the trace has no launch flows). Durations: microseconds as decimals -> ns, rounded
half up.

Kineto sglang decode trace: the launches the dispatch analysis keeps, i.e. the GPU kernels,
memcpys and memsets whose correlation id is that of a cuda_runtime/cuda_driver call, with all the
events of one cudaGraphLaunch counted as one launch.
"""
import decimal
import glob
import gzip
import json
import os
import sys
from collections import Counter


def ns(v):
    d = decimal.Decimal(str(v)) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def is_graph_execution(name):
    api = name.split("@", 1)[1] if "@" in name else name
    return (api.startswith("aclmdlRIExecute") or api.startswith("aclmdlExecute") or api.endswith("ModelExecute")
            or name == "GE@Infer")


def prof(folder):
    calls, tasks = [], []
    for f in sorted(glob.glob(os.path.join(folder, "device_*", "timeline", "msprof_*.json"))):
        with open(f, encoding="utf-8") as fh:
            events = json.load(fh, parse_float=decimal.Decimal)
        procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
        for e in events:
            if e.get("ph") != "X":
                continue
            p = procs.get(e.get("pid"))
            if p == "CANN" and is_graph_execution(e["name"]):
                calls.append((e["pid"], e["tid"], ns(e["ts"]), ns(e["dur"]), e["name"]))
            elif p == "Ascend Hardware" and "Task Type" in e.get("args", {}):
                tasks.append((ns(e["ts"]), ns(e["dur"])))
    by_name = Counter(c[4] for c in calls)
    outer = []
    for pid, tid, ts, dur, name in sorted(calls, key=lambda c: (c[0], c[1], c[2], -c[3])):
        if outer and outer[-1][0] == (pid, tid) and ts <= outer[-1][1] + outer[-1][2]:
            continue
        outer.append(((pid, tid), ts, dur))
    graph = [t for t in tasks if any(o[1] <= t[0] <= o[1] + o[2] for o in outer)]
    print(f"{os.path.basename(folder)}: calls {dict(by_name)}; executions {len(outer)}; "
          f"tasks {len(tasks)} ({sum(t[1] for t in tasks)} ns); graph-launched {len(graph)} "
          f"({sum(t[1] for t in graph)} ns)")


def kineto_launches(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    events = data["traceEvents"] if isinstance(data, dict) else data
    runtime = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            runtime.setdefault(e["args"]["correlation"], e["name"])
    device = Counter()
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            c = e.get("args", {}).get("correlation")
            if c in runtime:
                device[c] += 1
    per_event = sum(device.values())
    graph_corr = [c for c in device if "GraphLaunch" in runtime[c]]
    kept = per_event - sum(device[c] - 1 for c in graph_corr)
    print(f"{os.path.basename(path)}: launches {per_event} one per device event; {len(graph_corr)} graph launches "
          f"start {sum(device[c] for c in graph_corr)} of them; kept {kept}")


def main():
    root = sys.argv[1]
    for folder in sorted(glob.glob(os.path.join(root, "msprof_PROF", "mindinsight_2device", "PROF_*"))):
        prof(folder)
    kineto_launches(os.path.join(root, "kineto/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz"))


if __name__ == "__main__":
    main()
