#!/usr/bin/python3
"""Scale the DB export of the shipped sample up to a big SQLite database, for the DB load bench.

Usage:  /usr/bin/python3 bench/gen_big_db.py OUT_DIR [--size 1G]

Writes the sample's DB export (tools/gen_sample_db.py) to OUT_DIR, then doubles every table of
ascend_pytorch_profiler_0.db in SQL until the file reaches --size (K/M/G = powers of 1000):
each copy is shifted past the previous one in time, and its global task ids, connection ids,
CONNECTION_IDS ids, step ids and operator ids are shifted past the previous maxima, so the
scaled run is a longer run of the same job (every link still resolves). Prints the DB path.
"""

import argparse
import os
import sqlite3
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(REPO, "testdata/sample/localhost_4242_20261122093000123_ascend_pt")


def size_arg(text):
    mult = {"K": 10**3, "M": 10**6, "G": 10**9}
    return int(float(text[:-1]) * mult[text[-1].upper()]) if text[-1].upper() in mult else int(text)


def one(db, sql):
    v = db.execute(sql).fetchone()[0]
    return v if v is not None else 0


def double(db):
    dt = one(db, "SELECT max(endNs) - min(startNs) FROM TASK") + 1_000_000
    dg = one(db, "SELECT max(globalTaskId) FROM TASK") + 1
    dc = max(one(db, "SELECT max(connectionId) FROM TASK"), one(db, "SELECT max(connectionId) FROM CANN_API"),
             one(db, "SELECT max(connectionId) FROM CONNECTION_IDS"),
             one(db, "SELECT max(connectionId) FROM COMMUNICATION_OP")) + 1
    di = one(db, "SELECT max(id) FROM CONNECTION_IDS") + 1
    ds = one(db, "SELECT max(id) FROM STEP_TIME") + 1
    do = one(db, "SELECT max(opId) FROM COMMUNICATION_OP") + 1
    p = {"dt": dt, "dg": dg, "dc": dc, "di": di, "ds": ds, "do": do}
    db.execute("INSERT INTO TASK SELECT startNs+:dt, endNs+:dt, deviceId, connectionId+:dc, globalTaskId+:dg, "
               "globalPid, taskType, contextId, streamId, taskId, modelId FROM TASK", p)
    db.execute("INSERT INTO COMPUTE_TASK_INFO SELECT name, globalTaskId+:dg, blockDim, mixBlockDim, taskType, opType, "
               "inputFormats, inputDataTypes, inputShapes, outputFormats, outputDataTypes, outputShapes, attrInfo, "
               "opState, hf32Eligible, waitNs FROM COMPUTE_TASK_INFO", p)
    db.execute("INSERT INTO TASK_PMU_INFO SELECT globalTaskId+:dg, name, value FROM TASK_PMU_INFO", p)
    db.execute("INSERT INTO COMMUNICATION_OP SELECT opName, startNs+:dt, endNs+:dt, connectionId+:dc, groupName, "
               "opId+:do, relay, retry, dataType, algType, count, opType, deviceId FROM COMMUNICATION_OP", p)
    db.execute("INSERT INTO CANN_API SELECT startNs+:dt, endNs+:dt, type, globalTid, connectionId+:dc, name "
               "FROM CANN_API", p)
    db.execute("INSERT INTO PYTORCH_API SELECT startNs+:dt, endNs+:dt, globalTid, connectionId+:di, name, "
               "sequenceNumber, fwdThreadId, inputDtypes, inputShapes, callchainId, type FROM PYTORCH_API", p)
    db.execute("INSERT INTO CONNECTION_IDS SELECT id+:di, connectionId+:dc FROM CONNECTION_IDS", p)
    db.execute("INSERT INTO STEP_TIME SELECT id+:ds, startNs+:dt, endNs+:dt FROM STEP_TIME", p)
    db.execute("INSERT INTO OVERLAP_ANALYSIS (deviceId, startNs, endNs, type) "
               "SELECT deviceId, startNs+:dt, endNs+:dt, type FROM OVERLAP_ANALYSIS", p)
    db.execute("INSERT INTO MEMORY_RECORD SELECT component, timestamp+:dt, totalAllocated, totalReserved, "
               "totalActive, streamPtr, deviceId FROM MEMORY_RECORD", p)
    db.commit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", default="1G", type=size_arg)
    a = ap.parse_args()
    subprocess.check_call([sys.executable, os.path.join(REPO, "tools/gen_sample_db.py"), SAMPLE, a.out])
    path = os.path.join(a.out, os.path.basename(SAMPLE), "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_0.db")
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    while os.path.getsize(path) < a.size:
        double(db)
        print("gen_big_db: %d MB, %d tasks" % (os.path.getsize(path) // 10**6, one(db, "SELECT count(*) FROM TASK")),
              file=sys.stderr)
    db.close()
    print(path)


if __name__ == "__main__":
    main()
