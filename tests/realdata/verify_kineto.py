#!/usr/bin/env python3
"""Independent cross-check of the Kineto (GPU) facts asserted in realdata_test.cpp and
tests/loaders/kineto_test.cpp, computed with the Python standard library from the raw JSON
rather than with our C++ loaders.

  /usr/bin/python3 tests/realdata/verify_kineto.py TRACE [TRACE...]

For each trace it prints, per ProfilerStep#N: kernel busy time (union of the non-NCCL kernel
intervals of the trace's GPU that starts in the step), NCCL time (union of the NCCL kernel
intervals), not-overlapped NCCL time, idle (Free: the device window minus compute and NCCL,
in pieces that start in the step), and the median launch lag (device start - start of the
runtime call with the same correlation id), all in integer ns. The rules it applies are the
ones docs/overlap.md and docs/facts-dispatch.md describe:
  - device tracks: (pid, tid) with a kernel / gpu_memcpy / gpu_memset event (2021 names:
    Kernel / Memcpy / Memset); the GPU id is the pid's "GPU N" label, else the pid; the
    breakdown covers the GPU with the most events;
  - NCCL kernel: name (minus a leading "void ") starts with "nccl" or contains
    ncclKernel / ncclDevKernel;
  - device window: first start .. last end of the GPU's kernels, copies and memsets;
  - a piece belongs to the step whose [start, end) holds its start; steps are ProfilerStep#N
    slices on host tracks, merged by id;
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


def step_of(steps, t):
    for i, (_, s, e) in enumerate(steps):
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

    compute, comm, window, dev_events = [], [], [], []
    for e in slices:
        if e.get("ph") != "X" or (e["pid"], e["tid"]) not in device_tracks or dev_id(e["pid"]) != device:
            continue
        if e.get("cat") not in GPU_CATS:
            continue
        s = ns(e["ts"])
        t = s + ns(e.get("dur", 0))
        dev_events.append(e)
        window.append((s, t))
        if e["cat"] in KERNEL_CATS:
            (comm if is_nccl(e["name"]) else compute).append((s, t))
    compute, comm = union(compute), union(comm)
    busy = union([tuple(x) for x in compute + comm])
    cno = difference(comm, compute)
    lo = min(s for s, _ in window) if window else 0
    hi = max(t for _, t in window) if window else 0
    free = difference([[lo, hi]], busy)

    per = [{"id": i, "computing": 0, "communication": 0, "comm_not_overlapped": 0, "free": 0, "lags": []} for i, _, _ in steps]
    for key, ivs in (("computing", compute), ("communication", comm), ("comm_not_overlapped", cno), ("free", free)):
        for s, t in ivs:
            k = step_of(steps, s)
            if k >= 0:
                per[k][key] += t - s

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
    lags = []
    for e in dev_events:
        c = (e.get("args") or {}).get("correlation")
        if c is None or int(c) not in host:
            continue
        d = ns(e["ts"])
        lag = d - ns(host[int(c)]["ts"])
        lags.append(lag)
        k = step_of(steps, d)
        if k >= 0:
            per[k]["lags"].append(lag)

    def median(v):
        v = sorted(v)
        return v[int(0.5 * (len(v) - 1) + 0.5)] if v else None

    return {"device": device, "steps": [
        {k: (median(v) if k == "lags" else v) for k, v in p.items()} | {"launches": len(p["lags"])} for p in per],
        "launches": len(lags), "lag_p50": median(lags),
        "kernels": sum(1 for e in dev_events if e["cat"] in KERNEL_CATS),
        "nccl_kernels": sum(1 for e in dev_events if e["cat"] in KERNEL_CATS and is_nccl(e["name"]))}


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
            print("  step {id}: computing {computing} communication {communication} not_overlapped "
                  "{comm_not_overlapped} free {free} launches {launches} lag_p50 {lags}".format(**s))

