#!/usr/bin/env bash
# The one device run of the session of 2026-11-28 (one NVIDIA H200): the fp32 precision captures
# (h200_precision/), `npu-advisor verify` of the TF32 fix on the GPU (the binary captures, analyzes and
# judges), and the generate() serving loop (h200_generate/). Run from the repository root with the
# binary at build-static/npu-advisor (or NPU_BIN=...). Into $OUT: run.log (every step's output),
# precision.tar.gz, verify.tar.gz, generate.tar.gz (traces and unprofiled times).
set -u
export PYTHONUNBUFFERED=1
cd testdata/captured
bin="$(realpath "../../${NPU_BIN:-build-static/npu-advisor}")"
log="$OUT/run.log"
t0=$(date +%s); say() { echo "== $* at $(( $(date +%s) - t0 )) s" | tee -a "$log"; }
{ "$bin" --version; nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
  python3 -c "import torch, transformers; print(torch.__version__, transformers.__version__)"; } >>"$log" 2>&1
# A: fp32 workloads x {fp32, tf32, bf16}: traces and unprofiled step times
timeout 170 python3 h200_precision/capture.py /tmp/cap/precision >>"$log" 2>&1; say "precision rc=$?"
tar -czf "$OUT/precision.tar.gz" -C /tmp/cap precision
# B: verify on the GPU
job="python3 h200_precision/capture.py --job"
timeout 110 "$bin" verify -o /tmp/cap/verify/tf32_after --record-shapes --steps 8 --fix compute.precision \
  --after "$job mlp8192 tf32 14" -- $job mlp8192 fp32 14 >>"$log" 2>&1; say "verify --after rc=$?"
timeout 110 "$bin" verify -o /tmp/cap/verify/tf32_env --record-shapes --steps 8 --fix compute.precision \
  --env TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 -- $job transformer fp32 14 >>"$log" 2>&1; say "verify --env rc=$?"
tar -czf "$OUT/verify.tar.gz" -C /tmp/cap verify
# C: generate() requests of varying batch, eager then static cache (compiled, CUDA graphs)
timeout 170 python3 h200_generate/capture.py /tmp/cap/generate eager static >>"$log" 2>&1; say "generate rc=$?"
tar -czf "$OUT/generate.tar.gz" -C /tmp/cap generate
ls -la "$OUT" >>"$log"
