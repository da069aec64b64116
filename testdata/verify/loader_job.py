# A CPU training loop whose DataLoader is the bottleneck, for `npu-advisor verify`'s end-to-end
# tests (tests/e2e/verify_e2e_test.cpp).
#   loader_job.py [--workers N] [--batch B] [--steps S] [--fetch-ms F] [--work-ms W] [--layers L]
#                 [--hang-after K] [--deeper-after-first FLAG]
# Each batch takes F ms to fetch (its first sample sleeps F ms in __getitem__: storage, not CPU,
# so worker processes overlap it even on a loaded 2-core machine); each step then works W ms on
# the host (a sleep: the rest of the step) and trains a small MLP. Defaults: 0 workers (the
# single-process loader), batch 8, 12 steps, 120 ms fetch, 60 ms of work (long sleeps: the few ms of
# CPU a step needs stretch on a loaded machine, and stay small beside them), 1 hidden layer (L > 1: a
# deeper model, other work). --deeper-after-first FLAG: the first run creates the file FLAG, a run
# that finds it uses 3 layers (a job that does other work from one capture to the next).
import os
import sys
import time

import torch


def arg(name, default):
    a = sys.argv[1:]
    return type(default)(a[a.index(name) + 1]) if name in a else default


workers = arg("--workers", 0)
batch = arg("--batch", 8)
steps = arg("--steps", 12)
fetch_ms = arg("--fetch-ms", 120.0)
work_ms = arg("--work-ms", 60.0)
layers = arg("--layers", 1)
hang_after = arg("--hang-after", -1)
flag = arg("--deeper-after-first", "")
if flag:
    if os.path.exists(flag):
        layers = 3
    else:
        open(flag, "w").close()


class Slow(torch.utils.data.Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        if i % batch == 0:  # one wait per batch: fewer wake-ups, less jitter on a loaded machine
            time.sleep(fetch_ms / 1000.0)
        return torch.full((64,), float(i % 7)), i % 10


torch.manual_seed(0)
torch.set_num_threads(1)
hidden = []
for _ in range(layers - 1):
    hidden += [torch.nn.Linear(128, 128), torch.nn.ReLU()]
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), *hidden, torch.nn.Linear(128, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
kw = {"num_workers": workers}
if workers > 0:
    kw.update(persistent_workers=True, prefetch_factor=2)
loader = torch.utils.data.DataLoader(Slow(), batch_size=batch, **kw)
done = 0
for x, y in loader:
    time.sleep(work_ms / 1000.0)
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    done += 1
    if done == hang_after:  # for the interruption test: say so ($JOB_MARKER), then wait for good
        if os.environ.get("JOB_MARKER"):
            open(os.environ["JOB_MARKER"], "w").close()
        while True:
            time.sleep(1)
    if done == steps:
        break
print("trained %d steps (workers %d, batch %d)" % (done, workers, batch), flush=True)
