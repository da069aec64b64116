#!/usr/bin/env python3
"""Independent cross-check of the cluster numbers asserted in tests/realdata/cluster_realdata_test.cpp,
computed with the Python standard library (json, csv, decimal) straight from the files, not
with our C++ loaders.

  /usr/bin/python3 tests/realdata/verify_cluster.py [REALDATA_DIR]
"""
import csv
import json
import os
import statistics
import sys
from decimal import Decimal, ROUND_HALF_UP

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/realdata")
base = os.path.join(root, "ascend_torch_npu")


def ns_from_us_text(t):
    return int((Decimal(t) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def ns_from_ms(v):
    # the shortest repr of the float is the text the profiler wrote
    return int((Decimal(repr(v)) * 1000000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def ops_of_comm_json(path, rank):
    out = []
    for step, kinds in json.load(open(path)).items():
        for kind, ops in kinds.items():
            for key, info in ops.items():
                if key == "Total Op Info":
                    continue
                out.append((step, kind, key, rank, info))
    return out


def ops_of_cluster_comm(path):
    out = []
    for group, steps in json.load(open(path)).items():
        for step, ops in steps.items():
            for key, ranks in ops.items():
                if key == "Total Op Info":
                    continue
                for rank, info in ranks.items():
                    out.append((step, "p2p" if group == "p2p" else "", key, int(rank), info))
    return out


def group_stats(ops):
    g = {}
    for step, kind, key, rank, info in ops:
        grp = key.rsplit("@", 1)[1] if "@" in key else ""
        t = info["Communication Time Info"]
        a = g.setdefault(grp, [0, 0, 0, 0])
        a[0] += ns_from_ms(t["Wait Time(ms)"])
        a[1] += ns_from_ms(t["Transit Time(ms)"])
        a[2] += ns_from_ms(t["Synchronization Time(ms)"])
        a[3] += ns_from_ms(t["Elapse Time(ms)"])
    for grp, (w, tr, s, e) in sorted(g.items(), key=lambda kv: -kv[1][3]):
        print("  group %s: wait_ns %d transit_ns %d sync_ns %d elapse_ns %d wait_ratio %.6f" % (grp, w, tr, s, e, w / (w + tr) if w + tr else 0))


def bandwidth(ops):
    acc = {}
    for step, kind, key, rank, info in ops:
        for tr, b in info["Communication Bandwidth Info"].items():
            if tr == "LOCAL":
                continue
            size, time = b["Transit Size(MB)"], ns_from_ms(b["Transit Time(ms)"])
            if size <= 0 and time <= 0:
                continue
            a = acc.setdefault(tr, [0.0, 0, 0])
            a[0] += size
            a[1] += time
            a[2] += 1
    for tr, (size, time, n) in sorted(acc.items()):
        print("  bandwidth %s: ops %d size_mb %.6f time_ns %d gbps %.6f" % (tr, n, size, time, size / (time / 1e6) if time else 0))


def dixon_votes(ops):
    table = {3: 0.994, 4: 0.920, 5: 0.823, 6: 0.744, 7: 0.680, 8: 0.723, 9: 0.676, 10: 0.638, 11: 0.707, 12: 0.675,
             13: 0.649, 14: 0.672, 15: 0.649, 16: 0.629}
    by = {}
    for step, kind, key, rank, info in ops:
        name = key.rsplit("@", 1)[0]
        if kind == "p2p" or "send" in name or "receive" in name:
            continue
        by.setdefault((step, key), []).append((ns_from_ms(info["Communication Time Info"]["Elapse Time(ms)"]), rank))
    votes, judged = {}, 0
    for k, v in by.items():
        n = len(v)
        s = sorted(x[0] for x in v)
        if n < 3 or len(set(s)) <= 3:
            continue
        judged += 1
        if n <= 7:
            q = (s[1] - s[0]) / (s[-1] - s[0])
        elif n <= 10:
            q = (s[1] - s[0]) / (s[-2] - s[0])
        elif n <= 13:
            q = (s[2] - s[0]) / (s[-2] - s[0])
        else:
            q = (s[2] - s[0]) / (s[-3] - s[0])
        if q > table[n]:
            r = min(v)[1]
            votes[r] = votes.get(r, 0) + 1
    print("  dixon: judged %d votes %s" % (judged, sorted(votes.items())))


def links(raw):
    acc, seen = {}, set()
    for step, grp, key, sd, l in raw:
        src, dst = map(int, sd.split("-"))
        tr = l["Transport Type"]
        if src == dst or tr == "LOCAL" or (step, key, src, dst) in seen:
            continue
        seen.add((step, key, src, dst))
        a = acc.setdefault((src, dst, tr), [0.0, 0])
        a[0] += l["Transit Size(MB)"]
        a[1] += ns_from_ms(l["Transit Time(ms)"])
    med = {}
    for (s, d, tr), (size, t) in acc.items():
        med.setdefault(tr, []).append(size / (t / 1e6) if t else 0)
    print("  links: %d, median gbps %s" % (len(acc), {k: round(statistics.median(v), 6) for k, v in med.items()}))
    worst = sorted(acc.items(), key=lambda kv: (kv[1][0] / (kv[1][1] / 1e6) if kv[1][1] else 0) / statistics.median(med[kv[0][2]]))[:3]
    for (s, d, tr), (size, t) in worst:
        print("  slowest link %d->%d %s size_mb %.6f time_ns %d gbps %.6f" % (s, d, tr, size, t, size / (t / 1e6)))


def rank_rows_from_cluster_csv(path):
    rows = []
    for r in csv.DictReader(open(path)):
        if r["Type"] != "rank":
            continue
        rows.append((int(r["Index"]), ns_from_us_text(r["Computing"]), ns_from_us_text(r["Communication(Not Overlapped)"]),
                     ns_from_us_text(r["Free"])))
    return rows


def time_verdict(rows):
    busy = [c + f for _, c, _, f in rows]
    dev = [c + n + f for _, c, n, f in rows]
    med, med_step = statistics.median(busy), statistics.median(dev)
    mad = statistics.median([abs(b - med) for b in busy])
    for (rank, c, n, f), b in zip(rows, busy):
        z = (b - med) / (1.4826 * mad) if mad else 0
        flag = z > 3.5 and b - med > 0.05 * med_step
        print("  rank %d: computing %d comm_not_ovl %d free %d busy_excess %d z %.3f%s" % (rank, c, n, f, b - med, z, "  <- outlier" if flag else ""))
    for i, key in ((1, "computing"), (2, "comm_not_overlapped"), (3, "free")):
        vals = [r[i] for r in rows]
        mean_total = sum(dev) / len(dev)
        print("  spread %s: max %d (rank %d) min %d (rank %d) ratio %.6f" % (
            key, max(vals), rows[vals.index(max(vals))][0], min(vals), rows[vals.index(min(vals))][0], (max(vals) - min(vals)) / mean_total))


print("mstt_cluster_4rank (cluster_analysis_output only)")
d = os.path.join(base, "mstt_cluster_4rank/cluster_analysis_output")
time_verdict(rank_rows_from_cluster_csv(os.path.join(d, "cluster_step_trace_time.csv")))
ops = ops_of_cluster_comm(os.path.join(d, "cluster_communication.json"))
print("  op records %d" % len(ops))
group_stats(ops)
bandwidth(ops)

print("msinsight_cluster_8rank (cluster_analysis_output only)")
d = os.path.join(base, "msinsight_cluster_8rank/cluster_analysis_output")
time_verdict(rank_rows_from_cluster_csv(os.path.join(d, "cluster_step_trace_time.csv")))
ops = ops_of_cluster_comm(os.path.join(d, "cluster_communication.json"))
print("  op records %d" % len(ops))
group_stats(ops)
bandwidth(ops)
dixon_votes(ops)
for step, kind, key, rank, info in ops:
    if kind != "p2p":
        print("  op %s rank %d elapse_ns %d" % (key.rsplit("@", 1)[0], rank, ns_from_ms(info["Communication Time Info"]["Elapse Time(ms)"])))
raw = []
for grp, steps in json.load(open(os.path.join(d, "cluster_communication_matrix.json"))).items():
    for step, opsd in steps.items():
        for key, ls in opsd.items():
            if key == "Total Op Info":
                continue
            for sd, l in ls.items():
                raw.append((step, grp, key, sd, l))
links(raw)

print("msinsight_2rank (two rank folders)")
d = os.path.join(base, "msinsight_2rank")
rows = []
ops, raw = [], []
for r in (0, 1):
    out = os.path.join(d, "test_rank_%d/ASCEND_PROFILER_OUTPUT" % r)
    for row in csv.DictReader(open(os.path.join(out, "step_trace_time.csv"))):
        rows.append((r, ns_from_us_text(row["Computing"]), ns_from_us_text(row["Communication(Not Overlapped)"]), ns_from_us_text(row["Free"])))
    ops += ops_of_comm_json(os.path.join(out, "communication.json"), r)
    for step, kinds in json.load(open(os.path.join(out, "communication_matrix.json"))).items():
        for kind, opsd in kinds.items():
            for key, ls in opsd.items():
                if key == "Total Op Info":
                    continue
                for sd, l in ls.items():
                    raw.append((step, kind, key, sd, l))
for r in rows:
    print("  rank %d: computing %d comm_not_ovl %d free %d" % r)
print("  op records %d" % len(ops))
group_stats(ops)
bandwidth(ops)
links(raw)
