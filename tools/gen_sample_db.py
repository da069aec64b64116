#!/usr/bin/python3
"""Write the SQLite (export_type=Db) form of a torch_npu text export.

Usage:  /usr/bin/python3 tools/gen_sample_db.py TEXT_RUN_DIR OUT_DIR

TEXT_RUN_DIR is a *_ascend_pt folder with a text export (testdata/sample/..._ascend_pt).
Writes OUT_DIR/<same folder name>/ with profiler_info*.json / profiler_metadata.json copied and
ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db + analysis.db holding the same records in
the documented DB schema (docs/formats.md, /work/shared/docs/formats.md 1.8): ns integers,
every text column an id into STRING_IDS, connection ids through CONNECTION_IDS, PMU metrics in
long form in TASK_PMU_INFO, memory in bytes.

It exists so a test can check that the DB loader and the text loaders give the same facts
(tests/loaders/db_export_test.cpp). Standard library only (sqlite3 module of Debian's python3);
all times are read as exact decimals, never through a float.
"""

import csv
import decimal
import json
import os
import shutil
import sqlite3
import sys

D = decimal.Decimal

API_ACL, API_MODEL, API_NODE, API_HCCL, API_RUNTIME = 20000, 15000, 10000, 5500, 5000
API_OP, API_QUEUE = 50001, 50002
OVERLAP_TYPES = {"Computing": 0, "Communication": 1, "Communication(Not Overlapped)": 2, "Free": 3}
MB = 1024 * 1024


