#!/usr/bin/env python3
"""Writes vllm_ascend_decode_ascend_pt/: a torch_npu text export (trace_view.json and
profiler_info.json) of a vLLM-Ascend decode loop, built from the formats' documentation and
vLLM-Ascend's source, since no vLLM-Ascend profile is public (docs/facts-inference.md, "Ascend").

What it holds, per iteration k (period 1000 us, b = 100 + 1000 k, on the worker's Python thread):
  the model runner's stages (VLLM_CUSTOM_SCOPES_FOR_PROFILING=1, vllm_ascend/worker/model_runner_v1.py):
  "prepare input" [b, b+200] launching one task (b+60, 20 us) through Node@launch (HostToDevice arrow);
  "forward" [b+220, b+320] replaying an ACL graph (AscendCL@aclmdlRIExecuteAsync at b+230: two tasks
  with no arrow, b+245 150 us and b+400 150 us); "post process" [b+330, b+380];
  "sample_token" [b+400, b+700] launching the sampler (b+560, 20 us).
Iteration 4 runs eager (its batch above the largest captured size): the forward's two operators
launched one by one (b+240 -> b+250 160 us, b+260 -> b+410 160 us).
So each graphed iteration's own window is 520 us (b+60 -> b+580), busy 340 us, 300 from the graph;
its window ends with the host span (b+700) and the device idles 360 us until the next one: the
host's turn, 36% of the 1000 us period. Run: python3 make_vllm_ascend_decode.py [OUT_DIR]
"""
import json
import os
import sys

BASE_US = 1_700_000_000_000_000 / 1000  # a plausible epoch in us (torch_npu writes local us)
ITERATIONS = 8
EAGER = {4}


def ts(us):
    return f"{BASE_US + us:.3f}"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "vllm_ascend_decode_ascend_pt")
    ev = []
    flow = [0]

    def x(pid, tid, name, at, dur, cat=None, args=None):
        e = {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts(at), "dur": round(dur, 3)}
        if cat:
            e["cat"] = cat
        if args:
            e["args"] = args
        ev.append(e)

    def task(name, at, dur):
        x(3, 3, name, at, dur, args={"Task Type": "AI_CORE", "Stream Id": 3})

    def launch(at, start, dur, name):
        flow[0] += 1
        fid = str(flow[0])
        x(2, 2, "Node@launch", at - 1, 2)
        ev.append({"ph": "s", "bp": "e", "name": "HostToDevice" + fid, "cat": "HostToDevice", "id": fid,
                   "pid": 2, "tid": 2, "ts": ts(at)})
        task(name, start, dur)
        ev.append({"ph": "f", "bp": "e", "name": "HostToDevice" + fid, "cat": "HostToDevice", "id": fid,
                   "pid": 3, "tid": 3, "ts": ts(start)})

    for k in range(ITERATIONS):
        b = 100 + 1000.0 * k
        x(1, 1, "prepare input", b, 200, "cpu_op")
        x(1, 1, "forward", b + 220, 100, "cpu_op")
        x(1, 1, "post process", b + 330, 50, "cpu_op")
        x(1, 1, "sample_token", b + 400, 300, "cpu_op")
        launch(b + 50, b + 60, 20, "PrepareInputs")
        if k in EAGER:
            launch(b + 240, b + 250, 160, "MatMulV2")
            launch(b + 260, b + 410, 160, "FusedInferAttentionScore")
        else:
            x(2, 2, "AscendCL@aclmdlRIExecuteAsync", b + 230, 10)
            task("MatMulV2", b + 245, 150)
            task("FusedInferAttentionScore", b + 400, 150)
        launch(b + 420, b + 560 + (20 if k in EAGER else 0), 20, "ArgMaxV2")
    for pid, name in ((1, "Python"), (2, "CANN"), (3, "Ascend Hardware")):
        ev.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": name}})
    ev.append({"ph": "M", "name": "process_labels", "pid": 3, "tid": 0, "args": {"labels": "NPU 0"}})
    ev.append({"ph": "M", "name": "thread_name", "pid": 3, "tid": 3, "args": {"name": "Stream 3"}})
    os.makedirs(os.path.join(out, "ASCEND_PROFILER_OUTPUT"), exist_ok=True)
    with open(os.path.join(out, "ASCEND_PROFILER_OUTPUT", "trace_view.json"), "w") as f:
        json.dump(ev, f, indent=0)
    # vLLM-Ascend's wrapper (vllm_ascend/profiler/torch_npu_profiler.py): no schedule, Level1.
    info = {"config": {"common_config": {"activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"],
                                         "record_shapes": False, "profile_memory": False, "with_stack": False,
                                         "with_flops": False, "with_modules": False},
                       "experimental_config": {"_profiler_level": "Level1", "_aic_metrics": "PipeUtilization",
                                               "_l2_cache": False, "_data_simplification": True,
                                               "record_op_args": False}},
            "rank_id": 0}
    with open(os.path.join(out, "profiler_info_0.json"), "w") as f:
        json.dump(info, f, indent=4)


if __name__ == "__main__":
    main()
