#!/usr/bin/env python3
"""Independent reading of graph replays opened up by their captures (tests/realdata/
graph_replays_realdata_test.cpp): for a replay trace with capture_traces/ beside it (TraceLens's
layout: execution_details.json lists {file, batch_size, mode}), each replayed kernel gets the host
operators its capture recorded at the same place, and each device op of the iteration a class.
Straight from the raw Kineto JSON with the standard library, not the tool's code.

    python3 tests/realdata/verify_graph_replays.py REPLAY_TRACE.json.gz   # prints one JSON object

Rules it applies (docs/facts-inference.md, "Graph replays opened up"): the iteration is the
outermost engine annotation (step[...] / execute_*); its ops are those whose correlation id is
carried by a runtime call starting inside it (same pid); a graph replay is a *GraphLaunch call.
A capture's graphs are its StreamBeginCapture .. StreamEndCapture spans; their launches are the
runtime calls in between whose name holds Launch (not GraphLaunch), Memcpy or Memset. The capture
used is the smallest batch_size >= the iteration's size (tokens where the name says them, else
requests). Replayed kernels pair with the captured launches in order, per stream, by kernel name
(the launch's args.kernel). An op's class: the first of (outermost cpu_op around the launch,
innermost cpu_op, kernel name) that one of the class fragments (lower case, in this order) matches.
Shares are of the iteration's op time (sum of durations).
"""
import gzip
import json
import os
import re
import sys

CLASSES = [
    ("moe", ["moe", "expert", "grouped_topk", "topk_softmax"]),
    ("kv_write", ["kv_cache", "reshape_and_cache", "cache_update", "store_kvcache", "set_kv_buffer", "scatter_pa_kv"]),
    ("attention", ["attention", "attn", "flash", "fmha", "sdpa", "paged"]),
    ("norm", ["norm"]),
    ("sampler", ["sampl", "argmax", "multinomial", "top_k_top_p", "topk_topp", "logprobs"]),
    ("dense_gemm", ["gemm", "aten::mm", "aten::addmm", "aten::linear", "aten::matmul", "aten::bmm", "aten::baddbmm",
                    "cijk_", "nvjet", "cutlass", "matmul"]),
]
ITER = re.compile(r"^(step\[(DECODE|EXTEND|PREFILL|MIXED)(?: bs=(\d+))?(?: toks=(\d+))?|execute_(\d+)_context_(\d+)"
                  r"(?:\([^)]*\))?_generation_(\d+))")
DEVICE = ("kernel", "gpu_memcpy", "gpu_memset")
RUNTIME = ("cuda_runtime", "cuda_driver")


def classify(names):
    for n in names:
        low = (n or "").lower()
        if not low:
            continue
        for cls, frags in CLASSES:
            if any(f in low for f in frags):
                return cls
    return "other"


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        t = json.load(f)
    return t["traceEvents"] if isinstance(t, dict) else t


def enclosing_ops(host, call):
    """Outermost and innermost cpu_op on the call's thread whose span holds the call."""
    s = [h for h in host if h["tid"] == call["tid"] and h["pid"] == call["pid"] and h["ts"] <= call["ts"]
         and call["ts"] + call["dur"] <= h["ts"] + h["dur"]]
    s.sort(key=lambda h: (h["ts"], -h["dur"]))
    return (s[0]["name"], s[-1]["name"]) if s else ("", "")


def captured_graphs(events):
    host = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    rt = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") in RUNTIME), key=lambda e: e["ts"])
    graphs, cur = [], None
    for e in rt:
        n = e["name"]
        if "StreamBeginCapture" in n:
            cur = []
        elif "StreamEndCapture" in n:
            graphs.append(cur)
            cur = None
        elif cur is not None and (("Launch" in n and "GraphLaunch" not in n) or "Memcpy" in n or "Memset" in n):
            op, leaf = enclosing_ops(host, e)
            cur.append({"kernel": e.get("args", {}).get("kernel", ""), "call": n, "op": op, "leaf": leaf})
    return graphs


def matches(launch, op):
    if "Memcpy" in launch["call"]:
        return op["cat"] == "gpu_memcpy"
    if "Memset" in launch["call"]:
        return op["cat"] == "gpu_memset" or "fillBuffer" in op["name"]
    return not launch["kernel"] or launch["kernel"] == op["name"]


def main(path):
    events = load(path)
    cap_dir = os.path.join(os.path.dirname(path), "capture_traces")
    index = json.load(open(os.path.join(cap_dir, "execution_details.json")))
    captures = [(c["batch_size"], c["mode"], captured_graphs(load(os.path.join(cap_dir, c["file"])))) for c in index]
    anns = sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
                   and ITER.match(e["name"])), key=lambda e: (e["ts"], -e["dur"]))
    it = anns[0]
    m = ITER.match(it["name"])
    size = int(m[4] or m[3]) if m[2] else int(m[5])
    calls = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in RUNTIME and "correlation" in e.get("args", {}):
            c = e["args"]["correlation"]
            if c not in calls or e["dur"] > calls[c]["dur"]:
                calls[c] = e
    host = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    ops = []
    for e in events:
        if e.get("cat") not in DEVICE or e.get("ph") != "X":
            continue
        call = calls.get(e.get("args", {}).get("correlation"))
        if call and it["ts"] <= call["ts"] < it["ts"] + it["dur"] and call["pid"] == it["pid"]:
            ops.append((e, call))
    ops.sort(key=lambda oc: oc[0]["ts"])
    launches = sorted({id(c): c for _, c in ops if "GraphLaunch" in c["name"]}.values(), key=lambda c: c["ts"])
    cap = min((c for c in captures if c[0] >= size), key=lambda c: c[0])
    cls_ns, paired, replayed = {}, 0, 0
    label = {}
    for k, g in enumerate(launches):
        graph = cap[2][0] if len(cap[2]) == 1 else cap[2][k]
        mine = [o for o, c in ops if c is g]
        replayed += len(mine)
        streams = {}
        for o in mine:
            streams.setdefault(o["args"].get("stream", o["tid"]), []).append(o)
        for launch in graph:
            for q in streams.values():
                if q and matches(launch, q[0]):
                    label[id(q.pop(0))] = (launch["op"], launch["leaf"])
                    paired += 1
                    break
    for o, c in ops:
        if "GraphLaunch" in c["name"]:
            op, leaf = label.get(id(o), ("", ""))
        else:
            op, leaf = enclosing_ops(host, c)
        cls = classify([op, leaf, o["name"]])
        cls_ns[cls] = cls_ns.get(cls, 0.0) + o["dur"]
    total = sum(cls_ns.values())
    print(json.dumps({"iteration": it["name"][:60], "size": size, "capture_batch": cap[0], "capture_mode": cap[1],
                      "graphs": len(cap[2]), "launches": len(launches), "replayed_ops": replayed,
                      "paired_ops": paired, "ops": len(ops),
                      "classes": {k: round(v / total, 5) for k, v in sorted(cls_ns.items())}}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
