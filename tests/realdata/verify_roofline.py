#!/usr/bin/env python3
"""Independent figures for the roofline facts (docs/facts-roofline.md), from the inputs with plain
json / csv: no code of the tool. Prints JSON the realdata test compares the tool's facts with.

  verify_roofline.py kineto TRACE.json.gz   GEMM FLOPs per ProfilerStep (aten::mm / addmm / bmm /
                                            linear's addmm from Input Dims) and each GEMM group's
                                            achieved FLOP/s over the kernels its op launched
  verify_roofline.py ascend kernel_details.csv   clock, AI cores, and each Conv2D* / MatMulV2 row's
                                            FLOPs, bytes and rates
"""
import csv, gzip, json, statistics, sys
from collections import defaultdict


def kineto(path):
    opener = gzip.open if path.endswith(".gz") else open
    ev = json.load(opener(path, "rt"))["traceEvents"]
    steps = sorted((e["ts"], e["ts"] + e["dur"], e["name"]) for e in ev
                   if e.get("cat") in ("cpu_op", "user_annotation") and e.get("name", "").startswith("ProfilerStep#"))
    ops = [e for e in ev if e.get("cat") == "cpu_op" and e.get("name") in ("aten::mm", "aten::addmm", "aten::bmm")]
    calls = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})]
    kernels = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "kernel" and "correlation" in e.get("args", {})}
    per_step = defaultdict(float)
    groups = defaultdict(lambda: [0.0, 0.0, 0])  # key -> flops, kernel seconds, count
    for op in ops:
        d = op["args"]["Input Dims"]
        a, b = (d[1], d[2]) if op["name"] == "aten::addmm" else (d[0], d[1])
        batch = a[0] if len(a) == 3 else 1
        m, k, n = a[-2], a[-1], b[-1]
        flops = 2.0 * batch * m * k * n
        for s0, s1, name in steps:
            if s0 <= op["ts"] < s1:
                per_step[name] += flops
        # the kernels launched by runtime calls inside the op on its thread
        t = 0.0
        for c in calls:
            if c["tid"] == op["tid"] and op["ts"] <= c["ts"] <= op["ts"] + op["dur"]:
                kern = kernels.get(c["args"]["correlation"])
                if kern:
                    t += kern["dur"] * 1e-6
        g = groups[(op["name"], json.dumps(d))]
        g[0] += flops
        g[1] += t
        g[2] += 1
    return {"gemm_flops_per_step": dict(per_step),
            "groups": [{"op": k[0], "shapes": k[1], "count": v[2], "flops": v[0],
                        "achieved_flops_per_s": v[0] / v[1] if v[1] else None} for k, v in groups.items()]}


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def ascend(path):
    rows = list(csv.DictReader(open(path)))
    clocks, cores, out = [], [], []
    size = {"FLOAT": 4, "FLOAT16": 2, "BF16": 2, "INT32": 4, "INT64": 8}
    for r in rows:
        try:
            cyc, t_us, bd, dur = float(r["aic_total_cycles"]), float(r["aicore_time(us)"]), int(r["Block Dim"]), float(r["Duration(us)"])
        except (ValueError, KeyError):
            continue
        if cyc <= 0 or t_us <= 0 or bd <= 0:
            continue
        mhz = cyc / (t_us * bd)
        clocks.append(mhz)
        u = float(r["cube_utilization(%)"]) if r.get("cube_utilization(%)") not in (None, "", "N/A") else 0
        if u > 1:
            cores.append(cyc / mhz / (dur * u / 100))
    for r in rows:
        typ = r["Type"]
        if not (typ.startswith("Conv2D") or typ == "MatMulV2"):
            continue
        ins = [[int(x) for x in s.split(",")] if s else [] for s in r["Input Shapes"].strip('"').split(";")]
        outs = [[int(x) for x in s.split(",")] if s else [] for s in r["Output Shapes"].strip('"').split(";")]
        tin = r["Input Data Types"].split(";")
        tout = r["Output Data Types"].split(";")
        nbytes = sum(prod(s) * size[t] for s, t in zip(ins, tin) if s) + sum(prod(s) * size[t] for s, t in zip(outs, tout) if s)
        if typ == "MatMulV2":
            m, n = outs[0][-2], outs[0][-1]
            k = ins[0][1] if ins[0][0] == m else ins[0][0]
            flops = 2.0 * m * k * n
        else:
            if typ.startswith("Conv2DBackpropFilter"):
                w, y = outs[0], ins[2]
            elif typ.startswith("Conv2DBackpropInput"):
                w, y = ins[1], ins[2]
            else:
                w, y = ins[1], outs[0]
            flops = 2.0 * y[0] * y[2] * y[3] * prod(w)
        secs = float(r["Duration(us)"]) * 1e-6
        out.append({"type": typ, "shapes": r["Input Shapes"].strip('"'), "flops": flops, "bytes": nbytes,
                    "intensity": flops / nbytes, "achieved_flops_per_s": flops / secs})
    return {"clock_mhz": statistics.median(clocks) if clocks else None,
            "cores": round(statistics.median(cores)) if cores else None, "ops": out}


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    print(json.dumps(kineto(path) if kind == "kineto" else ascend(path), indent=1))
