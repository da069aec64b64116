#!/usr/bin/env python3
"""Independent cross-check of the Kineto (GPU) facts asserted in realdata_test.cpp and
tests/loaders/kineto_test.cpp, computed with the Python standard library from the raw JSON
rather than with our C++ loaders.

  /usr/bin/python3 tests/realdata/verify_kineto.py TRACE [TRACE...]

For each trace it prints, per ProfilerStep#N: the step time, kernel busy time (union of the
non-NCCL kernel intervals of the trace's GPU), NCCL time, not-overlapped NCCL time, copies
(memcpy/memset not under a kernel), idle (Free), each clipped to the step's window, and the
launches and median launch lag (device start - start of the runtime call with the same
correlation id) of the device ops starting in the window, all in integer ns. The rules it
applies are the ones docs/overlap.md and docs/facts-dispatch.md describe:
  - device tracks: (pid, tid) with a kernel / gpu_memcpy / gpu_memset event (2021 names:
    Kernel / Memcpy / Memset); the GPU id is the pid's "GPU N" label, else the pid; the
    breakdown covers the GPU with the most events;
  - NCCL kernel: name (minus a leading "void ") starts with "nccl" or contains
    ncclKernel / ncclDevKernel;
  - the step window (the TensorBoard profiler plugin's rule): a runtime call wholly inside a
    host ProfilerStep#N span owns the device ops with its correlation id; the first step starts
    after any unowned op that ends before its first own op; each step starts at max(previous
    step's end, its host start) and ends at max(its host end, its last own op's end); without
    any owned op the windows are the host spans;
  - Free: the window less every device op (kernels, copies); a cudaGraphLaunch is one launch
    (its first device op);
  - median: sorted lags, index floor(0.5 * (n - 1) + 0.5).
Timestamps are read as decimals (no float): microseconds with up to 3 decimals -> ns,
further digits rounded half away from zero.
"""
import decimal
import gzip
import json
import sys

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
KERNEL_CATS = {"kernel", "Kernel"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "Driver"}


def ns(v):
    d = decimal.Decimal(str(v)) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f, parse_float=decimal.Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def is_nccl(name):
    if name.startswith("void "):
        name = name[5:]
    return name.startswith("nccl") or "ncclKernel" in name or "ncclDevKernel" in name


def union(iv):
    out = []
    for s, e in sorted(iv):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def difference(a, b):
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append([cur, bs])
            cur = max(cur, be)
            if cur >= e:
                break
        if cur < e:
            out.append([cur, e])
    return out


def clip(ivs, lo, hi):
    return [[max(s, lo), min(e, hi)] for s, e in ivs if min(e, hi) > max(s, lo)]


def total(ivs):
    return sum(e - s for s, e in ivs)


def step_of(windows, t):
    for i, (s, e) in enumerate(windows):
        if s <= t < e:
            return i
    return -1


