#!/usr/bin/env python3
"""Independent cross-check of the counts asserted in realdata_test.cpp, computed with the
Python standard library (json, csv, gzip) rather than with our C++ loaders.

  python3 tests/realdata/verify_counts.py [REALDATA_DIR]
"""
import collections
import csv
import gzip
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/realdata")


def load_trace(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    return data["traceEvents"] if isinstance(data, dict) else data


def trace_counts(path):
    ev = load_trace(path)
    pname = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    by_ph = collections.Counter(e.get("ph") for e in ev)
    x_by_proc = collections.Counter(pname.get(e.get("pid"), "?") for e in ev if e.get("ph") in ("X", "i", "I"))
    flows = collections.defaultdict(lambda: collections.Counter())
    for e in ev:
        if e.get("ph") in ("s", "f"):
            flows[e.get("cat")][(str(e.get("id")), e["ph"])] += 1
    pairs = {}
    for cat, c in flows.items():
        ids = {k[0] for k in c}
        pairs[cat] = sum(min(c[(i, "s")], c[(i, "f")]) for i in ids)
    steps = sorted(e["name"] for e in ev if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#"))
    return {"events": len(ev), "by_ph": dict(by_ph), "x_by_process": dict(x_by_proc), "flow_pairs": pairs,
            "profiler_steps": steps}


def csv_rows(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], [r for r in rows[1:] if r and any(c.strip() for c in r)]
    good = [r for r in body if len(r) == len(header)]
    return header, good, len(body) - len(good)


def main():
    out = {}
    out["mstt_timeline_advice"] = trace_counts(f"{root}/ascend_torch_npu/mstt_timeline_advice/ASCEND_PROFILER_OUTPUT/trace_view.json")
    out["heatMap"] = trace_counts(f"{root}/ascend_torch_npu/msinsight_misc/heatMap/trace_view.json")
    for rank in (0, 1):
        base = f"{root}/ascend_torch_npu/msinsight_2rank/test_rank_{rank}/ASCEND_PROFILER_OUTPUT"
        h, good, bad = csv_rows(f"{base}/kernel_details.csv")
        core = h.index("Accelerator Core")
        out[f"rank{rank}_kernels"] = {"rows": len(good), "skipped": bad,
                                      "by_core": dict(collections.Counter(r[core] for r in good))}
        h, good, _ = csv_rows(f"{base}/step_trace_time.csv")
        out[f"rank{rank}_step_trace"] = [dict(zip(h, r)) for r in good]
        for name in ("memory_record.csv", "operator_memory.csv", "npu_module_mem.csv"):
            if os.path.exists(f"{base}/{name}"):
                out[f"rank{rank}_{name}"] = len(csv_rows(f"{base}/{name}")[1])
    h, good, bad = csv_rows(f"{root}/ascend_torch_npu/mstt_compute_advice/ASCEND_PROFILER_OUTPUT/kernel_details.csv")
    out["compute_advice_kernels"] = {"rows": len(good), "skipped": bad,
                                     "op_state": dict(collections.Counter(r[h.index("OP State")] for r in good))}
    out["kineto_cpu_only"] = trace_counts(f"{root}/kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
    out["kineto_resnet50"] = trace_counts(
        f"{root}/kineto/tb_plugin_samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz")
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


main()
