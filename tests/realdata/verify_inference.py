#!/usr/bin/env python3
"""Independent reading of the inference traces (tests/realdata/inference_realdata_test.cpp):
kind, engine, iterations (phase, requests, tokens), each iteration's own device window, holes and
busy time, straight from the raw Kineto JSON with regular expressions, not the tool's code.

    python3 tests/realdata/verify_inference.py TRACE.json.gz   # prints one JSON object

Rules it applies (docs/facts-inference.md): the iteration is the outermost annotation
step[PHASE bs=N ...] / execute_T_context_C(...)_generation_G(...) / execute_new_N_cached_M; a
device op (kernel, gpu_memcpy, gpu_memset) is the iteration's when the runtime call carrying its
correlation id (the outermost one of that id) starts inside the annotation, on its pid; a hole is
>= 1 ms during which an op had been launched (its call returned), the iteration's earlier ops and
the iterations before it had ended, and none of its ops ran; the own window starts at the op
after the last hole. A generate() loop: ProfilerStep#N with aten::isin, tokens
= aten::argmax + aten::multinomial in the step; its prefill runs from the own window's start to the
end of the ops launched before the first of those, and each later token takes the rest / (tokens - 1).
"""
import gzip
import json
import re
import sys

HOLE_US = 1000.0
SGL = re.compile(r"^step\[(DECODE|EXTEND|PREFILL|MIXED|IDLE)(?: bs=(\d+))?(?: toks=(\d+))?")
DETAILED = re.compile(r"^execute_(\d+)_context_(\d+)(?:\([^)]*\))?_generation_(\d+)")
NATIVE = re.compile(r"^execute_new_(\d+)_cached_(\d+)$")
CAPTURE = re.compile(r"^capture_(\d+)_([A-Z_]+)$")


def phase(ctx, gen):
    return "mixed" if ctx and gen else "prefill" if ctx else "decode" if gen else "unknown"


def parse(name):
    m = SGL.match(name)
    if m:
        ph = {"DECODE": "decode", "EXTEND": "prefill", "PREFILL": "prefill", "MIXED": "mixed"}.get(m[1], "unknown")
        return "sglang", ph, int(m[2]) if m[2] else None, int(m[3]) if m[3] else None
    m = NATIVE.match(name)
    if m:
        n, c = int(m[1]), int(m[2])
        return "vllm", ("mixed" if n and c else "prefill" if n else "unknown"), n + c, None
    m = DETAILED.match(name)
    if m:
        return "vllm", phase(int(m[2]), int(m[3])), int(m[2]) + int(m[3]), int(m[1])
    return None


def union(iv):
    total, cur = 0.0, None
    for a, b in sorted(iv):
        if cur is None or a > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return total + (cur[1] - cur[0] if cur else 0.0)


def device_of(start, end, pid, calls, ops, not_before):
    mine = []
    for op in ops:
        c = calls.get(op["args"]["correlation"])
        if c and start <= c["ts"] < end and (pid is None or c["pid"] == pid):
            mine.append((op["ts"], op["ts"] + op["dur"], c["ts"] + c["dur"], c["name"].endswith("GraphLaunch")))
    if not mine:
        return {"ops": 0}
    mine.sort()
    dev_start, last_end, hole = mine[0][0], not_before, 0.0
    for s, e, ready, _ in mine:
        free_from = ready if last_end is None else max(last_end, ready)
        if s - free_from >= HOLE_US:
            hole += s - free_from
            dev_start = s
        last_end = e if last_end is None else max(last_end, e)
    busy = union([(s, e) for s, e, _, _ in mine])
    graph = union([(s, e) for s, e, _, g in mine if g])
    return {"ops": len(mine), "own_window_us": last_end - dev_start, "own_end": last_end, "hole_us": hole, "busy_us": busy,
            "graph_share": graph / busy if busy else None}


def main(path):
    doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    calls = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            c = e["args"]["correlation"]
            if c not in calls or e["ts"] < calls[c]["ts"]:
                calls[c] = e
    # a graph launch's correlation id is carried by every kernel it replays
    ops = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "correlation" in e.get("args", {})]
    ann = sorted([e for e in ev if e.get("cat") == "user_annotation" and e.get("ph") == "X"],
                 key=lambda e: (e["ts"], -e["dur"]))
    its, engines, captures = [], [], []
    for e in ann:
        p = parse(e["name"])
        if p:
            engines.append(p[0] if p[0] == "vllm" and e["name"].startswith("execute_new_") else p[0])
            if its and e["ts"] < its[-1]["end"]:
                for k, v in zip(("phase", "requests", "tokens"), p[1:]):
                    if its[-1][k] in (None, "unknown"):
                        its[-1][k] = v
                continue
            its.append({"name": e["name"], "phase": p[1], "requests": p[2], "tokens": p[3], "start": e["ts"],
                        "end": e["ts"] + e["dur"], "pid": e["pid"]})
        m = CAPTURE.match(e["name"])
        if m:
            captures.append({"batch_size": int(m[1]), "mode": m[2]})
    names = [e["name"] for e in ev if e.get("cat") == "python_function"]
    engine = "sglang" if "sglang" in engines else engines[0] if engines else None
    if engine is None:
        for frag, eng in (("sglang/srt/", "sglang"), ("vllm/", "vllm"), ("diffusers/pipelines/", "diffusers"),
                          ("transformers/generation/utils.py", "hf_generate")):
            if any(frag in n for n in names):
                engine = eng
                break
    kind = "serving" if its else "graph_capture" if captures else None
    if kind is None:
        steps = [e for e in ann if e["name"].startswith("ProfilerStep#")]
        cpu = [e for e in ev if e.get("cat") == "cpu_op"]
        if steps and any(e["name"] == "aten::isin" for e in cpu):
            kind, engine = "generate_loop", engine or "hf_generate"
            for s in steps:
                end = s["ts"] + s["dur"]
                toks = sorted(e["ts"] for e in cpu
                              if e["name"] in ("aten::argmax", "aten::multinomial") and s["ts"] <= e["ts"] < end)
                its.append({"name": s["name"], "phase": "unknown", "requests": None, "tokens": len(toks),
                            "start": s["ts"], "end": end, "pid": None, "first_token": toks[0] if toks else None})
    prev_end = None  # the device is free of the iterations before from here
    for it in its:
        it.update(device_of(it["start"], it["end"], it.pop("pid"), calls, ops, prev_end))
        first = it.pop("first_token", None)
        if first is not None and it["ops"] and it["tokens"] > 1:
            # the prompt's forward: the device work launched before the first token was chosen
            pre = max(op["ts"] + op["dur"] for op in ops
                      if calls.get(op["args"]["correlation"]) and it["start"] <= calls[op["args"]["correlation"]]["ts"] < first)
            own_start = it["own_end"] - it["own_window_us"]
            it["prefill_us"] = pre - own_start
            it["decode_us_per_token"] = (it["own_end"] - pre) / (it["tokens"] - 1)
        if it["ops"]:
            prev_end = it["own_end"] if prev_end is None else max(prev_end, it["own_end"])
    begin = sum(1 for e in ev if e.get("cat") == "cuda_runtime" and "StreamBeginCapture" in e["name"])
    print(json.dumps({"kind": kind, "engine": engine or "unknown", "iterations": its, "captures": captures,
                      "stream_captures": begin}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
