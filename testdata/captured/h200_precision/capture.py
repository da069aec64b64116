#!/usr/bin/env python3
# fp32 training workloads captured on one NVIDIA H200, each in three modes: as written (fp32: PyTorch's
# default, matmul in fp32 on the CUDA cores, cuDNN convolutions already allowed TF32), with TF32 matmuls
# (torch.backends.cuda.matmul.allow_tf32 = True: the fix compute.precision prints) and under bf16 autocast.
# For each: the unprofiled step time (median of 20 steps after 5 warm-ups, a synchronize after each) and a
# Kineto trace of 5 steps (record_shapes on, the roofline needs them), so that the precision finding's
# predicted saving can be checked against the realised one (issue 44).
#   python3 capture.py OUTDIR [WORKLOAD...]      # writes OUTDIR/<workload>_<mode>/*.pt.trace.json.gz
#                                                  and OUTDIR/times.json
#   python3 capture.py --job WORKLOAD MODE [STEPS] # the plain job, no profiler of its own (for
#                                                  `npu-advisor verify -o DIR -- python3 capture.py --job ...`)
import json, os, statistics, sys, time
import torch, torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

dev = "cuda" if torch.cuda.is_available() else "cpu"
small_cpu = dev == "cpu"  # a smoke run on a machine without a GPU: the same code, tiny sizes


def sz(n):
    return max(8, n // 32) if small_cpu else n


def mlp(width, depth, batch):
    model = nn.Sequential(*[m for _ in range(depth) for m in (nn.Linear(width, width), nn.GELU())]).to(dev)
    x = torch.randn(batch, width, device=dev)
    return model, (lambda: model(x).pow(2).mean())


def transformer():
    d, heads, ff, layers, batch, seq = sz(1024), 16, sz(4096), 4, 32 if not small_cpu else 2, sz(256)
    layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).to(dev)
    x = torch.randn(batch, seq, d, device=dev)
    return model, (lambda: model(x).pow(2).mean())


def convnet():
    c = sz(128)
    model = nn.Sequential(
        nn.Conv2d(3, c, 3, padding=1), nn.ReLU(), nn.Conv2d(c, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(), nn.Conv2d(2 * c, 2 * c, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(2 * c * 16, sz(4096)), nn.ReLU(),
        nn.Linear(sz(4096), 1000)).to(dev)
    x = torch.randn(64 if not small_cpu else 2, 3, sz(64), sz(64), device=dev)
    return model, (lambda: model(x).pow(2).mean())


WORKLOADS = {
    "mlp4096": lambda: mlp(sz(4096), 6, sz(4096)),    # 6 x Linear(4096), batch 4096: GEMM-bound
    "mlp8192": lambda: mlp(sz(8192), 4, sz(2048)),    # wider weights, smaller batch
    "transformer": transformer,                       # 4 encoder layers, d=1024, seq 256, batch 32
    "convnet": convnet,                               # convolutions (TF32 by cuDNN's default) + a Linear head
    "small": lambda: mlp(sz(256), 8, sz(128) if not small_cpu else 8),  # tiny GEMMs: launch-bound
}


def sync():
    if dev == "cuda":
        torch.cuda.synchronize()


def make_step(name, mode):
    torch.manual_seed(0)
    model, loss_fn = WORKLOADS[name]()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step():
        with torch.autocast(dev, dtype=torch.bfloat16, enabled=(mode == "bf16")):
            loss = loss_fn()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def capture(outdir, name, mode, times):
    torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
    step = make_step(name, mode)
    for _ in range(5):
        step()
    sync()
    ts = []
    for _ in range(20):
        t = time.perf_counter(); step(); sync(); ts.append((time.perf_counter() - t) * 1e3)
    out = os.path.join(outdir, f"{name}_{mode}")
    os.makedirs(out, exist_ok=True)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev == "cuda" else [])
    with profile(activities=acts, schedule=schedule(wait=1, warmup=1, active=5, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(out, worker_name=f"{name}_{mode}", use_gzip=True),
                 record_shapes=True) as p:
        for _ in range(8):
            step()
            p.step()
    sync()
    times[f"{name}_{mode}"] = {"median_ms": round(statistics.median(ts), 4), "min_ms": round(min(ts), 4),
                               "max_ms": round(max(ts), 4), "steps": len(ts)}
    print(f"{name}_{mode}: median {statistics.median(ts):.3f} ms (min {min(ts):.3f}, max {max(ts):.3f})", flush=True)


def job(name, mode, steps):
    torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
    step = make_step(name, mode)
    for _ in range(steps):
        step()
    sync()
    print(f"{name}_{mode}: {steps} steps", flush=True)


def main():
    if sys.argv[1] == "--job":
        return job(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 14)
    outdir = sys.argv[1]
    names = sys.argv[2:] or list(WORKLOADS)
    times = {"device": torch.cuda.get_device_name() if dev == "cuda" else "cpu", "torch": torch.__version__}
    for name in names:
        for mode in ("fp32", "tf32", "bf16"):
            capture(outdir, name, mode, times)
            with open(os.path.join(outdir, "times.json"), "w") as f:
                json.dump(times, f, indent=1)


if __name__ == "__main__":
    main()
