#!/usr/bin/env python3
"""Independent figures for `npu-advisor verify BASE NEW` on two Kineto GPU runs (issue 45): each
step's time by the launched-work rule (docs/overlap.md: a step lasts from max(previous end, its
host start) to max(its host end, the end of the last kernel/copy/memset its runtime calls launched)),
the steps paired by ProfilerStep id, the median of the per-step savings (base - new) and a
percentile bootstrap interval of it (Python's own random stream, so the ends differ from the
tool's SplitMix64 ones by resampling noise only).
    verify_reference.py BASE_DIR NEW_DIR"""
import glob
import gzip
import json
import random
import sys


def load(folder):
    path = (glob.glob(folder + "/*.pt.trace.json.gz") + glob.glob(folder + "/*.pt.trace.json"))[0]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def step_times(events):
    steps = sorted((e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1])) for e in events
                   if e.get("ph") == "X" and e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#"))
    launches = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launches[e["args"]["correlation"]] = (e["ts"], e["ts"] + e["dur"])
    ends = [0.0] * len(steps)
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        l = launches.get(e.get("args", {}).get("correlation"))
        if not l:
            continue
        for i, (s, t, _) in enumerate(steps):
            if s <= l[0] and l[1] <= t:
                ends[i] = max(ends[i], e["ts"] + e["dur"])
    out, prev = {}, None
    for i, (s, t, sid) in enumerate(steps):
        start = s if prev is None else max(prev, s)
        end = max(t, ends[i])
        out[sid] = (end - start) / 1000.0  # ms
        prev = end
    return out


def median(v):
    v = sorted(v)
    return v[round(0.5 * (len(v) - 1))]  # nearest rank, the upper middle of an even count


base, new = step_times(load(sys.argv[1])), step_times(load(sys.argv[2]))
ids = sorted(set(base) & set(new))
d = [base[i] - new[i] for i in ids]
rng = random.Random(1)
boot = sorted(median([rng.choice(d) for _ in d]) for _ in range(4000))
print("base steps (ms):", {i: round(base[i], 3) for i in sorted(base)})
print("new steps (ms): ", {i: round(new[i], 3) for i in sorted(new)})
print("median saving %.3f ms, 95%% bootstrap interval [%.3f, %.3f] ms over %d paired steps"
      % (median(d), boot[int(0.025 * 4000)], boot[int(0.975 * 4000) - 1], len(d)))
