#!/usr/bin/python3
"""Print the profiler's own per-step breakdown of a real run, read straight from what the
profiler wrote, as one JSON object per line (ns integers):
  {"step": 50, "computing": ..., "comm_not_overlapped": ..., "free": ..., "preparing": ... or null,
   "source": "..."}

Usage:  /usr/bin/python3 tests/realdata/verify_steps.py RUN

RUN is a *_ascend_pt folder (text export: ASCEND_PROFILER_OUTPUT/step_trace_time.csv; SQLite
export: analysis.db StepTraceTime), an msprof PROF_ folder of the CANN 6.x layout (the Overlap
Analysis track of each device_N/timeline/msprof_*_N.json, one file per iteration), or a folder
holding msprof_*.db (its OVERLAP_ANALYSIS table, one step). tests/realdata/step_semantics_realdata_test.cpp
checks the tool's recomputation against these numbers. Standard library only; decimals, no floats.
"""
import csv
import decimal
import glob
import json
import os
import re
import sqlite3
import sys

D = decimal.Decimal


def ns(us):
    return int((D(str(us).strip()) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def emit(step, computing, cno, free, preparing, source):
    print(json.dumps({"step": step, "computing": computing, "comm_not_overlapped": cno, "free": free,
                      "preparing": preparing, "source": source}))


def text_export(csv_path):
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            prep = r.get("Preparing")
            emit(int(r["Step"]) if r["Step"] else None, ns(r["Computing"]), ns(r["Communication(Not Overlapped)"]),
                 ns(r["Free"]), ns(prep) if prep not in (None, "") else None, "step_trace_time.csv")


def analysis_db(path):
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    for step, comp, cno, free, prep in db.execute(
            "SELECT step, CAST(computing AS TEXT), CAST(communication_not_overlapped AS TEXT), CAST(free AS TEXT), "
            "CAST(preparing AS TEXT) FROM StepTraceTime"):
        emit(int(step) if step is not None else None, ns(comp), ns(cno), ns(free),
             ns(prep) if prep is not None else None, "analysis.db StepTraceTime")


def msprof_iterations(prof):
    # One msprof_<device>_<model>_<iteration>.json per iteration, each with its own Overlap Analysis.
    files = glob.glob(os.path.join(prof, "device_*", "timeline", "msprof_*.json"))
    for path in sorted(files, key=lambda p: int(re.search(r"_(\d+)\.json$", p).group(1))):
        events = json.load(open(path), parse_float=D)
        if isinstance(events, dict):
            events = events["traceEvents"]
        pid = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"
               and e["args"]["name"] == "Overlap Analysis"}
        sums = {"Computing": 0, "Communication(Not Overlapped)": 0, "Free": 0}
        for e in events:
            if e.get("ph") == "X" and e.get("pid") in pid and e.get("name") in sums:
                sums[e["name"]] += ns(e["dur"])
        step = int(re.search(r"_(\d+)\.json$", path).group(1))
        emit(step, sums["Computing"], sums["Communication(Not Overlapped)"], sums["Free"], None,
             os.path.basename(path) + " Overlap Analysis")


def msprof_db(path):
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    by_type = dict(db.execute("SELECT type, SUM(endNs - startNs) FROM OVERLAP_ANALYSIS GROUP BY type"))
    # type: 0 computing, 1 communication, 2 communication not overlapped, 3 free
    emit(None, by_type.get(0, 0), by_type.get(2, 0), by_type.get(3, 0), None, "OVERLAP_ANALYSIS")


def main(run):
    out = os.path.join(run, "ASCEND_PROFILER_OUTPUT")
    if os.path.isfile(os.path.join(out, "step_trace_time.csv")):
        return text_export(os.path.join(out, "step_trace_time.csv"))
    if os.path.isfile(os.path.join(out, "analysis.db")):
        return analysis_db(os.path.join(out, "analysis.db"))
    if glob.glob(os.path.join(run, "device_*", "timeline")):
        return msprof_iterations(run)
    dbs = sorted(glob.glob(os.path.join(run, "msprof_*.db")))
    if dbs:
        return msprof_db(dbs[0])
    sys.exit(f"verify_steps.py: no profiler breakdown in {run}")


if __name__ == "__main__":
    main(sys.argv[1])
