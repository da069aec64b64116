#!/usr/bin/env python3
"""Generate a small, realistic torch_npu profiler output folder with planted behaviour.

Usage:  python3 tools/gen_sample.py OUTDIR [--steps N]
                  [--slow-op TYPE=FACTOR]... [--extra-free-us US] [--new-aicpu] [--noise-seed N]

The optional flags plant a regression or noise for `npu-advisor compare` / `gate` tests
(docs/compare-gate.md).  They draw no number from the main random stream, so every other
task keeps its duration; without them the output is byte-identical to testdata/sample.

Writes OUTDIR/localhost_4242_20261122093000123_ascend_pt/ (the profiler folder) and
OUTDIR/expected.json (the answers known by construction).  Standard library only and
fully deterministic: one random.Random(20261122), no clock, no environment input.

Every timestamp lives on an integer-nanosecond grid.  Trace `ts` values are strings with
exactly three decimals of microseconds; durations are written as microseconds with at most
three decimals, so a parser that reads the decimal text into int64 ns gets exact values.
All numbers in expected.json are computed from the generator's own event lists, never by
reading the written files back.  See docs/sample.md for what is planted where.
"""

import argparse
import calendar
import json
import os
import random

SEED = 20261122
FOLDER = "localhost_4242_20261122093000123_ascend_pt"
HOST_BOUND_STEP = 3
MEMORY_PEAK_STEP = 2
COMPILE_OPS_STEP1 = 25

# ---- synthetic process / thread ids (identify processes by process_name only) ----
PID_PY = 4242            # "Python"            (the real OS pid, as torch_npu writes it)
PID_CANN = 424202        # "CANN"              (pid * 100 + 2, like the real files)
PID_HW = 800             # "Ascend Hardware"
PID_HCCL = 42421000      # "HCCL"
PID_OVERLAP = 42421100   # "Overlap Analysis"  (pid * 10000 + 1100, like the real files)
TID_MAIN = 4242          # Python main thread (also a CANN thread: aclrtSynchronizeStream)
TID_DEQ = 4259           # task-queue (dequeue) thread (also the CANN launch thread)
STREAM_COMPUTE = 2
STREAM_COMM = 8
TID_HCCL_GROUP = 0
HCCL_GROUP = "hccl_world_group"
MODEL_ID = 4294967295
SUBTASK_NA = 4294967295
AIC_FREQ_MHZ = 1800
AI_CORE_NUM = 20
STREAM_PTR = 187651946832896


