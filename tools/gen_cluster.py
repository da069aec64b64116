#!/usr/bin/env python3
"""Generate an N-rank torch_npu cluster (one *_ascend_pt folder per rank) with planted behaviour.

Usage:  python3 tools/gen_cluster.py OUTDIR [--ranks 8] [--steps 4] [--ops 6] [--ranks-per-node 8]
                  [--slow-rank K --slow-factor 1.6] [--slow-link SRC-DST --slow-link-factor 0.25]
                  [--duplicate-rank R] [--group-name NAME] [--seed N]

Each rank folder holds profiler_info_{rank}.json, ASCEND_PROFILER_OUTPUT/trace_view.json (host
ProfilerStep#N, compute tasks on "Ascend Hardware", collectives on the HCCL "Group ...
Communication" thread), communication.json and communication_matrix.json.

The ranks are simulated on one global timeline, as a data-parallel step of `--ops` layers:
every rank computes a layer, then all ranks enter an allReduce; the collective ends at the
LAST arrival + the slowest rank's transit (a ring moves at its slowest hop). So a rank with more
compute (--slow-rank) arrives last, waits least, and every other rank waits for it, which is how
a real slow rank looks.  A planted slow link (--slow-link SRC-DST) has its bandwidth multiplied
by --slow-link-factor: the source rank's transit (communication.json, communication_matrix.json)
and so every collective of the ring take longer.  --duplicate-rank writes an older second capture of that rank.
--group-name names the collective group as torch_npu does (profiler_metadata.json
parallel_group_info, e.g. "dp"); the group id in communication.json is then the hash of its id.

Writes OUTDIR/expected.json with the answers known by construction (integer ns, computed from
the generator's own numbers).  Standard library only; deterministic (random.Random(seed)).
"""

import argparse
import json
import os
import random

STREAM_COMPUTE = 2
HCCL_GROUP = "1234567890123456789"
GROUP_ID = "10.0.0.1%eth0_60000_0_1763800000000000"  # a torch_npu group id (--group-name)
HCCS_GBPS = 19.0          # what a healthy HCCS link achieves (MB/ms)
RDMA_GBPS = 22.0
OP_SIZE_MB = 64.0         # per allReduce and rank
SMALL_OP_SIZE_MB = 0.5    # the last op of a step is small (1 of --ops ops: below the 20% threshold)


