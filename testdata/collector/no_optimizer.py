# A loop that never calls an optimizer's step(): the collector must say that nothing was captured
# (tests/e2e/collector_e2e_test.cpp). With --mark it calls npu_advisor_capture.step() per
# iteration instead, the documented way to mark steps without an optimizer.
import sys

import torch

try:
    from npu_advisor_capture import step as profiler_step
except ImportError:  # not running under npu-advisor
    profiler_step = lambda: None  # noqa: E731

mark = "--mark" in sys.argv
a = torch.randn(64, 64)
for _ in range(8):
    a = torch.tanh(a @ a.T / 64)
    if mark:
        profiler_step()
print("done", flush=True)
