#!/usr/bin/python3
"""Independent cross-check of the counts asserted in formats_realdata_test.cpp (SQLite exports,
msprof PROF_ folders, MindSpore legacy timelines), computed with Python's sqlite3 and json
modules rather than with our C++ loaders.

  /usr/bin/python3 tests/realdata/verify_formats.py [REALDATA_DIR]
"""
import collections
import glob
import json
import os
import re
import sqlite3
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/realdata")


def ro(path):
    return sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)  # never writes -shm/-wal beside it


def profiler_db(path):
    c = ro(path)
    s = dict(c.execute("SELECT id, value FROM STRING_IDS"))
    tasks = c.execute("SELECT count(*) FROM TASK").fetchone()[0]
    streams = c.execute("SELECT count(DISTINCT deviceId || '/' || streamId) FROM TASK").fetchone()[0]
    compute = c.execute("SELECT count(*) FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"
                        ).fetchone()[0]
    comm_tasks = c.execute("SELECT count(*) FROM TASK t JOIN COMMUNICATION_TASK_INFO c "
                           "ON c.globalTaskId = t.globalTaskId").fetchone()[0]
    by_core = collections.Counter(s.get(r[0]) for r in c.execute(
        "SELECT c.taskType FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"))
    overlap = collections.Counter(r[0] for r in c.execute("SELECT type FROM OVERLAP_ANALYSIS"))
    comp_ns = sum(r[0] for r in c.execute(
        "SELECT t.endNs - t.startNs FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"))
    first = c.execute("SELECT t.rowid, c.name, c.blockDim FROM TASK t JOIN COMPUTE_TASK_INFO c "
                      "ON c.globalTaskId = t.globalTaskId ORDER BY t.startNs, t.rowid LIMIT 1").fetchone()
    return {"tasks": tasks, "device_streams": streams, "compute_tasks": compute, "comm_tasks": comm_tasks,
            "kernels_by_core": dict(by_core), "overlap_by_type": dict(overlap),
            "cann_api": c.execute("SELECT count(*) FROM CANN_API").fetchone()[0],
            "communication_op": c.execute("SELECT count(*) FROM COMMUNICATION_OP").fetchone()[0],
            "compute_dur_ns": comp_ns, "first_kernel": [first[0], s.get(first[1]), first[2]]}


def analysis_db(path):
    c = ro(path)
    rows = c.execute("SELECT rowid, deviceId, step, CAST(computing AS TEXT), CAST(free AS TEXT) FROM StepTraceTime"
                     ).fetchall()
    return [list(r) for r in rows]


def trace_counts(paths):
    events, x_by_proc, step_thread, iterations = 0, collections.Counter(), 0, set()
    for p in paths:
        with open(p) as f:
            ev = json.load(f)
        ev = ev["traceEvents"] if isinstance(ev, dict) else ev
        pname = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
        tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
                 if e.get("ph") == "M" and e.get("name") == "thread_name"}
        events += len(ev)
        x_by_proc.update(pname.get(e.get("pid"), "pid %s" % e.get("pid")) for e in ev if e.get("ph") == "X")
        for e in ev:
            if e.get("ph") == "X" and tname.get((e["pid"], e["tid"]), "").startswith("Step Trace"):
                step_thread += 1
                if re.fullmatch(r"Iteration \d+", e["name"]):
                    iterations.add(e["name"])
    return {"files": len(paths), "events": events, "x_by_process": dict(x_by_proc),
            "step_trace_thread_x": step_thread, "iterations": len(iterations)}


def main():
    out = {}
    out["msprof_0.db"] = profiler_db(f"{root}/ascend_db/msinsight_full_db/msprof_0.db")
    out["analysis.db"] = analysis_db(f"{root}/ascend_db/msinsight_multiDevice/ASCEND_PROFILER_OUTPUT/analysis.db")
    for prof in sorted(glob.glob(f"{root}/msprof_PROF/mindinsight_2device/PROF_*")):
        out[os.path.basename(prof)] = trace_counts(sorted(glob.glob(f"{prof}/device_*/timeline/msprof_*.json")))
    out["ms_legacy_run_2"] = trace_counts(
        [f"{root}/mindspore_legacy/mindinsight_run_2/profiler/ascend_timeline_display_1.json"])
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


main()
