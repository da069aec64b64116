#!/usr/bin/env python3
# A GEMM ladder on one NVIDIA H200: torch.mm at square and skinny shapes in fp32 (CUDA cores), TF32 and
# bf16, timed with CUDA events (median of 20 after 5 warm-ups), and one Kineto trace holding one product
# of each (record_shapes on: the kernels each precision picks, with their shapes). What a GEMM reaches on
# this chip, per precision and shape (and a 4 GiB device copy, for the memory roof): the roofline's achievable fraction is read here, not from the
# workloads it is checked on (h200_precision/).
#   python3 ladder.py OUTDIR      # OUTDIR/ladder.json, OUTDIR/trace/*.pt.trace.json.gz
import json, os, statistics, sys
import torch
from torch.profiler import ProfilerActivity, profile, tensorboard_trace_handler

dev = "cuda" if torch.cuda.is_available() else "cpu"
SHAPES = [(n, n, n) for n in (256, 512, 1024, 2048, 4096, 8192)] + \
         [(m, 4096, 4096) for m in (1, 8, 32, 128, 512)] + [(4096, 4096, 1000), (4096, 4000, 4096)]
if dev == "cpu":
    SHAPES = [(64, 64, 64), (8, 128, 128)]
MODES = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16}


def timed(a, b, reps=20):
    for _ in range(5):
        torch.mm(a, b)
    if dev != "cuda":
        return 0.0
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); torch.mm(a, b); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def timed_copy(src, dst, reps=10):
    for _ in range(3):
        dst.copy_(src)
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); dst.copy_(src); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    out = {"device": torch.cuda.get_device_name() if dev == "cuda" else "cpu", "torch": torch.__version__,
           "rows": []}
    operands = {}
    for mode, dtype in MODES.items():
        torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
        for m, n, k in SHAPES:
            a = torch.randn(m, k, device=dev, dtype=dtype); b = torch.randn(k, n, device=dev, dtype=dtype)
            operands[(mode, m, n, k)] = (a, b)
            ms = timed(a, b)
            flops, size = 2.0 * m * n * k, torch.finfo(dtype).bits // 8
            nbytes = size * (m * k + k * n + m * n)
            row = {"mode": mode, "m": m, "n": n, "k": k, "ms": round(ms, 5),
                   "tflops": round(flops / ms / 1e9, 2) if ms else None,
                   "gbps": round(nbytes / ms / 1e6, 1) if ms else None}
            out["rows"].append(row)
            print(row, flush=True)
    if dev == "cuda":  # HBM: a 4 GiB device-to-device copy, bytes read and written
        src = torch.empty(1 << 30, dtype=torch.float32, device=dev); dst = torch.empty_like(src)
        ms = timed_copy(src, dst)
        out["copy"] = {"bytes_moved": 2 * src.numel() * 4, "ms": round(ms, 4),
                       "tb_per_s": round(2 * src.numel() * 4 / ms / 1e9, 3)}
        print(out["copy"], flush=True)
        del src, dst
    with open(os.path.join(outdir, "ladder.json"), "w") as f:
        json.dump(out, f, indent=1)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
    with profile(activities=acts, record_shapes=True,
                 on_trace_ready=tensorboard_trace_handler(os.path.join(outdir, "trace"), worker_name="ladder",
                                                          use_gzip=True)):
        for (mode, m, n, k), (a, b) in operands.items():
            torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
            torch.mm(a, b)
        if dev == "cuda":
            torch.cuda.synchronize()


if __name__ == "__main__":
    main(sys.argv[1])
