#!/usr/bin/env python3
"""The GEMM FLOPs of one replay of a captured graph, from the capture trace alone (independent of
the tool's loaders and models): 2*M*K*N for every aten::mm the capture recorded, from its
[[M, K], [K, N]] Input Dims (tests/realdata/inference_realdata_test.cpp).

    verify_replay_flops.py CAPTURE.json.gz   # prints: aten::mm count, FLOPs

On sglang_decode/capture_traces/bs_32_rank0.json.gz: 145 484358225920. Standard library only.
"""
import gzip
import json
import sys


def main():
    path = sys.argv[1]
    doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    flops = count = 0
    for e in doc["traceEvents"]:
        if e.get("cat") != "cpu_op" or e.get("name") != "aten::mm":
            continue
        (m, k), (k2, n) = e["args"]["Input Dims"][:2]
        assert k == k2, e
        flops += 2 * m * k * n
        count += 1
    print(count, flops)


if __name__ == "__main__":
    main()