def ts_str(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def us(ns):
    return ns / 1000.0


def ms(ns):
    return ns / 1e6


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--ops", type=int, default=6)
    ap.add_argument("--ranks-per-node", type=int, default=8)
    ap.add_argument("--slow-rank", type=int, default=-1)
    ap.add_argument("--slow-factor", type=float, default=1.6)
    ap.add_argument("--slow-link", default="")
    ap.add_argument("--slow-link-factor", type=float, default=0.25)
    ap.add_argument("--duplicate-rank", type=int, default=-1)
    ap.add_argument("--group-name", default="")
    ap.add_argument("--seed", type=int, default=20261122)
    return ap.parse_args()


def hccl_group_name(group_id):
    """The name HCCL gives a group id: two 32-bit polynomial hashes (29, 131) side by side."""
    h29 = h131 = 0
    for c in group_id:
        h29 = (h29 * 29 + ord(c)) & 0xFFFFFFFF
        h131 = (h131 * 131 + ord(c)) & 0xFFFFFFFF
    return str((h29 << 32) | h131)


def transport(src, dst, per_node):
    return "HCCS" if src // per_node == dst // per_node else "RDMA"


def simulate(a):
    """Global timeline: per rank, the list of slices and per-op communication records."""
    rnd = random.Random(a.seed)
    n = a.ranks
    t0 = 1_763_800_000_000_000_000  # ns
    ranks = [{"cpu": [], "dev": [], "comm": [], "ops": [], "steps": []} for _ in range(n)]
    t = t0
    for step in range(1, a.steps + 1):
        step_start = t
        # Host launch gap at the start of the step: Free on the device (0.30 ms +- jitter).
        cursor = [step_start + 300_000 + rnd.randrange(0, 20_000) for _ in range(n)]
        for op in range(a.ops):
            small = op == a.ops - 1
            arrive = []
            for r in range(n):
                base = 2_000_000 + rnd.randrange(0, 20_000)  # 2.00-2.02 ms of compute per layer
                if r == a.slow_rank:
                    base = int(base * a.slow_factor)
                ranks[r]["dev"].append(("MatMulV2_%d" % op, cursor[r], base))
                arrive.append(cursor[r] + base)
            size = SMALL_OP_SIZE_MB if small else OP_SIZE_MB
            transit = {}
            for r in range(n):
                dst = (r + 1) % n
                bw = HCCS_GBPS if transport(r, dst, a.ranks_per_node) == "HCCS" else RDMA_GBPS
                transit[r] = int(round(size / bw * 1e6))  # ms -> ns
                if a.slow_link == "%d-%d" % (r, dst):
                    transit[r] = int(round(transit[r] / a.slow_link_factor))
            t_transit = max(transit.values())
            end = max(arrive) + t_transit
            name = "hcom_allReduce__%s_%d" % (HCCL_GROUP[-3:], (step - 1) * a.ops + op)
            for r in range(n):
                wait = max(arrive) - arrive[r]
                ranks[r]["comm"].append((name, arrive[r], end - arrive[r]))
                ranks[r]["ops"].append({"step": step, "name": name, "start": arrive[r], "elapse": end - arrive[r],
                                        "wait": wait, "transit": transit[r], "size": size, "dst": (r + 1) % n})
                cursor[r] = end
        step_end = max(cursor) + 100_000
        for r in range(n):
            ranks[r]["steps"].append((step, step_start, step_end))
        t = step_end + 50_000
    return ranks


def write_rank(a, rank, sim, folder):
    out = os.path.join(folder, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(out, exist_ok=True)
    pid = 10000 + rank
    hw, hccl = 800 + rank, pid * 1000
    ev = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "Python"}},
        {"ph": "M", "name": "thread_name", "pid": pid, "tid": pid, "args": {"name": "Thread %d" % pid}},
        {"ph": "M", "name": "process_name", "pid": hw, "tid": 0, "args": {"name": "Ascend Hardware"}},
        {"ph": "M", "name": "thread_name", "pid": hw, "tid": STREAM_COMPUTE, "args": {"name": "Stream %d" % STREAM_COMPUTE}},
        {"ph": "M", "name": "process_name", "pid": hccl, "tid": 0, "args": {"name": "HCCL"}},
        {"ph": "M", "name": "thread_name", "pid": hccl, "tid": 0, "args": {"name": "Group %s Communication" % a.hccl_group}},
    ]
    for step, s, e in sim["steps"]:
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % step, "pid": pid, "tid": pid, "ts": ts_str(s), "dur": us(e - s),
                   "cat": "cpu_op", "args": {}})
    for name, s, d in sim["dev"]:
        ev.append({"ph": "X", "name": name, "pid": hw, "tid": STREAM_COMPUTE, "ts": ts_str(s), "dur": us(d),
                   "args": {"Task Type": "AI_CORE", "Stream Id": STREAM_COMPUTE}})
    for name, s, d in sim["comm"]:
        ev.append({"ph": "X", "name": name, "pid": hccl, "tid": 0, "ts": ts_str(s), "dur": us(d), "args": {}})
    with open(os.path.join(out, "trace_view.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(x) for x in ev) + "\n]\n")

    comm, matrix = {}, {}
    for o in sim["ops"]:
        key = "%s@%s" % (o["name"], a.hccl_group)
        tr = transport(rank, o["dst"], a.ranks_per_node)
        bw = o["size"] / ms(o["transit"])
        large = 1.0 if o["size"] >= (0.5 if tr == "RDMA" else 32.0) else 0.0
        per_tr = {"Transit Size(MB)": o["size"], "Transit Time(ms)": ms(o["transit"]), "Bandwidth(GB/s)": round(bw, 4),
                  "Large Packet Ratio": large, "Size Distribution": {str(o["size"]): [1, ms(o["transit"])]}}
        empty = {"Transit Size(MB)": 0, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0, "Large Packet Ratio": 0, "Size Distribution": {}}
        bwinfo = {t: dict(empty) for t in ("RDMA", "HCCS", "PCIE", "SDMA", "SIO")}
        bwinfo[tr] = per_tr
        if tr == "HCCS":
            bwinfo["SDMA"] = dict(per_tr, **{"Large Packet Ratio": 0, "Size Distribution": {}})
        wait = o["wait"]
        comm.setdefault("step%d" % o["step"], {"collective": {}, "p2p": {}})["collective"][key] = {
            "Communication Time Info": {
                "Start Timestamp(us)": o["start"] / 1000.0, "Elapse Time(ms)": ms(o["elapse"]), "Transit Time(ms)": ms(o["transit"]),
                "Wait Time(ms)": ms(wait), "Synchronization Time(ms)": ms(wait), "Idle Time(ms)": ms(o["elapse"] - o["transit"] - wait),
                "Wait Time Ratio": round(wait / (wait + o["transit"]), 4),
                "Synchronization Time Ratio": round(wait / (wait + o["transit"]), 4)},
            "Communication Bandwidth Info": bwinfo,
        }
        t_link = o["transit"]  # a planted slow link is already slower here (simulate)
        matrix.setdefault("step%d" % o["step"], {"collective": {}, "p2p": {}})["collective"][key] = {
            "%d-%d" % (rank, rank): {"Transport Type": "LOCAL", "Transit Size(MB)": o["size"], "Transit Time(ms)": 0.01,
                                     "Bandwidth(GB/s)": round(o["size"] / 0.01, 4)},
            "%d-%d" % (rank, o["dst"]): {"Transport Type": tr, "Transit Size(MB)": o["size"], "Transit Time(ms)": ms(t_link),
                                         "Bandwidth(GB/s)": round(o["size"] / ms(t_link), 4)},
        }
    with open(os.path.join(out, "communication.json"), "w") as f:
        json.dump(comm, f, indent=1)
    with open(os.path.join(out, "communication_matrix.json"), "w") as f:
        json.dump(matrix, f, indent=1)
    info = {"config": {"common_config": {"activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"]},
                       "experimental_config": {"_profiler_level": "Level1"}}, "rank_id": rank}
    with open(os.path.join(folder, "profiler_info_%d.json" % rank), "w") as f:
        json.dump(info, f, indent=1)
    if a.group_name:
        meta = {"parallel_group_info": {GROUP_ID: {"group_name": a.group_name, "group_rank": rank,
                                                   "global_ranks": list(range(a.ranks))}}}
        with open(os.path.join(folder, "profiler_metadata.json"), "w") as f:
            json.dump(meta, f, indent=1)