def analyse(path):
    ev = load(path)
    labels = {}
    for e in ev:
        if e.get("ph") == "M" and e.get("name") == "process_labels":
            labels[e["pid"]] = e["args"].get("labels", "")
    slices = [e for e in ev if e.get("ph") in ("X", "i", "I") and "ts" in e]
    device_tracks = {(e["pid"], e["tid"]) for e in slices if e.get("ph") == "X" and e.get("cat") in GPU_CATS}

    def dev_id(pid):
        lab = labels.get(pid, "")
        if lab.startswith("GPU ") and lab[4:].isdigit():
            return int(lab[4:])
        return pid

    per_dev = {}
    for e in slices:
        if (e["pid"], e["tid"]) in device_tracks:
            per_dev[dev_id(e["pid"])] = per_dev.get(dev_id(e["pid"]), 0) + 1
    device = max(sorted(per_dev), key=lambda d: per_dev[d]) if per_dev else None

    steps = {}
    for e in slices:
        n = str(e.get("name", ""))
        if e.get("ph") == "X" and n.startswith("ProfilerStep#") and (e["pid"], e["tid"]) not in device_tracks:
            i = int(n[len("ProfilerStep#"):])
            s, t = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
            if i in steps:
                steps[i] = (min(steps[i][0], s), max(steps[i][1], t))
            else:
                steps[i] = (s, t)
    steps = sorted(((i, s, t) for i, (s, t) in steps.items()), key=lambda x: x[1])

    compute, comm, copies, dev_events = [], [], [], []
    for e in slices:
        if e.get("ph") != "X" or (e["pid"], e["tid"]) not in device_tracks or dev_id(e["pid"]) != device:
            continue
        if e.get("cat") not in GPU_CATS:
            continue
        s = ns(e["ts"])
        t = s + ns(e.get("dur", 0))
        dev_events.append((e, s, t))
        if e["cat"] in KERNEL_CATS:
            (comm if is_nccl(e["name"]) else compute).append((s, t))
        else:
            copies.append((s, t))
    compute, comm = union(compute), union(comm)
    busy = union([tuple(x) for x in compute + comm])
    cno = difference(comm, compute)
    copies = difference(union(copies), busy)
    work = union([tuple(x) for x in busy + copies])

    host = {}
    for e in slices:
        if e.get("ph") != "X" or (e["pid"], e["tid"]) in device_tracks or e.get("cat") not in RUNTIME_CATS:
            continue
        c = (e.get("args") or {}).get("correlation")
        if c is None:
            continue
        c = int(c)
        if c not in host or ns(e["ts"]) < ns(host[c]["ts"]):
            host[c] = e

    # The step windows (TensorBoard plugin rule): a runtime call wholly inside a host step span
    # owns the device events with its correlation id.
    first = [None] * len(steps)
    last = [None] * len(steps)
    unowned_ends = []
    for e, s, t in dev_events:
        c = (e.get("args") or {}).get("correlation")
        k = -1
        if c is not None and int(c) in host:
            h = host[int(c)]
            hs, he = ns(h["ts"]), ns(h["ts"]) + ns(h.get("dur", 0))
            for j, (_, a, b) in enumerate(steps):
                if a <= hs <= b:
                    k = j if he <= b else -1
                    break
        if k < 0:
            unowned_ends.append(t)
            continue
        first[k] = s if first[k] is None else min(first[k], s)
        last[k] = t if last[k] is None else max(last[k], t)
    windows = [(a, b) for _, a, b in steps]
    if any(x is not None for x in first):
        prev = steps[0][1]
        if first[0] is not None:
            prev = max([prev] + [t for t in unowned_ends if t < first[0]])
        windows = []
        for j, (_, a, b) in enumerate(steps):
            start = max(prev, a)
            end = b if last[j] is None else max(b, last[j])
            end = max(end, start)
            windows.append((start, end))
            prev = end

    per = []
    for (i, _, _), (lo, hi) in zip(steps, windows):
        per.append({"id": i, "step": hi - lo, "computing": total(clip(compute, lo, hi)),
                    "communication": total(clip(comm, lo, hi)), "comm_not_overlapped": total(clip(cno, lo, hi)),
                    "copies": total(clip(copies, lo, hi)),
                    "free": total(difference([[lo, hi]], clip(work, lo, hi))), "lags": []})
    lags = []
    graph_seen = set()  # a graph launch is one launch: its first device op (in start order)
    for e, d, _ in sorted(dev_events, key=lambda x: x[1]):
        c = (e.get("args") or {}).get("correlation")
        if c is None or int(c) not in host:
            continue
        if "GraphLaunch" in host[int(c)]["name"]:
            if int(c) in graph_seen:
                continue
            graph_seen.add(int(c))
        lag = d - ns(host[int(c)]["ts"])
        lags.append(lag)
        k = step_of(windows, d)
        if k >= 0:
            per[k]["lags"].append(lag)

    def median(v):
        v = sorted(v)
        return v[int(0.5 * (len(v) - 1) + 0.5)] if v else None

    return {"device": device, "steps": [
        {k: (median(v) if k == "lags" else v) for k, v in p.items()} | {"launches": len(p["lags"])} for p in per],
        "launches": len(lags), "lag_p50": median(lags),
        "kernels": sum(1 for e, _, _ in dev_events if e["cat"] in KERNEL_CATS),
        "nccl_kernels": sum(1 for e, _, _ in dev_events if e["cat"] in KERNEL_CATS and is_nccl(e["name"]))}


def memory_peaks(path, device):
    """Peak "Total Allocated" / "Total Reserved" (bytes) of the GPU allocator `device` over the
    "[memory]" instant events (Device Type != 0 is a device allocator)."""
    peaks = {"Total Allocated": None, "Total Reserved": None}
    for e in load(path):
        a = e.get("args") or {}
        if e.get("ph") not in ("i", "I") or a.get("Device Type") in (None, 0) or a.get("Device Id") != device:
            continue
        for k in peaks:
            if k in a and (peaks[k] is None or a[k] > peaks[k]):
                peaks[k] = a[k]
    return peaks


if __name__ == "__main__":
    for p in sys.argv[1:]:
        r = analyse(p)
        print(p)
        print("  memory peaks (bytes)", memory_peaks(p, r["device"]))
        print("  device", r["device"], "kernels", r["kernels"], "nccl", r["nccl_kernels"], "launches", r["launches"],
              "lag_p50_ns", r["lag_p50"])
        for s in r["steps"]:
            print("  step {id}: step {step} computing {computing} communication {communication} not_overlapped "
                  "{comm_not_overlapped} copies {copies} free {free} launches {launches} lag_p50 {lags}".format(**s))