def ts_str(ns):
    """Integer ns -> trace ts string with exactly 3 decimals of us."""
    return "%d.%03d" % (ns // 1000, ns % 1000)


def dur_us(ns):
    """Integer ns -> float us (repr has at most 3 decimals)."""
    return ns / 1000.0


def us_txt(ns):
    """Integer ns -> minimal decimal us text ("185.504", "26.78", "12")."""
    s = "%d.%03d" % (ns // 1000, ns % 1000)
    s = s.rstrip("0").rstrip(".")
    return s


def num_txt(x):
    s = "%.3f" % x
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


def csv_q(s):
    return '"' + s.replace('"', '""') + '"'


class R:
    """Deterministic helpers on top of one random.Random."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def ns(self, lo_us, hi_us):
        return self.r.randint(int(round(lo_us * 1000)), int(round(hi_us * 1000)))

    def uni(self, lo, hi):
        return lo + (hi - lo) * self.r.random()

    def ratio(self, lo, hi):
        return round(self.uni(lo, hi), 3)


# ---- operator catalogue ----------------------------------------------------------------
# key: (aten chain outer->inner, aclnn api, kernel name, op type, core, state, dur range us,
#       in shapes, in dtypes, in formats, out shapes, out dtypes, out formats, block, mix,
#       Input Dims, Input type)
BF = "c10::BFloat16"
OPS = {
    "zero": (["aten::zero_"], "aclnnInplaceZero", "aclnnInplaceZero_ZerosLikeAiCore_ZerosLike",
             "ZerosLike", "AI_VECTOR_CORE", "dynamic", (5, 8),
             "2048,2048", "DT_BF16", "ND", "2048,2048", "DT_BF16", "ND", 40, 0,
             "2048,2048", BF),
    "nonzero": (["aten::nonzero"], "aclnnNonzero", "aclnnNonzero_NonZeroAiCpu_NonZero",
                "NonZero", "AI_CPU", "dynamic", (40, 120),
                "4096", "INT64", "ND", "4096,1", "INT64", "ND", 1, 0,
                "4096", "long int"),
    "index_put": (["aten::index_put_"], "aclnnIndexPutImpl", "aclnnIndexPutImpl_IndexPutAiCpu_IndexPut",
                  "IndexPut", "AI_CPU", "dynamic", (40, 120),
                  "4096;4096", "INT64;INT64", "ND;ND", "4096", "INT64", "ND", 1, 0,
                  "4096;\r\n4096;\r\n", "long int;\r\nlong int;\r\nScalar"),
    "transdata": (["npu::npu_format_cast"], "TransData", "TransData",
                  "TransData", "AI_VECTOR_CORE", "static", (10, 18),
                  "4096,2048", "DT_BF16", "ND", "128,256,16,16", "DT_BF16", "FRACTAL_NZ", 20, 0,
                  "4096,2048;\r\n", BF + ";\r\nScalar"),
    "cast": (["aten::to", "aten::_to_copy"], "Cast", "Cast",
             "Cast", "AI_VECTOR_CORE", "static", (5, 9),
             "4096,2048", "DT_BF16", "ND", "4096,2048", "FLOAT", "ND", 40, 0,
             "4096,2048;\r\n;\r\n;\r\n;\r\n", BF + ";\r\nScalar;\r\nScalar;\r\nScalar;\r\nNone"),
    "ln": (["aten::layer_norm", "aten::native_layer_norm"], "aclnnLayerNorm",
           "aclnnLayerNorm_LayerNormV4_LayerNormV4", "LayerNormV4", "AI_VECTOR_CORE", "dynamic", (18, 26),
           "4096,2048;2048;2048", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND",
           "4096,2048;4096,1;4096,1", "DT_BF16;FLOAT;FLOAT", "ND;ND;ND", 40, 0,
           "4096,2048;\r\n;\r\n2048;\r\n2048;\r\n", BF + ";\r\nScalarList;\r\n" + BF + ";\r\n" + BF + ";\r\nScalar"),
    "qkv": (["aten::linear", "aten::matmul"], "aclnnMatmul", "aclnnMatmul_MatMulV3Common_MatMulV3",
            "MatMulV3", "AI_CORE", "dynamic", (170, 210),
            "4096,2048;2048,6144", "DT_BF16;DT_BF16", "ND;ND", "4096,6144", "DT_BF16", "ND", 20, 0,
            "4096,2048;\r\n6144,2048", BF + ";\r\n" + BF),
    "fa": (["npu::npu_fusion_attention"], "aclnnFlashAttentionScore",
           "aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore",
           "FlashAttentionScore", "MIX_AIC", "dynamic", (300, 380),
           "4096,1,2048;4096,1,2048;4096,1,2048;;;;4096,4096;;;;;",
           "DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL;INT64;INT64;INT64;INT64;INT64",
           "ND;ND;ND;ND;ND;ND;ND;ND;ND;ND;ND;ND",
           "1,16,4096,8;1,16,4096,8;;4096,1,2048", "FLOAT;FLOAT;DT_BF16;DT_BF16", "ND;ND;ND;ND", 20, 40,
           "4096,1,2048;\r\n4096,1,2048;\r\n4096,1,2048;\r\n;\r\n4096,4096",
           BF + ";\r\n" + BF + ";\r\n" + BF + ";\r\nScalar;\r\nbool"),
    "out": (["aten::linear", "aten::matmul"], "aclnnMatmul", "aclnnMatmul_MatMulCommon_MatMulV2",
            "MatMulV2", "AI_CORE", "dynamic", (55, 75),
            "4096,2048;2048,2048", "DT_BF16;DT_BF16", "ND;ND", "4096,2048", "DT_BF16", "ND", 16, 0,
            "4096,2048;\r\n2048,2048", BF + ";\r\n" + BF),
    "add": (["aten::add"], "aclnnAdd", "aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", "dynamic", (25, 35),
            "4096,2048;4096,2048", "DT_BF16;DT_BF16", "ND;ND", "4096,2048", "DT_BF16", "ND", 40, 0,
            "4096,2048;\r\n4096,2048;\r\n", BF + ";\r\n" + BF + ";\r\nScalar"),
    "up": (["aten::linear", "aten::matmul"], "aclnnMatmul", "aclnnMatmul_MatMulV3Common_MatMulV3",
           "MatMulV3", "AI_CORE", "dynamic", (220, 260),
           "4096,2048;2048,8192", "DT_BF16;DT_BF16", "ND;ND", "4096,8192", "DT_BF16", "ND", 20, 0,
           "4096,2048;\r\n8192,2048", BF + ";\r\n" + BF),
    "gelu": (["aten::gelu"], "aclnnGelu", "aclnnGelu_GeluAiCore_Gelu", "Gelu", "AI_VECTOR_CORE", "dynamic", (40, 55),
             "4096,8192", "DT_BF16", "ND", "4096,8192", "DT_BF16", "ND", 40, 0,
             "4096,8192", BF),
    "down": (["aten::linear", "aten::matmul"], "aclnnMatmul", "aclnnMatmul_MatMulV3Common_MatMulV3",
             "MatMulV3", "AI_CORE", "dynamic", (220, 260),
             "4096,8192;8192,2048", "DT_BF16;DT_BF16", "ND;ND", "4096,2048", "DT_BF16", "ND", 20, 0,
             "4096,8192;\r\n2048,8192", BF + ";\r\n" + BF),
    "mul_loss": (["aten::mul"], "aclnnMuls", "aclnnMuls_MulAiCore_Mul", "Mul", "AI_VECTOR_CORE", "dynamic", (5, 8),
                 "4096", "FLOAT", "ND", "4096", "FLOAT", "ND", 8, 0,
                 "4096;\r\n", "float;\r\nScalar"),
    "mm_big": (["aten::mm"], "aclnnMm", "aclnnMm_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", "dynamic", (220, 260),
               "4096,2048;2048,8192", "DT_BF16;DT_BF16", "ND;ND", "4096,8192", "DT_BF16", "ND", 20, 0,
               "4096,2048;\r\n2048,8192", BF + ";\r\n" + BF),
    "gelu_grad": (["aten::gelu_backward"], "aclnnGeluBackward", "aclnnGeluBackward_GeluGradAiCore_GeluGrad",
                  "GeluGrad", "AI_VECTOR_CORE", "dynamic", (45, 60),
                  "4096,8192;4096,8192", "DT_BF16;DT_BF16", "ND;ND", "4096,8192", "DT_BF16", "ND", 40, 0,
                  "4096,8192;\r\n4096,8192", BF + ";\r\n" + BF),
    "ln_grad": (["aten::native_layer_norm_backward"], "aclnnLayerNormBackward",
                "aclnnLayerNormBackward_LayerNormGradV3_LayerNormGradV3", "LayerNormGradV3", "AI_VECTOR_CORE",
                "dynamic", (30, 45),
                "4096,2048;4096,2048;4096,1;4096,1;2048", "DT_BF16;DT_BF16;FLOAT;FLOAT;DT_BF16",
                "ND;ND;ND;ND;ND", "4096,2048;2048;2048", "DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND", 40, 0,
                "4096,2048;\r\n4096,2048;\r\n;\r\n4096,1;\r\n4096,1;\r\n2048",
                BF + ";\r\n" + BF + ";\r\nScalarList;\r\nfloat;\r\nfloat;\r\n" + BF),
    "mm_small": (["aten::mm"], "aclnnMm", "aclnnMm_MatMulCommon_MatMulV2", "MatMulV2", "AI_CORE", "dynamic", (55, 75),
                 "4096,2048;2048,2048", "DT_BF16;DT_BF16", "ND;ND", "4096,2048", "DT_BF16", "ND", 16, 0,
                 "4096,2048;\r\n2048,2048", BF + ";\r\n" + BF),
    "fa_grad": (["npu::npu_fusion_attention_grad"], "aclnnFlashAttentionScoreGrad",
                "aclnnFlashAttentionScoreGrad_FlashAttentionScoreGrad_FlashAttentionScoreGrad",
                "FlashAttentionScoreGrad", "MIX_AIC", "dynamic", (360, 400),
                "4096,1,2048;4096,1,2048;4096,1,2048;4096,1,2048;;;;4096,4096",
                "DT_BF16;DT_BF16;DT_BF16;DT_BF16;DT_BF16;UINT8;DT_BF16;BOOL",
                "ND;ND;ND;ND;ND;ND;ND;ND",
                "4096,1,2048;4096,1,2048;4096,1,2048;", "DT_BF16;DT_BF16;DT_BF16;DT_BF16", "ND;ND;ND;ND", 20, 40,
                "4096,1,2048;\r\n4096,1,2048;\r\n4096,1,2048;\r\n4096,1,2048",
                BF + ";\r\n" + BF + ";\r\n" + BF + ";\r\n" + BF),
    "mm_qkv": (["aten::mm"], "aclnnMm", "aclnnMm_MatMulV3Common_MatMulV3", "MatMulV3", "AI_CORE", "dynamic", (170, 210),
               "4096,6144;6144,2048", "DT_BF16;DT_BF16", "ND;ND", "4096,2048", "DT_BF16", "ND", 20, 0,
               "4096,6144;\r\n6144,2048", BF + ";\r\n" + BF),
    "opt_mul": (["aten::mul_"], "aclnnInplaceMuls", "aclnnInplaceMuls_MulAiCore_Mul", "Mul", "AI_VECTOR_CORE",
                "dynamic", (15, 25),
                "25165824", "FLOAT", "ND", "25165824", "FLOAT", "ND", 40, 0,
                "25165824;\r\n", "float;\r\nScalar"),
    "opt_addcmul": (["aten::addcmul_"], "aclnnInplaceAddcmul", "aclnnInplaceAddcmul_AddcmulAiCore_Addcmul",
                    "Addcmul", "AI_VECTOR_CORE", "dynamic", (25, 40),
                    "25165824;25165824;25165824", "FLOAT;FLOAT;FLOAT", "ND;ND;ND", "25165824", "FLOAT", "ND", 40, 0,
                    "25165824;\r\n25165824;\r\n25165824;\r\n", "float;\r\nfloat;\r\nfloat;\r\nScalar"),
    "opt_sqrt": (["aten::sqrt"], "aclnnSqrt", "aclnnSqrt_SqrtAiCore_Sqrt", "Sqrt", "AI_VECTOR_CORE", "dynamic",
                 (15, 25),
                 "25165824", "FLOAT", "ND", "25165824", "FLOAT", "ND", 40, 0,
                 "25165824", "float"),
    "opt_adds": (["aten::add_"], "aclnnInplaceAdds", "aclnnInplaceAdds_AddsAiCore_Adds", "Adds", "AI_VECTOR_CORE",
                 "dynamic", (15, 25),
                 "25165824", "FLOAT", "ND", "25165824", "FLOAT", "ND", 40, 0,
                 "25165824;\r\n;\r\n", "float;\r\nScalar;\r\nScalar"),
    "opt_addcdiv": (["aten::addcdiv_"], "aclnnInplaceAddcdiv", "aclnnInplaceAddcdiv_AddcdivAiCore_Addcdiv",
                    "Addcdiv", "AI_VECTOR_CORE", "dynamic", (30, 45),
                    "25165824;25165824;25165824", "FLOAT;FLOAT;FLOAT", "ND;ND;ND", "25165824", "FLOAT", "ND", 40, 0,
                    "25165824;\r\n25165824;\r\n25165824;\r\n", "float;\r\nfloat;\r\nfloat;\r\nScalar"),
    "opt_add": (["aten::add_"], "aclnnInplaceAdd", "aclnnInplaceAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE",
                "dynamic", (20, 30),
                "25165824;25165824", "FLOAT;FLOAT", "ND;ND", "25165824", "FLOAT", "ND", 40, 0,
                "25165824;\r\n25165824;\r\n", "float;\r\nfloat;\r\nScalar"),
}
# Only with --new-aicpu: an AI CPU operator issued once per step before the loss.
NEW_AICPU_OP = ("unique", (["aten::_unique2"], "aclnnUnique2", "aclnnUnique2_UniqueAiCpu_Unique", "Unique", "AI_CPU",
                           "dynamic", (150, 250), "4096", "INT64", "ND", "4096;4096", "INT64;INT64", "ND;ND", 1, 0,
                           "4096;\r\n;\r\n;\r\n", "long int;\r\nScalar;\r\nScalar;\r\nScalar"))


def step_plan(new_aicpu=False):
    """Host issue order of one training step: list of (group, op key, tag)."""
    plan = [("zero_grad", "zero", None), ("zero_grad", "zero", None),
            ("pre", "nonzero", None), ("pre", "index_put", None),
            ("pre", "transdata", None), ("pre", "cast", None)]
    for layer in (0, 1):
        for k in ("ln", "qkv", "fa", "out", "add", "ln", "up", "gelu", "down", "add"):
            tag = ("fwd", layer, k) if k in ("up", "down") else None
            plan.append(("fwd", k, tag))
    if new_aicpu:
        plan.append(("loss", NEW_AICPU_OP[0], None))
    plan += [("loss", "mul_loss", None), ("loss", "cast", None)]
    for layer in (1, 0):
        bwd = [("mm_big", ("bwd", layer, "down")), ("mm_big", None), ("gelu_grad", None),
               ("mm_big", ("bwd", layer, "up")), ("mm_big", None), ("ln_grad", None),
               ("mm_small", None), ("mm_small", None), ("fa_grad", None),
               ("mm_qkv", None), ("mm_qkv", None), ("add", None)]
        for i, (k, tag) in enumerate(bwd):
            if layer == 0 and i == len(bwd) - 2:
                plan.append(("bwd", "allreduce", None))   # last gradient bucket
            plan.append(("bwd", k, tag))
    for k in ("opt_mul", "opt_addcmul", "opt_sqrt", "opt_adds", "opt_addcdiv", "opt_add"):
        plan.append(("optim", k, None))
    return plan


def merge(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def subtract(a, b):
    """a minus b, both sorted merged interval lists."""
    out = []
    j = 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                out.append((cur, b[k][0]))
            cur = max(cur, b[k][1])
            if cur >= e:
                break
            k += 1
        if cur < e:
            out.append((cur, e))
    return out


class Plant:
    """Optional planted regressions and noise (all off by default)."""

    def __init__(self, slow_ops=None, extra_free_ns=0, new_aicpu=False, noise_seed=None):
        self.slow_ops = dict(slow_ops or {})   # op type -> duration factor
        self.extra_free_ns = extra_free_ns      # added to every step's dataloader call
        self.new_aicpu = new_aicpu
        self.noise_seed = noise_seed

    def active(self):
        return bool(self.slow_ops or self.extra_free_ns or self.new_aicpu or self.noise_seed is not None)

    def describe(self):
        return {"slow_ops": self.slow_ops, "extra_free_ns": self.extra_free_ns,
                "new_aicpu": NEW_AICPU_OP[1][3] if self.new_aicpu else None, "noise_seed": self.noise_seed}


class Gen:
    def __init__(self, steps, plant=None):
        self.steps = steps
        self.rnd = R(SEED)
        self.plant = plant or Plant()
        # Planted behaviour draws from its own streams, never from self.rnd.
        self.side_rnd = R(SEED + 2)
        self.noise = R(self.plant.noise_seed) if self.plant.noise_seed is not None else None
        # 2026-11-22 09:29:59.823 at UTC+8 (the folder stamp 09:30:00.123 is written after collection)
        epoch_s = calendar.timegm((2026, 11, 22, 1, 29, 59, 0, 0, 0))
        self.t0 = epoch_s * 1000000000 + 823000000 + 417283
        self.cpu_ops = []        # python main-thread cpu_op X: dict(name, ts, end, args, idx)
        self.enqueues = []       # (ts, dur, corr)
        self.dequeues = []       # (ts, dur, corr, name)
        self.fwdbwd = []         # (id, s_ts, f_ts)
        self.cann = []           # dict(name, tid, ts, end, args)
        self.tasks = []          # device tasks dict
        self.h2d = []            # (id_str, s_ts, task)
        self.async_npu = []      # (kernel_ts, s_ts)
        self.hccl_ops = []       # dict
        self.steps_info = []
        self.mem_pta = []        # (ts, alloc, reserved, active)
        self.mem_ge = []
        self.op_mem_rows = []
        self.corr = 1000         # enqueue correlation ids
        self.conn = 2000         # CANN connection ids
        self.seq = 300           # autograd sequence numbers
        self.task_id = {STREAM_COMPUTE: 1203, STREAM_COMM: 40}
        self.stream_free = {STREAM_COMPUTE: 0, STREAM_COMM: 0}
        self.idx = 0

    # ---------------------------------------------------------------- host helpers
    def add_cpu(self, name, ts, end, args=None):
        assert end > ts
        self.idx += 1
        a = {"Sequence number": -1, "Fwd thread id": 0}
        if args:
            a.update(args)
        ev = {"name": name, "ts": ts, "end": end, "args": a, "idx": self.idx}
        self.cpu_ops.append(ev)
        return ev

    def next_conn(self):
        self.conn += 1
        return self.conn

    # ---------------------------------------------------------------- simulation
    def planted_dur(self, ktype, dur, step_factor):
        """Task duration after the planted slowdown and noise (unchanged without them)."""
        f = self.plant.slow_ops.get(ktype, 1.0)
        if self.noise is not None:
            f *= step_factor * (1.0 + self.noise.uni(-0.005, 0.005))
        return dur if f == 1.0 else max(1000, int(round(dur * f)))

    def simulate(self):
        rnd = self.rnd
        main_rnd = self.rnd
        ops = dict(OPS)
        if self.plant.new_aicpu:
            ops[NEW_AICPU_OP[0]] = NEW_AICPU_OP[1]
        plan = step_plan(self.plant.new_aicpu)
        host = self.t0
        deq_cursor = self.t0
        seq_of = {}
        reserved = 8192.0
        base_alloc = 6144.0 + 0.125 * rnd.r.randint(0, 40)
        for step in range(1, self.steps + 1):
            host_bound = (step == HOST_BOUND_STEP)
            ps_start = host
            step_tasks = []
            host = ps_start + rnd.ns(3, 6)
            dl_end = host + rnd.ns(95, 130) + self.plant.extra_free_ns
            # noise: one factor per step (+-1.5 %) times a per-task +-0.5 %
            step_factor = 1.0 + self.noise.uni(-0.015, 0.015) if self.noise is not None else 1.0
            self.add_cpu("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", host, dl_end)
            host = dl_end + rnd.ns(2, 5)
            # which ops go through the legacy aclop path with online compile (step 1 only)
            compile_idx = set()
            if step == 1:
                cands = [i for i, (g, k, t) in enumerate(plan)
                         if k in ops and ops[k][4] == "AI_VECTOR_CORE" and k != "zero"]
                assert len(cands) >= COMPILE_OPS_STEP1
                compile_idx = set(cands[:COMPILE_OPS_STEP1])
            group_open = None
            group_start = None
            last_top_end = host
            dep = 0
            comm = None
            mem_points = {}
            for i, (group, key, tag) in enumerate(plan):
                # the planted extra operator draws from its own stream, so the others keep theirs
                rnd = self.side_rnd if key == NEW_AICPU_OP[0] else main_rnd
                # group wrappers on the main thread
                wrap = {"zero_grad": "Optimizer.zero_grad#AdamW.zero_grad",
                        "optim": "Optimizer.step#AdamW.step"}.get(group)
                if group_open and group_open != wrap:
                    w_end = last_top_end + rnd.ns(2, 6)
                    self.add_cpu(group_open, group_start, w_end)
                    host = max(host, w_end + rnd.ns(3, 8))
                    group_open = None
                if wrap and group_open is None:
                    group_open = wrap
                    group_start = host
                    host += rnd.ns(4, 9)
                gap = rnd.ns(150, 320) if host_bound else rnd.ns(2, 7)
                if i == 6:
                    mem_points["fwd_start"] = host
                if key == "allreduce":
                    top = host
                    enq_ts = top + rnd.ns(6, 10)
                    enq_dur = rnd.ns(2, 4)
                    top_end = enq_ts + enq_dur + rnd.ns(3, 6)
                    self.add_cpu("c10d::allreduce_", top, top_end,
                                 {"Input Dims": "2048,2048;\r\n", "Input type": "TensorList;\r\nScalar"})
                    self.corr += 1
                    corr = self.corr
                    self.enqueues.append((enq_ts, enq_dur, corr))
                    d_ts = max(enq_ts + enq_dur + rnd.ns(2, 6), deq_cursor + rnd.ns(1, 3))
                    d_dur = rnd.ns(12, 20)
                    self.dequeues.append((d_ts, d_dur, corr, "Dequeue@HcclAllreduce"))
                    deq_cursor = d_ts + d_dur
                    grads_ready = self.stream_free[STREAM_COMPUTE]
                    cs = max(d_ts + d_dur - rnd.ns(3, 5), grads_ready + rnd.ns(2, 4),
                             self.stream_free[STREAM_COMM] + rnd.ns(1, 2))
                    comm = {"start": cs, "step": step}
                    last_top_end = top_end
                    host = top_end + gap
                    continue
                (chain, api, kname, ktype, core, state, (dlo, dhi), ish, idt, ifm, osh, odt, ofm,
                 bdim, mbdim, idims, itypes) = ops[key]
                via_aclop = (i in compile_idx) or state == "static"
                leaf_name = ktype if via_aclop else api
                # ---- main thread: aten chain -> leaf op-api cpu_op -> Enqueue
                top = host
                starts = []
                t = top
                for lvl in range(len(chain)):
                    starts.append(t)
                    t += rnd.ns(3, 8) if lvl == 0 else rnd.ns(1.5, 4)
                leaf_ts = t
                enq_ts = leaf_ts + rnd.ns(1, 3)
                enq_dur = rnd.ns(1.5, 4)
                leaf_end = enq_ts + enq_dur + rnd.ns(0.5, 2)
                ends = []
                t = leaf_end
                for lvl in reversed(range(len(chain))):
                    t += rnd.ns(0.5, 3)
                    ends.append(t)
                ends.reverse()
                seq = -1
                if key.startswith("opt_") or key in ("zero", "nonzero", "index_put", "transdata"):
                    seq = -1
                elif group == "bwd":
                    seq = seq_of.get(tag, -1) if tag else -1
                    if seq == -1:
                        self.seq += 1
                        seq = self.seq
                else:
                    self.seq += 1
                    seq = self.seq
                for lvl, name in enumerate(chain):
                    args = {"Sequence number": seq if lvl == 0 else -1}
                    if lvl == 0:
                        args["Input Dims"] = idims
                        args["Input type"] = itypes
                    ev = self.add_cpu(name, starts[lvl], ends[lvl], args)
                    if lvl == 0 and tag is not None:
                        if tag[0] == "fwd":
                            seq_of[("bwd", tag[1], tag[2])] = seq
                            self.fwdbwd.append([seq, starts[0], None])
                        else:
                            for fb in self.fwdbwd:
                                if fb[0] == seq and fb[2] is None:
                                    fb[2] = starts[0]
                self.add_cpu(leaf_name, leaf_ts, leaf_end)
                self.corr += 1
                corr = self.corr
                self.enqueues.append((enq_ts, enq_dur, corr))
                last_top_end = ends[0]
                host = ends[0] + gap
                # ---- task-queue thread: Dequeue -> AscendCL -> Node@launch (+ HostToDevice s)
                d_ts = max(enq_ts + enq_dur + rnd.ns(2, 6), deq_cursor + rnd.ns(1, 3))
                acl_ts = d_ts + rnd.ns(1, 3)
                if i in compile_idx:
                    acl_name, acl_mode, acl_id = "AscendCL@aclopCompileAndExecute", "ACL_OP", "aclopCompileAndExecute"
                    pre = rnd.ns(35, 80)
                elif via_aclop:
                    acl_name, acl_mode, acl_id = "AscendCL@aclopExecuteV2", "ACL_OP", "aclopExecuteV2"
                    pre = rnd.ns(4, 8)
                else:
                    acl_name, acl_mode, acl_id = "AscendCL@" + api, "ACL_NN", api
                    pre = rnd.ns(3, 7)
                node_ts = acl_ts + pre
                node_dur = rnd.ns(4, 9)
                h2d_ts = node_ts + rnd.ns(1, 3)
                acl_end = node_ts + node_dur + rnd.ns(1, 3)
                d_end = acl_end + rnd.ns(1, 2)
                deq_cursor = d_end
                self.dequeues.append((d_ts, d_end - d_ts, corr, "Dequeue@" + leaf_name))
                acl_conn = self.next_conn()
                self.cann.append({"name": acl_name, "tid": TID_DEQ, "ts": acl_ts, "end": acl_end,
                                  "args": {"Thread Id": TID_DEQ, "Mode": acl_mode, "level": "acl",
                                           "id": acl_id, "item_id": "0", "connection_id": acl_conn}})
                cid = self.next_conn()
                self.cann.append({"name": "Node@launch", "tid": TID_DEQ, "ts": node_ts, "end": node_ts + node_dur,
                                  "args": {"Thread Id": TID_DEQ, "Mode": "", "level": "node",
                                           "id": "launch", "item_id": kname, "connection_id": cid}})
                # ---- device
                dur = self.planted_dur(ktype, rnd.ns(dlo, dhi), step_factor)
                start = max(h2d_ts + rnd.ns(1.0, 2.0),
                            self.stream_free[STREAM_COMPUTE] + rnd.ns(0.4, 1.6), dep)
                dep = 0
                self.task_id[STREAM_COMPUTE] += 1
                task = {"name": kname, "type": ktype, "core": core, "state": state, "ts": start,
                        "end": start + dur, "stream": STREAM_COMPUTE, "task_id": self.task_id[STREAM_COMPUTE],
                        "conn": cid, "step": step, "ish": ish, "idt": idt, "ifm": ifm, "osh": osh, "odt": odt,
                        "ofm": ofm, "block": bdim, "mix": mbdim, "launch_ts": h2d_ts, "leaf_ts": leaf_ts}
                self.stream_free[STREAM_COMPUTE] = start + dur
                self.tasks.append(task)
                step_tasks.append(task)
                hid = str((cid << 32) | 0xFFFFFFFF)
                self.h2d.append((hid, h2d_ts, task))
                self.async_npu.append((start, leaf_ts))
                if host_bound:
                    # slow host: the next launch only comes after the device has drained, so every task
                    # starts 1-2 us after its Node@launch and the stream idles in between
                    comm_end = comm["end"] if comm and "end" in comm else 0
                    busy_until = max(self.stream_free[STREAM_COMPUTE], dep, comm_end)
                    host = max(host, busy_until + rnd.ns(10, 40))
                if key == "mul_loss":
                    mem_points["loss"] = top
                if group == "bwd" and tag == ("bwd", 0, "up"):
                    mem_points["bwd_peak"] = top
                # the allreduce overlaps the last backward kernels; size it once they are placed
                if comm is not None and "end" not in comm and group == "bwd" and plan[i + 1][0] != "bwd":
                    covered = self.stream_free[STREAM_COMPUTE] - comm["start"]
                    d = int(round(covered * rnd.uni(1.7, 2.3)))
                    d = max(300000, min(800000, d))
                    if d < covered + 60000:
                        d = covered + rnd.ns(60, 120)
                    comm["end"] = comm["start"] + d
                    dep = comm["end"] + rnd.ns(1.5, 3)
                    self.place_comm(comm)
            if group_open:
                w_end = last_top_end + rnd.ns(2, 6)
                self.add_cpu(group_open, group_start, w_end)
                host = max(host, w_end + rnd.ns(3, 8))
            # ---- end of step: loss.item() -> aclrtSynchronizeStream waits for the device
            top = host
            lsd_ts = top + rnd.ns(4, 8)
            sync_ts = lsd_ts + rnd.ns(5, 10)
            drain = max(self.stream_free[STREAM_COMPUTE], self.stream_free[STREAM_COMM])
            sync_end = max(sync_ts + rnd.ns(8, 15), drain + rnd.ns(4, 9))
            sconn = self.next_conn()
            self.cann.append({"name": "AscendCL@aclrtSynchronizeStream", "tid": TID_MAIN, "ts": sync_ts,
                              "end": sync_end,
                              "args": {"Thread Id": TID_MAIN, "Mode": "ACL_RTS", "level": "acl",
                                       "id": "aclrtSynchronizeStream", "item_id": "0", "connection_id": sconn}})
            lsd_end = sync_end + rnd.ns(6, 12)
            item_end = lsd_end + rnd.ns(2, 4)
            self.add_cpu("aten::_local_scalar_dense", lsd_ts, lsd_end)
            self.add_cpu("aten::item", top, item_end, {"Sequence number": -1})
            ps_end = item_end + rnd.ns(8, 15)
            self.add_cpu("ProfilerStep#%d" % step, ps_start, ps_end)
            self.steps_info.append({"id": step, "start": ps_start, "end": ps_end, "tasks": step_tasks,
                                    "sync": (sync_ts, sync_end)})
            # ---- memory timeline (PTA caching allocator)
            act = 1536.0 + 0.125 * rnd.r.randint(0, 64)
            grad = 2304.0 + 0.125 * rnd.r.randint(0, 64)
            if step == MEMORY_PEAK_STEP:
                grad += 3200.75
            pts = [(mem_points["fwd_start"], base_alloc + 96.0),
                   (mem_points["loss"], base_alloc + act),
                   (mem_points["bwd_peak"], base_alloc + act + grad),
                   (sync_ts, base_alloc + 128.0)]
            for ts, alloc in pts:
                need = alloc + 256.0
                while reserved < need:
                    reserved += 512.0
                self.mem_pta.append((ts, alloc, reserved, alloc + 32.0))
            if step == MEMORY_PEAK_STEP:
                self.plan_operator_memory(step_tasks, mem_points)
            host = ps_end + rnd.ns(3, 8)
        # GE workspace records (step 1, online-compiled aclop operators)
        s1 = self.steps_info[0]
        ge_ts = [t["launch_ts"] - 2000 for t in s1["tasks"][10:13]]
        ge_vals = [(48.0, 128.0), (96.0, 128.0), (64.0, 128.0)]
        for ts, (a, r) in zip(ge_ts, ge_vals):
            self.mem_ge.append((ts, a, r, a))

    def place_comm(self, comm):
        rnd = self.rnd
        step = comm["step"]
        self.task_id[STREAM_COMM] += 1
        name = "hcom_allReduce__424_%d_1" % (step - 1)
        cid = self.next_conn()
        task = {"name": name, "type": "hcom_allReduce_", "core": "HCCL", "state": "N/A", "ts": comm["start"],
                "end": comm["end"], "stream": STREAM_COMM, "task_id": self.task_id[STREAM_COMM], "conn": cid,
                "step": step}
        self.stream_free[STREAM_COMM] = comm["end"]
        self.tasks.append(task)
        self.hccl_ops.append({"name": name, "ts": comm["start"], "end": comm["end"], "conn": cid,
                              "count": 25165824, "step": step})

    def plan_operator_memory(self, step_tasks, mem_points):
        rnd = self.rnd
        names = [("aten::empty_strided", 16384), ("aten::linear", 49152), ("aten::linear", 65536),
                 ("aten::gelu", 65536), ("aten::linear", 16384), ("npu::npu_fusion_attention", 1024),
                 ("aten::native_layer_norm", 16384), ("aten::add", 16384), ("aten::mm", 65536),
                 ("aten::gelu_backward", 65536), ("aten::mm", 16384), ("aten::_to_copy", 32)]
        t_alloc = mem_points["fwd_start"]
        t_rel_base = mem_points["bwd_peak"]
        for n, (name, kb) in enumerate(names):
            a = t_alloc + n * rnd.ns(40, 90)
            r = t_rel_base + rnd.ns(100, 1500)
            self.op_mem_rows.append((name, kb, a, r))

    # ---------------------------------------------------------------- overlap analysis
    def overlap(self):
        comp = merge([(t["ts"], t["end"]) for t in self.tasks if t["core"] != "HCCL"])
        comm = merge([(h["ts"], h["end"]) for h in self.hccl_ops])
        comm_no = subtract(comm, comp)
        busy = merge(comp + comm)
        lo = min(t["ts"] for t in self.tasks)
        hi = max(t["end"] for t in self.tasks)
        free = subtract([(lo, hi)], busy)
        self.ov = {"Computing": comp, "Communication": comm,
                   "Communication(Not Overlapped)": comm_no, "Free": free}

    def step_breakdown(self):
        rows = []
        names = ["Computing", "Communication", "Communication(Not Overlapped)", "Free"]
        for st in self.steps_info:
            sums = {n: 0 for n in names}
            first, last, first_task = None, None, None
            for n in names:
                for s, e in self.ov[n]:
                    if st["start"] <= s < st["end"]:
                        sums[n] += e - s
                        first = s if first is None else min(first, s)
                        last = e if last is None else max(last, e)
                        if n in ("Computing", "Communication"):
                            first_task = s if first_task is None else min(first_task, s)
            comp, comm, cno, free = (sums[n] for n in names)
            lags = [t["ts"] - t["launch_ts"] for t in st["tasks"]]
            half = len(lags) // 2
            rows.append({
                "id": st["id"], "start_ns": st["start"], "end_ns": st["end"],
                "computing_ns": comp, "communication_ns": comm, "comm_not_overlapped_ns": cno,
                "overlapped_ns": comm - cno, "free_ns": free, "bubble_ns": 0,
                "stage_ns": (last - first) if first is not None else 0,
                "preparing_ns": (first_task - st["start"]) if first_task is not None else 0,
                "free_ratio_of_stage": round(free / (last - first), 6),
                "compute_tasks": len(st["tasks"]),
                "launch_to_start_lag_ns": {"mean": sum(lags) // len(lags), "max": max(lags), "min": min(lags),
                                           "mean_first_half": sum(lags[:half]) // half,
                                           "mean_second_half": sum(lags[half:]) // (len(lags) - half)},
            })
        self.breakdown = rows

    # ---------------------------------------------------------------- writers
    def trace_events(self):
        ev = []
        counts_x = {}

        def cx(proc):
            counts_x[proc] = counts_x.get(proc, 0) + 1

        # A. Python cpu_op X in completion order
        for c in sorted(self.cpu_ops, key=lambda c: (c["end"], c["idx"])):
            ev.append({"ph": "X", "name": c["name"], "pid": PID_PY, "tid": TID_MAIN, "ts": ts_str(c["ts"]),
                       "dur": dur_us(c["end"] - c["ts"]), "cat": "cpu_op", "args": c["args"]})
            cx("Python")
        # B. Enqueue + async_task_queue s
        for ts, d, corr in sorted(self.enqueues):
            ev.append({"ph": "X", "name": "Enqueue", "pid": PID_PY, "tid": TID_MAIN, "ts": ts_str(ts),
                       "dur": dur_us(d), "cat": "enqueue", "args": {"correlation_id": corr}})
            cx("Python")
            ev.append({"ph": "s", "bp": "e", "name": "enqueue_to_dequeue", "id": corr, "pid": PID_PY,
                       "tid": TID_MAIN, "ts": ts_str(ts), "cat": "async_task_queue"})
        # C. Dequeue + async_task_queue f
        for ts, d, corr, name in sorted(self.dequeues):
            ev.append({"ph": "X", "name": name, "pid": PID_PY, "tid": TID_DEQ, "ts": ts_str(ts),
                       "dur": dur_us(d), "cat": "dequeue", "args": {"correlation_id": corr}})
            cx("Python")
            ev.append({"ph": "f", "bp": "e", "name": "enqueue_to_dequeue", "id": corr, "pid": PID_PY,
                       "tid": TID_DEQ, "ts": ts_str(ts), "cat": "async_task_queue"})
        # D. Python metadata
        ev += [
            {"ph": "M", "name": "process_name", "pid": PID_PY, "tid": 0, "args": {"name": "Python"}},
            {"ph": "M", "name": "process_labels", "pid": PID_PY, "tid": 0, "args": {"labels": "CPU"}},
            {"ph": "M", "name": "process_sort_index", "pid": PID_PY, "tid": 0, "args": {"sort_index": 0}},
            {"ph": "M", "name": "thread_name", "pid": PID_PY, "tid": TID_MAIN,
             "args": {"name": "Thread %d" % TID_MAIN}},
            {"ph": "M", "name": "thread_sort_index", "pid": PID_PY, "tid": TID_MAIN, "args": {"sort_index": TID_MAIN}},
            {"ph": "M", "name": "thread_name", "pid": PID_PY, "tid": TID_DEQ, "args": {"name": "Thread %d" % TID_DEQ}},
            {"ph": "M", "name": "thread_sort_index", "pid": PID_PY, "tid": TID_DEQ, "args": {"sort_index": TID_DEQ}},
        ]
        # E. fwdbwd flows
        for fid, s_ts, f_ts in sorted(self.fwdbwd, key=lambda x: x[1]):
            assert f_ts is not None
            ev.append({"ph": "s", "bp": "e", "name": "fwdbwd", "id": fid, "pid": PID_PY, "tid": TID_MAIN,
                       "ts": ts_str(s_ts), "cat": "fwdbwd"})
            ev.append({"ph": "f", "bp": "e", "name": "fwdbwd", "id": fid, "pid": PID_PY, "tid": TID_MAIN,
                       "ts": ts_str(f_ts), "cat": "fwdbwd"})
        # F. device-side metadata
        def meta(pid, name, args, tid=0):
            return {"name": name, "pid": pid, "tid": tid, "args": args, "ph": "M"}
        ev += [meta(PID_HW, "process_name", {"name": "Ascend Hardware"}),
               meta(PID_HW, "thread_name", {"name": "Stream %d" % STREAM_COMPUTE}, STREAM_COMPUTE),
               meta(PID_HW, "thread_sort_index", {"sort_index": STREAM_COMPUTE}, STREAM_COMPUTE),
               meta(PID_HW, "thread_name", {"name": "Stream %d" % STREAM_COMM}, STREAM_COMM),
               meta(PID_HW, "thread_sort_index", {"sort_index": STREAM_COMM}, STREAM_COMM),
               meta(PID_HW, "process_labels", {"labels": "NPU 0"}),
               meta(PID_HW, "process_sort_index", {"sort_index": 8}),
               meta(PID_CANN, "process_name", {"name": "CANN"}),
               meta(PID_CANN, "thread_name", {"name": "Thread %d" % TID_DEQ}, TID_DEQ),
               meta(PID_CANN, "thread_name", {"name": "Thread %d" % TID_MAIN}, TID_MAIN),
               meta(PID_CANN, "thread_sort_index", {"sort_index": TID_DEQ}, TID_DEQ),
               meta(PID_CANN, "thread_sort_index", {"sort_index": TID_MAIN}, TID_MAIN),
               meta(PID_CANN, "process_labels", {"labels": "CPU"}),
               meta(PID_CANN, "process_sort_index", {"sort_index": 2}),
               meta(PID_HCCL, "process_name", {"name": "HCCL"}),
               meta(PID_HCCL, "thread_name", {"name": "Group %s Communication" % HCCL_GROUP}, TID_HCCL_GROUP),
               meta(PID_HCCL, "thread_sort_index", {"sort_index": TID_HCCL_GROUP}, TID_HCCL_GROUP),
               meta(PID_HCCL, "process_labels", {"labels": "NPU 0"}),
               meta(PID_HCCL, "process_sort_index", {"sort_index": 10}),
               meta(PID_OVERLAP, "process_name", {"name": "Overlap Analysis"}),
               meta(PID_OVERLAP, "thread_name", {"name": "Computing"}, 0),
               meta(PID_OVERLAP, "thread_name", {"name": "Communication"}, 1),
               meta(PID_OVERLAP, "thread_name", {"name": "Communication(Not Overlapped)"}, 2),
               meta(PID_OVERLAP, "thread_name", {"name": "Free"}, 3),
               meta(PID_OVERLAP, "process_labels", {"labels": "NPU 0"}),
               meta(PID_OVERLAP, "process_sort_index", {"sort_index": 11})]
        # G. msprof block, sorted by ts (stable on creation order)
        blk = []
        n = 0

        def add(ts, e, proc=None):
            nonlocal n
            n += 1
            blk.append((ts, n, e, proc))

        h2d_by_task = {id(t): (hid, s) for hid, s, t in self.h2d}
        for c in self.cann:
            add(c["ts"], {"name": c["name"], "pid": PID_CANN, "tid": c["tid"], "ts": ts_str(c["ts"]),
                          "dur": dur_us(c["end"] - c["ts"]), "args": c["args"], "ph": "X"}, "CANN")
        for hid, s, t in self.h2d:
            add(s, {"name": "HostToDevice" + hid, "ph": "s", "cat": "HostToDevice", "id": hid, "pid": PID_CANN,
                    "tid": TID_DEQ, "ts": ts_str(s)})
        for t in self.tasks:
            add(t["ts"], {"name": t["name"], "pid": PID_HW, "tid": t["stream"], "ts": ts_str(t["ts"]),
                          "dur": dur_us(t["end"] - t["ts"]),
                          "args": {"Model Id": MODEL_ID, "Task Type": t["core"], "Stream Id": t["stream"],
                                   "Task Id": t["task_id"], "Batch Id": 0, "Subtask Id": SUBTASK_NA,
                                   "connection_id": t["conn"]}, "ph": "X"}, "Ascend Hardware")
            if id(t) in h2d_by_task:
                hid, _ = h2d_by_task[id(t)]
                add(t["ts"], {"name": "HostToDevice" + hid, "ph": "f", "id": hid, "ts": ts_str(t["ts"]),
                              "cat": "HostToDevice", "pid": PID_HW, "tid": t["stream"], "bp": "e"})
        for h in self.hccl_ops:
            add(h["ts"], {"name": h["name"], "pid": PID_HCCL, "tid": TID_HCCL_GROUP, "ts": ts_str(h["ts"]),
                          "dur": dur_us(h["end"] - h["ts"]),
                          "args": {"connection_id": h["conn"], "model id": MODEL_ID, "data_type": "FP32",
                                   "alg_type": "MESH-RING-NA", "count": h["count"]}, "ph": "X"}, "HCCL")
        for tid, name in enumerate(["Computing", "Communication", "Communication(Not Overlapped)", "Free"]):
            for s, e in self.ov[name]:
                add(s, {"name": name, "pid": PID_OVERLAP, "tid": tid, "ts": ts_str(s), "dur": dur_us(e - s),
                        "ph": "X"}, "Overlap Analysis")
        blk.sort(key=lambda x: (x[0], x[1]))
        for _, _, e, proc in blk:
            ev.append(e)
            if proc:
                cx(proc)
        # H. async_npu flows (id = kernel start in ns)
        for kts, s_ts in sorted(self.async_npu):
            ev.append({"ph": "s", "bp": "e", "name": "torch_to_npu", "id": kts, "pid": PID_PY, "tid": TID_MAIN,
                       "ts": ts_str(s_ts), "cat": "async_npu"})
            ev.append({"ph": "f", "bp": "e", "name": "torch_to_npu", "id": kts, "pid": PID_HW,
                       "tid": STREAM_COMPUTE, "ts": ts_str(kts), "cat": "async_npu"})
        self.counts_x = counts_x
        return ev

    def kernel_rows(self):
        hdr = ("Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
               "Duration(us),Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
               "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us),"
               "aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),aic_scalar_ratio,"
               "aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),"
               "aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),"
               "aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,"
               "aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,cube_utilization(%)")
        pmu_n = 25
        rnd = R(SEED + 1)   # PMU values drawn from their own stream: independent of the timeline
        prev_end = {}
        lines = [hdr]
        for t in sorted(self.tasks, key=lambda t: (t["ts"], t["stream"])):
            dur = t["end"] - t["ts"]
            wait = t["ts"] - prev_end[t["stream"]] if t["stream"] in prev_end else 0
            prev_end[t["stream"]] = t["end"]
            start = csv_q(ts_str(t["ts"]) + "\t")
            if t["core"] == "HCCL":
                f = [str(t["step"]), str(MODEL_ID), "N/A", "N/A", t["name"], t["type"], "N/A", "HCCL", start,
                     us_txt(dur), us_txt(wait), "0", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A",
                     "N/A"] + ["N/A"] * pmu_n
                lines.append(",".join(f))
                continue
            f = [str(t["step"]), str(MODEL_ID), str(t["task_id"]), str(t["stream"]), t["name"], t["type"],
                 t["state"], t["core"], start, us_txt(dur), us_txt(wait), str(t["block"]), str(t["mix"]), "NO",
                 csv_q('"' + t["ish"] + '"'), t["idt"], t["ifm"], csv_q('"' + t["osh"] + '"'), t["odt"], t["ofm"],
                 "0" if t["core"] == "MIX_AIC" else "N/A"]
            d_us = dur / 1000.0
            if t["core"] == "AI_CPU":
                f += ["N/A"] * pmu_n
            else:
                aic = [0.0] * 13
                aiv = [0.0] * 11
                cube = 0.0
                if t["core"] in ("AI_CORE", "MIX_AIC"):
                    at = d_us * rnd.uni(0.95, 0.99)
                    cyc = int(at * AIC_FREQ_MHZ * t["block"])
                    mac, sca, m1, m2, fp = (rnd.ratio(0.55, 0.85), rnd.ratio(0.2, 0.5), rnd.ratio(0.5, 0.7),
                                            rnd.ratio(0.8, 0.97), rnd.ratio(0.03, 0.1))
                    if t["core"] == "MIX_AIC":
                        mac = rnd.ratio(0.3, 0.45)
                    aic = [at, cyc, at * mac, mac, at * sca, sca, at * m1, m1, at * m2, m2, at * fp, fp, 0.001]
                    cube = cyc / (AIC_FREQ_MHZ * AI_CORE_NUM * d_us) * 100.0
                if t["core"] in ("AI_VECTOR_CORE", "MIX_AIC"):
                    vt = d_us * rnd.uni(0.85, 0.95)
                    blk = t["mix"] if t["core"] == "MIX_AIC" else t["block"]
                    cyc = int(vt * AIC_FREQ_MHZ * blk)
                    vec, sca, m2, m3 = (rnd.ratio(0.2, 0.65), rnd.ratio(0.05, 0.4), rnd.ratio(0.3, 0.9),
                                        rnd.ratio(0.1, 0.25))
                    aiv = [vt, cyc, vt * vec, vec, vt * sca, sca, vt * m2, m2, vt * m3, m3, 0.013]
                f += [str(x) if isinstance(x, int) else num_txt(x) for x in aic + aiv] + [num_txt(cube)]
            lines.append(",".join(f))
        return lines

    def op_statistic(self):
        agg = {}
        for t in self.tasks:
            if t["core"] == "HCCL":
                continue
            k = (t["type"], t["core"])
            d = t["end"] - t["ts"]
            a = agg.setdefault(k, [0, 0, None, None])
            a[0] += 1
            a[1] += d
            a[2] = d if a[2] is None else min(a[2], d)
            a[3] = d if a[3] is None else max(a[3], d)
        total = sum(a[1] for a in agg.values())
        rows = sorted(agg.items(), key=lambda kv: (-kv[1][1], kv[0]))
        lines = ["OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)"]
        out = []
        for (typ, core), (cnt, tot, mn, mx) in rows:
            lines.append(",".join([typ, core, str(cnt), us_txt(tot), us_txt(mn), num_txt(tot / cnt / 1000.0),
                                   us_txt(mx), num_txt(tot * 100.0 / total)]))
            out.append({"op_type": typ, "core_type": core, "count": cnt, "total_ns": tot, "min_ns": mn,
                        "max_ns": mx})
        return lines, out

    def memory(self):
        # torch_npu rule: GE and PTA records interleaved by time, each followed by a PTA+GE row
        pta = sorted(self.mem_pta)
        ge = sorted(self.mem_ge)
        rows = []
        gi = pi = 0
        last_ge = last_pta = None

        def comb(last, cur, comp, ptr):
            rows.append((comp, cur[0], cur[1], cur[2], cur[3], ptr))
            if last:
                rows.append(("PTA+GE", cur[0], cur[1] + last[1], cur[2] + last[2], cur[3] + last[3], STREAM_PTR))
            else:
                rows.append(("PTA+GE", cur[0], cur[1], cur[2], cur[3], ptr if ptr else STREAM_PTR))
        while gi < len(ge) and pi < len(pta):
            if ge[gi][0] >= pta[pi][0]:
                comb(last_ge, pta[pi], "PTA", STREAM_PTR)
                last_pta = pta[pi]
                pi += 1
            else:
                comb(last_pta, ge[gi], "GE", None)
                last_ge = ge[gi]
                gi += 1
        while gi < len(ge):
            comb(last_pta, ge[gi], "GE", None)
            gi += 1
        while pi < len(pta):
            comb(last_ge, pta[pi], "PTA", STREAM_PTR)
            pi += 1
        lines = ["Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),Stream Ptr,"
                 "Device Type"]
        for comp, ts, a, r, act, ptr in rows:
            lines.append(",".join([comp, ts_str(ts) + "\t", repr(a), repr(r), repr(act),
                                   str(ptr) if ptr else "", "NPU:0"]))
        self.mem_rows = rows
        return lines

    def operator_memory(self):
        lines = ["Name,Size(KB),Allocation Time(us),Release Time(us),Active Release Time(us),Duration(us),"
                 "Active Duration(us),Allocation Total Allocated(MB),Allocation Total Reserved(MB),"
                 "Allocation Total Active(MB),Release Total Allocated(MB),Release Total Reserved(MB),"
                 "Release Total Active(MB),Stream Ptr,Device Type"]
        pta = sorted(self.mem_pta)

        def at(ts):
            cur = pta[0]
            for p in pta:
                if p[0] <= ts:
                    cur = p
            return cur
        for name, kb, a, r in self.op_mem_rows:
            pa, pr = at(a), at(r)
            lines.append(",".join([name, str(kb), ts_str(a) + "\t", ts_str(r) + "\t", ts_str(r) + "\t",
                                   us_txt(r - a), us_txt(r - a), repr(pa[1]), repr(pa[2]), repr(pa[3]),
                                   repr(pr[1]), repr(pr[2]), repr(pr[3]), str(STREAM_PTR), "NPU:0"]))
        return lines

    def step_trace_lines(self):
        lines = ["Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
                 "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing"]
        for b in self.breakdown:
            lines.append(",".join(["0", str(b["id"]), us_txt(b["computing_ns"]), us_txt(b["comm_not_overlapped_ns"]),
                                   us_txt(b["overlapped_ns"]), us_txt(b["communication_ns"]), us_txt(b["free_ns"]),
                                   us_txt(b["stage_ns"]), "0", us_txt(b["comm_not_overlapped_ns"]),
                                   us_txt(b["preparing_ns"])]))
        return lines

    def write(self, outdir):
        root = os.path.join(outdir, FOLDER)
        apo = os.path.join(root, "ASCEND_PROFILER_OUTPUT")
        os.makedirs(apo, exist_ok=True)
        last_end = max(s["end"] for s in self.steps_info)
        info = {
            "config": {
                "common_config": {
                    "activities": ["ProfilerActivity.CPU", "ProfilerActivity.NPU"],
                    "schedule": {"_wait": 0, "_warmup": 0, "_active": self.steps, "_repeat": 1, "_skip_first": 1},
                    "on_trace_ready": {"_worker_name": "localhost_4242", "_dir_name": "./prof_sample"},
                    "record_shapes": True, "profile_memory": True, "with_stack": False, "with_flops": False,
                    "with_modules": False},
                "experimental_config": {
                    "_profiler_level": "Level1", "_aic_metrics": "PipeUtilization", "_l2_cache": False,
                    "_msprof_tx": False, "_data_simplification": True, "record_op_args": False, "_op_attr": False,
                    "_gc_detect_threshold": None, "_export_type": ["text"]}},
            "end_info": {"collectionTimeEnd": last_end + 2317000, "MonotonicTimeEnd": 86431077215463},
            "rank_id": -1}
        with open(os.path.join(root, "profiler_info.json"), "w", newline="\n") as f:
            f.write(json.dumps(info, indent=4))
        meta = {"distributed_args": {"tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1,
                                     "data_parallel_size": 2, "context_parallel_size": 1,
                                     "expert_model_parallel_size": 1, "sequence_parallel": False, "rank": 0,
                                     "world_size": 2},
                "ENV_VARIABLES": {"ASCEND_GLOBAL_LOG_LEVEL": "1", "HCCL_RDMA_TC": "", "HCCL_RDMA_SL": "",
                                  "ACLNN_CACHE_LIMIT": "", "HOST_CACHE_CAPACITY": "", "ASCEND_ENHANCE_ENABLE": "",
                                  "PYTORCH_NPU_ALLOC_CONF": "", "ASCEND_LAUNCH_BLOCKING": "", "HCCL_ALGO": "",
                                  "TASK_QUEUE_ENABLE": "1", "CPU_AFFINITY_CONF": ""},
                "parallel_group_info": {HCCL_GROUP: {"group_name": "default_group", "group_rank": 0,
                                                     "global_ranks": [0, 1]}}}
        with open(os.path.join(root, "profiler_metadata.json"), "w", newline="\n") as f:
            f.write(json.dumps(meta))
        events = self.trace_events()
        with open(os.path.join(apo, "trace_view.json"), "w", newline="\n") as f:
            f.write(json.dumps(events))
        krows = self.kernel_rows()
        opstat_lines, opstat = self.op_statistic()
        files = {
            "kernel_details.csv": (krows, "\n"),
            "step_trace_time.csv": (self.step_trace_lines(), "\n"),
            "op_statistic.csv": (opstat_lines, "\n"),
            # newer torch_npu memory csvs: python csv writer style (CRLF, tab-suffixed µs timestamps)
            "memory_record.csv": (self.memory(), "\r\n"),
            "operator_memory.csv": (self.operator_memory(), "\r\n"),
        }
        for name, (lines, eol) in files.items():
            with open(os.path.join(apo, name), "w", newline="") as f:
                f.write(eol.join(lines) + eol)
        exp = self.expected(events, len(krows) - 1, opstat)
        if self.plant.active():
            exp["planted"] = self.plant.describe()
        with open(os.path.join(outdir, "expected.json"), "w", newline="\n") as f:
            f.write(json.dumps(exp, indent=2, sort_keys=False) + "\n")

    def expected(self, events, n_krows, opstat):
        by_ph = {}
        for e in events:
            by_ph[e["ph"]] = by_ph.get(e["ph"], 0) + 1
        compute = [t for t in self.tasks if t["core"] != "HCCL"]
        aicpu = [t for t in compute if t["core"] == "AI_CPU"]
        n_compile = sum(1 for c in self.cann if c["name"] == "AscendCL@aclopCompileAndExecute")
        compile_steps = {}
        for c in self.cann:
            if c["name"] == "AscendCL@aclopCompileAndExecute":
                st = next(s["id"] for s in self.steps_info if s["start"] <= c["ts"] < s["end"])
                compile_steps[str(st)] = compile_steps.get(str(st), 0) + 1
        pta_rows = [r for r in self.mem_rows if r[0] == "PTA"]
        pk_all = max(self.mem_rows, key=lambda r: (r[2], -r[1]))
        pk_pta = max(pta_rows, key=lambda r: (r[2], -r[1]))
        max_res = max(r[3] for r in self.mem_rows)
        first_res = min(r[1] for r in self.mem_rows if r[3] == max_res)
        peak_step = next(s["id"] for s in self.steps_info if s["start"] <= pk_pta[1] < s["end"])
        free_ratio = {b["id"]: b["free_ratio_of_stage"] for b in self.breakdown}
        return {
            "generator": "tools/gen_sample.py", "seed": SEED, "steps": self.steps,
            "folder": FOLDER,
            "units": "integers are ns unless the key says otherwise",
            "pids": {"Python": PID_PY, "CANN": PID_CANN, "Ascend Hardware": PID_HW, "HCCL": PID_HCCL,
                     "Overlap Analysis": PID_OVERLAP},
            "tids": {"python_main": TID_MAIN, "python_task_queue": TID_DEQ, "cann_threads": [TID_DEQ, TID_MAIN],
                     "compute_stream": STREAM_COMPUTE, "comm_stream": STREAM_COMM,
                     "hccl_group_thread": TID_HCCL_GROUP,
                     "overlap": {"Computing": 0, "Communication": 1, "Communication(Not Overlapped)": 2, "Free": 3}},
            "device_id": 0, "rank_id": -1,
            "host_bound_step": HOST_BOUND_STEP if self.steps >= HOST_BOUND_STEP else None,
            "steps_breakdown": self.breakdown,
            "free_ratio_by_step": free_ratio,
            "trace": {
                "total_events": len(events),
                "events_by_ph": dict(sorted(by_ph.items())),
                "x_events_by_process": dict(sorted(self.counts_x.items())),
                "flows_by_category": {"HostToDevice": len(self.h2d), "async_npu": len(self.async_npu),
                                      "async_task_queue": len(self.enqueues), "fwdbwd": len(self.fwdbwd)},
                "overlap_segments": {k: len(v) for k, v in self.ov.items()},
                "overlap_totals_ns": {k: sum(e - s for s, e in v) for k, v in self.ov.items()},
                "device_window_ns": [min(t["ts"] for t in self.tasks), max(t["end"] for t in self.tasks)],
                "compute_tasks": len(compute),
                "hccl_ops": [{"name": h["name"], "step": h["step"], "start_ns": h["ts"], "end_ns": h["end"]}
                             for h in self.hccl_ops],
                "acl_op_compile_and_execute": {"count": n_compile, "by_step": compile_steps},
                "aclrt_synchronize_stream": {"count": sum(1 for c in self.cann
                                                          if c["name"] == "AscendCL@aclrtSynchronizeStream")},
                "node_launch": sum(1 for c in self.cann if c["name"] == "Node@launch"),
                "enqueue": len(self.enqueues), "dequeue": len(self.dequeues),
            },
            "kernel_details": {
                "rows": n_krows,
                "by_accelerator_core": dict(sorted(
                    {c: sum(1 for t in self.tasks if t["core"] == c) for c in set(t["core"] for t in self.tasks)
                     }.items())),
                "op_state": {"dynamic": sum(1 for t in self.tasks if t["state"] == "dynamic"),
                             "static": sum(1 for t in self.tasks if t["state"] == "static"),
                             "na": sum(1 for t in self.tasks if t["state"] == "N/A")},
                "ai_cpu": {"count": len(aicpu), "total_duration_ns": sum(t["end"] - t["ts"] for t in aicpu),
                           "by_type": dict(sorted({ty: sum(1 for t in aicpu if t["type"] == ty)
                                                   for ty in set(t["type"] for t in aicpu)}.items()))},
                "total_compute_duration_ns": sum(t["end"] - t["ts"] for t in compute),
            },
            "op_statistic": {"rows": len(opstat), "top": opstat[0], "all": opstat},
            "memory": {
                "record_rows": len(self.mem_rows),
                "peak_total_allocated_mb": pk_all[2], "peak_component": pk_all[0], "peak_timestamp_ns": pk_all[1],
                "pta_peak_total_allocated_mb": pk_pta[2], "pta_peak_timestamp_ns": pk_pta[1],
                "peak_step": peak_step,
                "max_total_reserved_mb": max_res, "max_total_reserved_first_timestamp_ns": first_res,
                "operator_memory_rows": len(self.op_mem_rows),
            },
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", help="where to write %s/ and expected.json" % FOLDER)
    ap.add_argument("--steps", type=int, default=5, help="number of profiled steps (default 5; step %d is the "
                    "host-bound one when it exists)" % HOST_BOUND_STEP)
    ap.add_argument("--slow-op", action="append", default=[], metavar="TYPE=FACTOR",
                    help="plant a regression: every task of OP Type TYPE lasts FACTOR times longer "
                    "(e.g. MatMulV3=1.3; repeatable)")
    ap.add_argument("--extra-free-us", type=float, default=0.0, metavar="US",
                    help="plant a regression: the dataloader takes US longer every step, so the device idles "
                    "that much more at each step boundary")
    ap.add_argument("--new-aicpu", action="store_true",
                    help="plant a regression: a new AI CPU operator (%s) once per step" % NEW_AICPU_OP[1][3])
    ap.add_argument("--noise-seed", type=int, default=None, metavar="N",
                    help="step-to-step noise: device task durations jitter by +-1.5%% per step and +-0.5%% per "
                    "task, drawn from random.Random(N)")
    a = ap.parse_args()
    if a.steps < 1:
        ap.error("--steps must be >= 1")
    slow = {}
    for spec in a.slow_op:
        typ, sep, factor = spec.partition("=")
        try:
            slow[typ] = float(factor)
        except ValueError:
            slow[typ] = -1.0
        if not sep or not typ or slow[typ] <= 0:
            ap.error("--slow-op wants TYPE=FACTOR with FACTOR > 0, got %r" % spec)
    if a.extra_free_us < 0:
        ap.error("--extra-free-us must be >= 0")
    plant = Plant(slow, int(round(a.extra_free_us * 1000)), a.new_aicpu, a.noise_seed)
    g = Gen(a.steps, plant)
    g.simulate()
    g.overlap()
    g.step_breakdown()
    g.write(a.outdir)
    for b in g.breakdown:
        print("step %d: computing %s us, comm %s us, comm not overlapped %s us, free %s us (%.1f%% of stage)" % (
            b["id"], us_txt(b["computing_ns"]), us_txt(b["communication_ns"]), us_txt(b["comm_not_overlapped_ns"]),
            us_txt(b["free_ns"]), 100.0 * b["free_ratio_of_stage"]))


if __name__ == "__main__":
    main()