def main():
    a = parse_args()
    a.hccl_group = hccl_group_name(GROUP_ID) if a.group_name else HCCL_GROUP
    sim = simulate(a)
    os.makedirs(a.outdir, exist_ok=True)
    folders = {}
    for r in range(a.ranks):
        node = r // a.ranks_per_node
        folder = os.path.join(a.outdir, "node%d_%d_20261122093000%03d_ascend_pt" % (node, 10000 + r, r))
        write_rank(a, r, sim[r], folder)
        folders[r] = folder
    dup = None
    if a.duplicate_rank >= 0:
        # An older capture of the same rank (earlier timestamp in the folder name): must be ignored.
        dup = os.path.join(a.outdir, "node9_%d_20261121080000000_ascend_pt" % (10000 + a.duplicate_rank))
        other = dict(sim[a.duplicate_rank])
        write_rank(a, a.duplicate_rank, other, dup)
    expected = {"ranks": a.ranks, "steps": a.steps, "ops_per_step": a.ops, "slow_rank": a.slow_rank,
                "slow_link": a.slow_link, "duplicate_folder": dup, "hccl_group": a.hccl_group, "per_rank": {}}
    for r in range(a.ranks):
        comp = sum(d for _, _, d in sim[r]["dev"])
        wait = sum(o["wait"] for o in sim[r]["ops"])
        expected["per_rank"][str(r)] = {"computing_ns": comp, "wait_ns": wait, "folder": folders[r]}
    with open(os.path.join(a.outdir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)


if __name__ == "__main__":
    main()
