#!/usr/bin/env python3
# A serving-style loop of Hugging Face generate() on one NVIDIA H200: a randomly initialised Llama
# (8 layers, hidden 2048, bf16; no weights are downloaded), requests of varying batch size one after the
# other, each a profiler step, 128 prompt tokens and 24 new tokens per request (greedy, no early stop).
# Two modes: eager (dynamic KV cache) and static (cache_implementation="static", which generate()
# compiles with CUDA graphs). Writes per mode a Kineto trace (record_shapes on) and the unprofiled times:
# per batch size, the whole request and its first token (prefill), hence ms per decoded token.
#   python3 capture.py OUTDIR [eager|static ...]   # OUTDIR/generate_<mode>/*.pt.trace.json.gz, OUTDIR/times_<mode>.json
import json, os, statistics, sys, time
import torch
from torch.profiler import ProfilerActivity, profile, tensorboard_trace_handler
from transformers import LlamaConfig, LlamaForCausalLM

dev = "cuda" if torch.cuda.is_available() else "cpu"
cpu = dev == "cpu"  # a smoke run without a GPU: tiny sizes
PROMPT, NEW = (128, 24) if not cpu else (16, 4)
BATCHES = [1, 8, 32, 16, 4] if not cpu else [1, 2]


def model():
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=2048 if not cpu else 64, intermediate_size=5632 if not cpu else 128,
                      num_hidden_layers=8 if not cpu else 2, num_attention_heads=16 if not cpu else 4,
                      num_key_value_heads=8 if not cpu else 2, vocab_size=32000 if not cpu else 1000,
                      max_position_embeddings=512)
    return LlamaForCausalLM(cfg).to(dev, torch.bfloat16 if not cpu else torch.float32).eval()


def sync():
    if dev == "cuda":
        torch.cuda.synchronize()


def generate(m, bs, new, mode):
    ids = torch.randint(3, m.config.vocab_size, (bs, PROMPT), device=dev)
    kw = dict(max_new_tokens=new, min_new_tokens=new, do_sample=False, pad_token_id=0, eos_token_id=None)
    if mode == "static":
        kw["cache_implementation"] = "static"
    with torch.inference_mode():
        return m.generate(ids, attention_mask=torch.ones_like(ids), **kw)


def timed(m, bs, new, mode, n=5):
    ts = []
    for _ in range(n):
        sync(); t = time.perf_counter(); generate(m, bs, new, mode); sync()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def run(outdir, mode):
    m = model()
    batches = BATCHES if mode == "eager" else [8, 32]
    times = {"device": torch.cuda.get_device_name() if not cpu else "cpu", "torch": torch.__version__,
             "mode": mode, "prompt_tokens": PROMPT, "new_tokens": NEW, "batches": {}}
    for bs in batches:  # warm-up (and, for static, the compilation and graph capture of each shape)
        generate(m, bs, NEW, mode); generate(m, bs, 1, mode)
    for bs in batches:
        whole, first = timed(m, bs, NEW, mode), timed(m, bs, 1, mode)
        times["batches"][str(bs)] = {"request_ms": round(whole, 3), "prefill_ms": round(first, 3),
                                     "decode_ms_per_token": round((whole - first) / (NEW - 1), 4)}
        print(mode, bs, times["batches"][str(bs)], flush=True)
    out = os.path.join(outdir, f"generate_{mode}")
    os.makedirs(out, exist_ok=True)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if not cpu else [])
    with profile(activities=acts, record_shapes=True,
                 on_trace_ready=tensorboard_trace_handler(out, worker_name=f"generate_{mode}", use_gzip=True)) as p:
        for bs in batches:  # one request per profiler step
            generate(m, bs, NEW, mode)
            p.step()
    sync()
    with open(os.path.join(outdir, f"times_{mode}.json"), "w") as f:
        json.dump(times, f, indent=1)


if __name__ == "__main__":
    for mode in sys.argv[2:] or ["eager", "static"]:
        run(sys.argv[1], mode)