def us_to_ns(v):
    """'1795310999823568.648', '1795310999823568.648\\t', Decimal or int us -> int ns (exact)."""
    if isinstance(v, str):
        v = D(v.strip().strip('"').strip())
    return int((D(v) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def opt_int(v):
    v = cell(v)
    return None if v in ("", "N/A") else int(v)


def cell(v):
    v = v.strip()
    if len(v) >= 2 and v[0] == '"' and v[-1] == '"':
        v = v[1:-1]
    return v


class Strings:
    def __init__(self):
        self.ids = {}

    def __call__(self, text):
        if text is None:
            return None
        if text not in self.ids:
            self.ids[text] = len(self.ids)
        return self.ids[text]


def create(db, table, columns):
    db.execute("CREATE TABLE %s (%s)" % (table, ", ".join(columns)))


def insert(db, table, rows):
    rows = list(rows)
    if rows:
        db.executemany("INSERT INTO %s VALUES (%s)" % (table, ",".join("?" * len(rows[0]))), rows)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out_root = sys.argv[1], sys.argv[2]
    name = os.path.basename(os.path.normpath(src))
    dst = os.path.join(out_root, name)
    out = os.path.join(dst, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(src):
        if f.startswith("profiler_") and f.endswith(".json"):
            shutil.copy(os.path.join(src, f), os.path.join(dst, f))
    text = os.path.join(src, "ASCEND_PROFILER_OUTPUT")
    with open(os.path.join(text, "trace_view.json")) as f:
        events = json.load(f, parse_float=D)

    sid = Strings()
    pname, tname = {}, {}
    for e in events:
        if e.get("ph") == "M" and e["name"] == "process_name":
            pname[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e["name"] == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]
    xs = [e for e in events if e.get("ph") == "X"]

    def ns(e):
        return us_to_ns(e["ts"])

    def end(e):
        return ns(e) + us_to_ns(e["dur"])

    def gtid(e):
        return (int(e["pid"]) << 32) | int(e["tid"])

    path = os.path.join(out, "ascend_pytorch_profiler_0.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    create(db, "TASK", ["startNs INTEGER", "endNs INTEGER", "deviceId INTEGER", "connectionId INTEGER",
                        "globalTaskId INTEGER PRIMARY KEY", "globalPid INTEGER", "taskType INTEGER",
                        "contextId INTEGER", "streamId INTEGER", "taskId INTEGER", "modelId INTEGER"])
    create(db, "COMPUTE_TASK_INFO", ["name INTEGER", "globalTaskId INTEGER PRIMARY KEY", "blockDim INTEGER",
                                     "mixBlockDim INTEGER", "taskType INTEGER", "opType INTEGER",
                                     "inputFormats INTEGER", "inputDataTypes INTEGER", "inputShapes INTEGER",
                                     "outputFormats INTEGER", "outputDataTypes INTEGER", "outputShapes INTEGER",
                                     "attrInfo INTEGER", "opState INTEGER", "hf32Eligible INTEGER", "waitNs INTEGER"])
    create(db, "TASK_PMU_INFO", ["globalTaskId INTEGER", "name INTEGER", "value NUMERIC"])
    create(db, "COMMUNICATION_OP", ["opName INTEGER", "startNs INTEGER", "endNs INTEGER", "connectionId INTEGER",
                                    "groupName INTEGER", "opId INTEGER PRIMARY KEY", "relay INTEGER", "retry INTEGER",
                                    "dataType INTEGER", "algType INTEGER", "count NUMERIC", "opType INTEGER",
                                    "deviceId INTEGER"])
    create(db, "CANN_API", ["startNs INTEGER", "endNs INTEGER", "type INTEGER", "globalTid INTEGER",
                            "connectionId INTEGER", "name INTEGER"])
    create(db, "PYTORCH_API", ["startNs INTEGER", "endNs INTEGER", "globalTid INTEGER", "connectionId INTEGER",
                               "name INTEGER", "sequenceNumber INTEGER", "fwdThreadId INTEGER",
                               "inputDtypes INTEGER", "inputShapes INTEGER", "callchainId INTEGER", "type INTEGER"])
    create(db, "CONNECTION_IDS", ["id INTEGER", "connectionId INTEGER"])
    create(db, "STEP_TIME", ["id INTEGER", "startNs INTEGER", "endNs INTEGER"])
    create(db, "OVERLAP_ANALYSIS", ["id INTEGER PRIMARY KEY AUTOINCREMENT", "deviceId INTEGER", "startNs INTEGER",
                                    "endNs INTEGER", "type INTEGER"])
    create(db, "MEMORY_RECORD", ["component INTEGER", "timestamp INTEGER", "totalAllocated INTEGER",
                                 "totalReserved INTEGER", "totalActive INTEGER", "streamPtr INTEGER",
                                 "deviceId INTEGER"])
    create(db, "OP_MEMORY", ["name INTEGER", "size INTEGER", "allocationTime INTEGER", "releaseTime INTEGER",
                             "activeReleaseTime INTEGER", "duration INTEGER", "activeDuration INTEGER",
                             "allocationTotalAllocated INTEGER", "allocationTotalReserved INTEGER",
                             "allocationTotalActive INTEGER", "releaseTotalAllocated INTEGER",
                             "releaseTotalReserved INTEGER", "releaseTotalActive INTEGER", "streamPtr INTEGER",
                             "deviceId INTEGER"])
    create(db, "ENUM_API_TYPE", ["id INTEGER PRIMARY KEY", "name TEXT"])
    insert(db, "ENUM_API_TYPE", [(API_RUNTIME, "runtime"), (API_HCCL, "hccl"), (API_NODE, "node"),
                                 (API_MODEL, "model"), (API_ACL, "acl"), (API_OP, "op"), (API_QUEUE, "queue")])
    create(db, "META_DATA", ["name TEXT", "value TEXT"])
    insert(db, "META_DATA", [("torch_npu_version", "2.1.0.post8"), ("source", "tools/gen_sample_db.py")])

    # ---- device tasks ----
    kernels = {}
    with open(os.path.join(text, "kernel_details.csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, kd = rows[0], rows[1:]
    col = {h: i for i, h in enumerate(header)}
    pmu_cols = header[col["Context ID"] + 1:]
    for r in kd:
        if r[col["Accelerator Core"]] == "HCCL":
            continue
        kernels[(us_to_ns(r[col["Start Time(us)"]]), int(r[col["Stream ID"]]), int(r[col["Task ID"]]))] = r
    hccl_types = {r[col["Name"]]: r[col["Type"]] for r in kd if r[col["Accelerator Core"]] == "HCCL"}

    task_rows, compute_rows, pmu_rows = [], [], []
    task_by_conn = {}
    hw = [e for e in xs if pname.get(e["pid"]) == "Ascend Hardware"]
    for gid, e in enumerate(hw):
        a = e["args"]
        conn = a.get("connection_id")
        task_rows.append((ns(e), end(e), 0, conn, gid, 0, sid(a["Task Type"]), a.get("Subtask Id"), a["Stream Id"],
                          a["Task Id"], a["Model Id"]))
        if conn is not None:
            task_by_conn.setdefault(conn, []).append(gid)
        k = kernels.pop((ns(e), int(a["Stream Id"]), int(a["Task Id"])), None)
        if k is None:
            continue

        def s(c):
            v = cell(k[col[c]])
            return None if v in ("", "N/A") else sid(v)

        def i(c):
            v = cell(k[col[c]])
            return None if v in ("", "N/A") else int(v)

        wait = cell(k[col["Wait Time(us)"]])
        compute_rows.append((sid(k[col["Name"]]), gid, i("Block Dim"), i("Mix Block Dim"), s("Accelerator Core"),
                             s("Type"), s("Input Formats"), s("Input Data Types"), s("Input Shapes"),
                             s("Output Formats"), s("Output Data Types"), s("Output Shapes"), None, s("OP State"),
                             s("HF32 Eligible"), None if wait in ("", "N/A") else us_to_ns(wait)))
        for c in pmu_cols:
            v = cell(k[col[c]])
            if v not in ("", "N/A"):
                pmu_rows.append((gid, sid(c), v))
    if kernels:
        sys.exit("gen_sample_db: %d kernel_details rows have no Ascend Hardware task" % len(kernels))
    insert(db, "TASK", task_rows)
    insert(db, "COMPUTE_TASK_INFO", compute_rows)
    insert(db, "TASK_PMU_INFO", pmu_rows)

    # ---- communication operators ----
    comm = [e for e in xs if pname.get(e["pid"]) in ("HCCL", "Communication")]
    comm_rows = []
    for op_id, e in enumerate(comm):
        a = e.get("args", {})
        group = tname.get((e["pid"], e["tid"]), "").replace("Group ", "").replace(" Communication", "")
        comm_rows.append((sid(e["name"]), ns(e), end(e), a.get("connection_id"), sid(group), op_id, 0, 0,
                          sid(a.get("data_type")), sid(a.get("alg_type")), a.get("count"),
                          sid(hccl_types.get(e["name"])), 0))
    insert(db, "COMMUNICATION_OP", comm_rows)

    # ---- CANN APIs ----
    prefixes = {"AscendCL": API_ACL, "Runtime": API_RUNTIME, "Node": API_NODE, "Model": API_MODEL, "HCCL": API_HCCL}
    cann_rows = []
    for e in xs:
        if pname.get(e["pid"]) != "CANN":
            continue
        pre, _, base = e["name"].partition("@")
        cann_rows.append((ns(e), end(e), prefixes[pre], gtid(e), e.get("args", {}).get("connection_id"), sid(base)))
    insert(db, "CANN_API", cann_rows)
    launch_start = {r[4]: r[0] for r in cann_rows if r[2] == API_NODE and r[4] is not None}
    flows = {}
    for e in events:
        if e.get("ph") in ("s", "f") and e.get("cat") in ("HostToDevice", "async_npu", "async_task_queue"):
            flows.setdefault((e["cat"], str(e["id"])), {})[e["ph"]] = e

    # ---- Python ops: async_npu and task-queue connections go through CONNECTION_IDS ----
    py = [e for e in xs if pname.get(e["pid"]) == "Python"]
    py_index = {}
    for idx, e in enumerate(py):
        py_index.setdefault((gtid(e), ns(e)), []).append(idx)
    links = {}  # python event index -> [TASK/queue connection ids]
    for (cat, _), pair in flows.items():
        if "s" not in pair or "f" not in pair:
            continue
        s, f = pair["s"], pair["f"]
        if cat == "HostToDevice":
            # The DB keeps only the connection id shared by Node@launch and the task, not the
            # arrow's start point (which lies inside the Node@launch): check the pair exists.
            task = next(t for t in hw if t["pid"] == f["pid"] and t["tid"] == f["tid"] and ns(t) == ns(f))
            if task["args"].get("connection_id") not in launch_start:
                sys.exit("gen_sample_db: HostToDevice %s has no Node@launch with its connection id" % s["id"])
            continue
        cands = py_index.get((gtid(s), ns(s)), [])
        if not cands:
            sys.exit("gen_sample_db: %s flow %s starts on no Python op" % (cat, s["id"]))
        src_idx = min(cands, key=lambda i: us_to_ns(py[i]["dur"]))  # the innermost op
        if cat == "async_npu":
            task = next(t for t in hw if t["pid"] == f["pid"] and t["tid"] == f["tid"] and ns(t) == ns(f))
            links.setdefault(src_idx, []).append(task["args"]["connection_id"])
        else:  # enqueue -> dequeue: both rows name the queue's correlation id
            dst = min(py_index[(gtid(f), ns(f))], key=lambda i: us_to_ns(py[i]["dur"]))
            corr = py[src_idx]["args"]["correlation_id"]
            links.setdefault(src_idx, []).append(corr)
            links.setdefault(dst, []).append(corr)
    conn_rows, py_rows = [], []
    next_id = 0
    for idx, e in enumerate(py):
        a = e.get("args", {})
        conn = None
        if idx in links:
            conn = next_id
            next_id += 1
            conn_rows += [(conn, c) for c in links[idx]]
        ty = API_QUEUE if e.get("cat") in ("enqueue", "dequeue") else API_OP
        py_rows.append((ns(e), end(e), gtid(e), conn, sid(e["name"]), a.get("Sequence number"),
                        a.get("Fwd thread id"), None, None, None, ty))
    insert(db, "PYTORCH_API", py_rows)
    insert(db, "CONNECTION_IDS", conn_rows)
    steps = [(int(e["name"].split("#")[1]), ns(e), end(e)) for e in py if e["name"].startswith("ProfilerStep#")]
    insert(db, "STEP_TIME", steps)

    # ---- the profiler's overlap segments ----
    insert(db, "OVERLAP_ANALYSIS", [(None, 0, ns(e), end(e), OVERLAP_TYPES[e["name"]]) for e in xs
                                    if pname.get(e["pid"]) == "Overlap Analysis"])

    # ---- memory (bytes) ----
    def mb_bytes(v):
        v = cell(v)
        return None if v in ("", "N/A") else int(D(v) * MB)

    def dev_of(v):
        v = cell(v)
        return int(v.split(":")[1]) if ":" in v else None

    p = os.path.join(text, "memory_record.csv")
    if os.path.exists(p):
        with open(p, newline="") as f:
            r = list(csv.DictReader(f))
        insert(db, "MEMORY_RECORD", [(sid(x["Component"]), us_to_ns(x["Timestamp(us)"]),
                                      mb_bytes(x["Total Allocated(MB)"]), mb_bytes(x["Total Reserved(MB)"]),
                                      mb_bytes(x["Total Active(MB)"]), opt_int(x["Stream Ptr"]),
                                      dev_of(x["Device Type"])) for x in r])
    p = os.path.join(text, "operator_memory.csv")
    if os.path.exists(p):
        with open(p, newline="") as f:
            r = list(csv.DictReader(f))

        def t(v):
            v = cell(v)
            return None if v in ("", "N/A") else us_to_ns(v)

        insert(db, "OP_MEMORY", [(sid(x["Name"]), int(D(cell(x["Size(KB)"])) * 1024), t(x["Allocation Time(us)"]),
                                  t(x["Release Time(us)"]), t(x["Active Release Time(us)"]), t(x["Duration(us)"]),
                                  t(x["Active Duration(us)"]), mb_bytes(x["Allocation Total Allocated(MB)"]),
                                  mb_bytes(x["Allocation Total Reserved(MB)"]),
                                  mb_bytes(x["Allocation Total Active(MB)"]),
                                  mb_bytes(x["Release Total Allocated(MB)"]),
                                  mb_bytes(x["Release Total Reserved(MB)"]), mb_bytes(x["Release Total Active(MB)"]),
                                  opt_int(x["Stream Ptr"]), dev_of(x["Device Type"])) for x in r])

    create(db, "STRING_IDS", ["id INTEGER PRIMARY KEY", "value TEXT"])
    insert(db, "STRING_IDS", [(i, s) for s, i in sid.ids.items()])
    db.commit()
    db.close()

    # ---- analysis.db: the profiler's step breakdown (us), computed from the database above ----
    path = os.path.join(out, "analysis.db")
    if os.path.exists(path):
        os.remove(path)
    rows = step_trace_time_rows(os.path.join(out, "ascend_pytorch_profiler_0.db"))
    db = sqlite3.connect(path)
    create(db, "StepTraceTime", ["deviceId INTEGER", "step TEXT", "computing NUMERIC",
                                 "communication_not_overlapped NUMERIC", "overlapped NUMERIC", "communication NUMERIC",
                                 "free NUMERIC", "stage NUMERIC", "bubble NUMERIC",
                                 "communication_not_overlapped_and_exclude_receive NUMERIC", "preparing NUMERIC"])
    insert(db, "StepTraceTime", rows)
    db.commit()
    db.close()


def merged(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def minus(a, b):
    """Length of the points of merged a that are not in merged b."""
    n = 0
    for s, e in a:
        cur = s
        for c, d in b:
            if d <= cur or c >= e:
                continue
            n += max(0, c - cur)
            cur = max(cur, d)
        n += max(0, e - cur)
    return n


def step_trace_time_rows(profiler_db):
    """StepTraceTime as torch_npu's DB export computes it (docs/overlap.md): a step's device window
    starts at the first task launched by a Node@ API inside the host step and ends at the later of
    its last such task and the host step's end; computing = COMPUTE_TASK_INFO tasks and
    communication = COMMUNICATION_OP spans starting in the window, merged per step; Free = the
    gaps between them; Preparing = first task - host step start. Values in us, as the CSV."""
    db = sqlite3.connect(profiler_db)
    compute = db.execute("SELECT t.startNs, t.endNs FROM COMPUTE_TASK_INFO c JOIN TASK t "
                         "ON c.globalTaskId = t.globalTaskId").fetchall()
    comm = db.execute("SELECT o.startNs, o.endNs, s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s "
                      "ON s.id = o.opName").fetchall()
    device = db.execute("SELECT deviceId FROM TASK LIMIT 1").fetchone()[0]
    rows = []
    for step, hs, he in db.execute("SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs").fetchall():
        conns = {r[0] for r in db.execute("SELECT connectionId FROM CANN_API WHERE type = ? AND ? <= startNs "
                                          "AND endNs <= ?", (API_NODE, hs, he))}
        tasks = [r for r in db.execute("SELECT startNs, endNs, connectionId FROM TASK") if r[2] in conns]
        lo = min(t[0] for t in tasks) if tasks else hs
        hi = max(max(t[1] for t in tasks), he) if tasks else he
        c = merged([(a, b) for a, b in compute if lo <= a < hi])
        x = merged([(a, b) for a, b, _ in comm if lo <= a < hi])
        bubble = sum(b - a for a, b, n in comm if lo <= a < hi and n.startswith("hcom_receive"))
        busy = merged(c + x)
        comp, comm_t = sum(b - a for a, b in c), sum(b - a for a, b in x)
        cno = minus(x, c)
        e2e = busy[-1][1] - busy[0][0] if busy else 0
        first = min([a for a, _ in c[:1]] + [a for a, _ in x[:1]]) if busy else hs
        us = lambda ns: str(D(ns) / 1000)
        rows.append((device, str(step), us(comp), us(cno), us(comm_t - cno), us(comm_t), us(e2e - comp - cno),
                     us(e2e - bubble), us(bubble), us(cno - bubble), us(first - hs)))
    db.close()
    return rows

if __name__ == "__main__":
    main()
