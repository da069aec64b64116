#!/usr/bin/env python3
"""Writes the fixtures of the serving graph rules (rules/lua/dispatch/graph_coverage.test.json and
eager_in_graph.test.json): inference facts of decode iterations that replayed graphs or ran eager,
with the numbers the tests assert worked by hand in the comments. Run from the repository root:

    python3 tests/rules/make_serving_graph_rule_tests.py
"""
import json
def it(phase, req, own, busy, graph_ops, eager_ns=None, n=1, name=None):
    return {"name": name or f"step[{phase.upper()} bs={req}]", "pattern": "sglang_step", "phase": phase,
            "requests": req, "tokens": req, "own_window_ns": own, "busy_ns": busy, "graph_ops": graph_ops,
            "device_ops": 400, "graph_share": (0.0 if graph_ops == 0 else 0.95),
            "eager_in_graph_ns": (None if graph_ops == 0 else (eager_ns or 0)),
            "evidence": [{"file": "trace.json", "byte": 100 + n, "what": "the iteration's annotation"}]}
def facts(engine, its, sizes=(), eager_classes=None, kind="serving", platform="gpu"):
    return {"run": {"framework": "pytorch", "platform": platform},
            "inference": {"kind": kind, "engine": engine, "summary": "serving", "evidence": [],
                          "iterations": its, "steady_state": {"first": 1, "last": len(its), "excluded": []},
                          "graphs": {"replay_share": 0.5, "captured_sizes": list(sizes), "captures": [],
                                     "eager_iterations": [], "classes": [],
                                     "eager_in_graphed": {"iterations": 1, "ops": 10, "busy_ns": 1, "share": 0.1,
                                                          "classes": eager_classes}}}}
ms = 1000000
# graph_coverage, first case: 4 eager decode iterations of 30 ms own, 12 ms busy: 4 x 18 ms idle,
# x 0.5 / 8 iterations = 4.5 ms per step. eager_in_graph, first case: 3 iterations of 12 ms own,
# 10 ms busy, 4 ms eager: 40% of the busy time; 3 x 2 ms x 0.5 / 3 = 1 ms per step.
graphed = [it("decode", 32, 10*ms, 9800000, 400, 300000, n=i) for i in range(4)]
above = [it("decode", 48, 30*ms, 12*ms, 0, n=10+i) for i in range(4)]
cov = {"rule": "dispatch.graph_coverage", "fires": [
  {"name": "does not fit: vLLM decode batches above the largest captured size get vLLM's capture size and --max-num-seqs on a captured size, no SGLang or Hugging Face command",
   "findings": 1, "contains": ["max_cudagraph_capture_size\\\": 48", "--max-num-seqs 32", "above the largest captured size, 32", "4 of 8 decode iterations (batch 48)"],
   "not_contains": ["--cuda-graph-max-bs", "cache_implementation"], "min_saving_ns": 4500000, "max_saving_ns": 4500000,
   "facts": facts("vllm", graphed + above, sizes=[8, 16, 32])},
  {"name": "does not fit: an SGLang run without its capture in the trace: the largest batch that replayed a graph bounds the captured sizes; SGLang's --cuda-graph-max-bs, not vLLM's flags",
   "findings": 1, "contains": ["--cuda-graph-max-bs 48", "largest graphed size, 32"], "not_contains": ["--max-num-seqs", "compilation-config"],
   "facts": facts("sglang", graphed + above)},
  {"name": "does not fit: vLLM-Ascend gets its ACL graph capture sizes",
   "findings": 1, "contains": ["ACL graphs", "cudagraph_capture_sizes", "--max-num-seqs 32"], "not_contains": ["--cuda-graph-max-bs", "MINDIE"],
   "facts": facts("vllm_ascend", graphed + above, sizes=[32], platform="ascend")},
  {"name": "a vLLM run whose decode never replayed a graph is told to turn graphs on (cudagraph_mode), never --enforce-eager as a fix",
   "findings": 1, "contains": ["No iteration replayed a graph", "FULL_AND_PIECEWISE"], "not_contains": ["max_cudagraph_capture_size"],
   "facts": facts("vllm", above)},
  {"name": "a vLLM-Ascend run whose decode never replayed an ACL graph is told vLLM-Ascend's cudagraph_mode (FULL_DECODE_ONLY), not vLLM's",
   "findings": 1, "contains": ["No iteration replayed a graph", "FULL_DECODE_ONLY", "ACL graphs"], "not_contains": ["FULL_AND_PIECEWISE", "--cuda-graph-max-bs"],
   "facts": facts("vllm_ascend", above, platform="ascend")},
  {"name": "does not fit: an engine the tool does not know gets the finding with no engine's command",
   "findings": 1, "contains": ["Capture graphs for the decode batch sizes"], "not_contains": ["--", "cache_implementation"],
   "facts": facts("unknown", graphed + above, sizes=[32])},
], "quiet": [
  {"name": "does not fit: every decode iteration replayed a graph (vllm_decode_full's shape)", "facts": facts("vllm", graphed, sizes=[32])},
  {"name": "does not fit: eager prefill iterations (a prefill batch is not a decode graph's)", "facts": facts("vllm", graphed + [it("prefill", 48, 30*ms, 12*ms, 0, n=20)], sizes=[32])},
  {"name": "below the thresholds: one short eager decode iteration among many graphed ones", "facts": facts("vllm", graphed * 5 + [it("decode", 48, 2*ms, 1*ms, 0, n=30)], sizes=[32])},
  {"name": "a start-up graph capture (inference.kind graph_capture): nothing fires", "facts": facts("vllm", above, sizes=[32], kind="graph_capture")},
], "skipped": [
  {"name": "without inference facts", "reason": "missing inference.iterations", "facts": {"run": {"framework": "pytorch", "platform": "gpu"}}},
]}
json.dump(cov, open("rules/lua/dispatch/graph_coverage.test.json", "w"))
pw = [it("decode", 32, 12*ms, 10*ms, 50, 4*ms, n=i) for i in range(3)]
ok = [it("decode", 32, 10*ms, 9800000, 400, 300000, n=i) for i in range(3)]
mixed = [dict(it("mixed", 46, 150*ms, 149*ms, 25, 40*ms, n=i), name="execute_8192_context_9_generation_37") for i in range(3)]
eig = {"rule": "dispatch.eager_in_graph", "fires": [
  {"name": "does not fit: vLLM piecewise decode graphs with attention eager between the pieces get FULL_AND_PIECEWISE, no SGLang command",
   "findings": 1, "contains": ["FULL_AND_PIECEWISE", "attention 90%", "40% of their busy time"], "not_contains": ["--cuda-graph-max-bs"],
   "min_saving_ns": 1000000, "max_saving_ns": 1000000,
   "facts": facts("vllm", pw, sizes=[32], eager_classes={"attention": 0.9, "other": 0.1})},
  {"name": "does not fit: vLLM-Ascend piecewise decode graphs get its FULL_DECODE_ONLY mode, not vLLM's FULL_AND_PIECEWISE",
   "findings": 1, "contains": ["FULL_DECODE_ONLY", "full ACL graphs"], "not_contains": ["FULL_AND_PIECEWISE", "--cuda-graph-max-bs"],
   "facts": facts("vllm_ascend", pw, sizes=[32], eager_classes={"attention": 0.9, "other": 0.1}, platform="ascend")},
  {"name": "does not fit: an SGLang run gets the finding without vLLM's cudagraph_mode",
   "findings": 1, "contains": ["Move the eager work"], "not_contains": ["cudagraph_mode", "--"],
   "facts": facts("sglang", pw, eager_classes={"sampler": 0.6, "other": 0.4})},
], "quiet": [
  {"name": "does not fit: a few eager ops around a full graph (vllm_decode_full: the sampler and input copies, 3%)", "facts": facts("vllm", ok, sizes=[32])},
  {"name": "does not fit: mixed batches run attention eager under piecewise graphs by design", "facts": facts("vllm", mixed, sizes=[8192], eager_classes={"attention": 0.9})},
  {"name": "a start-up graph capture (inference.kind graph_capture): nothing fires", "facts": facts("vllm", pw, kind="graph_capture")},
], "skipped": [
  {"name": "without inference facts", "reason": "missing inference.iterations", "facts": {"run": {"framework": "pytorch", "platform": "gpu"}}},
]}
json.dump(eig, open("rules/lua/dispatch/eager_in_graph.test.json", "w"))
